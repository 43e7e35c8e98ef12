{{/* A Job running the coupon-api image with --coupon.job=<job>: the hooks (migrate, register) and
     the load test's verification.
     Pass (dict "root" $ "job" "migrate|register|verify" "env" <yaml> "withEvent" bool) and, for a hook,
     "hook" "<events>" "weight" "<n>"; else "name" <the Job's name>, "labels" <extra labels, yaml>,
     "spec" <extra Job spec, yaml>, "serviceAccount" <name> (its token mounted) and "kafka" true
     (the Kafka wiring). */}}
{{- define "coupon-event.apiJob" -}}
{{- $root := .root -}}
{{- $api := $root.Values.couponApi -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .name | default (printf "%s-%s" (include "coupon-lib.prefix" $root) .job) }}
  labels:
    {{- include "coupon-event.labels" (dict "root" $root "component" .job) | nindent 4 }}
    {{- with .labels }}
    {{- . | nindent 4 }}
    {{- end }}
  {{- if .hook }}
  annotations:
    helm.sh/hook: {{ .hook }}
    helm.sh/hook-weight: {{ .weight | quote }}
    # A successful Job goes at once: Helm never deletes hook resources on uninstall, so a kept one
    # outlived its release (found on a real node). A failed one stays for its logs until the next
    # attempt or its ttlSecondsAfterFinished.
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
  {{- end }}
spec:
  {{- if .hook }}
  backoffLimit: {{ $root.Values.jobs.backoffLimit }}
  activeDeadlineSeconds: {{ $root.Values.jobs.activeDeadlineSeconds }}
  ttlSecondsAfterFinished: {{ $root.Values.jobs.ttlSecondsAfterFinished }}
  {{- end }}
  {{- with .spec }}
  {{- . | nindent 2 }}
  {{- end }}
  template:
    metadata:
      labels:
        {{- include "coupon-event.podLabels" (dict "root" $root "component" .job) | nindent 8 }}
    spec:
      restartPolicy: Never
      {{- with .serviceAccount }}
      serviceAccountName: {{ . }}
      # The one pod of the release that talks to the Kubernetes API (its Role: templates/verify.yaml).
      automountServiceAccountToken: true
      {{- else }}
      automountServiceAccountToken: false
      {{- end }}
      {{- include "coupon-lib.imagePullSecrets" $root | nindent 6 }}
      securityContext:
        {{- include "coupon-lib.podSecurityContext" $root | nindent 8 }}
      {{- with $api.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $api.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $api.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      containers:
        - name: {{ .job }}
          image: {{ include "coupon-lib.image" (dict "image" $api.image "context" $root "tag" $root.Chart.AppVersion) | quote }}
          imagePullPolicy: {{ $api.image.pullPolicy }}
          {{- include "coupon-lib.javaCommand" $api.jvmFlags | nindent 10 }}
          args: ["--coupon.job={{ .job }}"]
          {{- if .kafka }}
          envFrom:
            - configMapRef:
                name: {{ include "coupon-lib.kafkaConfigName" $root }}
          {{- end }}
          env:
            {{- .env | nindent 12 }}
          resources:
            {{- toYaml $root.Values.jobs.resources | nindent 12 }}
          securityContext:
            {{- include "coupon-lib.containerSecurityContext" $root | nindent 12 }}
          volumeMounts:
            - {name: tmp, mountPath: /tmp}
            {{- if .withEvent }}
            - {name: event, mountPath: /config, readOnly: true}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir: {}
        {{- if .withEvent }}
        - name: event
          configMap:
            name: {{ include "coupon-lib.eventConfigName" $root }}
        {{- end }}
{{- end -}}

{{/* The migrate hook runs before the release's objects on install, except when the database is
     itself part of the release (bundled MySQL): then it can only run after install. */}}
{{- define "coupon-event.migrateHook" -}}
{{- if (index .Values "mysql").enabled -}}post-install,pre-upgrade{{- else -}}pre-install,pre-upgrade{{- end -}}
{{- end -}}

{{/* A password from values lives in <prefix>-credentials, which does not exist yet when a
     pre-install hook runs: the migrate hook gets its own short-lived copy. */}}
{{- define "coupon-event.migrateNeedsSecretCopy" -}}
{{- $g := .Values.global -}}
{{- if and (not (index .Values "mysql").enabled) (not $g.externalDatabase.existingSecret) $g.externalDatabase.password -}}true{{- end -}}
{{- end -}}
