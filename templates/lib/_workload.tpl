{{/* The objects of one component (coupon-api, coupon-consumer, coupon-waiting-room), from its
     values. Each takes (dict "context" <component context> "name" <e.g. coupon-api> "component"
     <api|consumer|waiting-room> "chart" <chart name>), as templates/_components.tpl passes it. */}}

{{- define "coupon-lib.metadata" -}}
metadata:
  name: {{ include "coupon-lib.fullname" . }}
  labels:
    {{- include "coupon-lib.labels" . | nindent 4 }}
{{- end -}}

{{- define "coupon-lib.serviceAccountName" -}}
{{- $sa := .context.Values.serviceAccount -}}
{{- if $sa.create -}}
{{- default (include "coupon-lib.fullname" .) $sa.name -}}
{{- else -}}
{{- default "default" $sa.name -}}
{{- end -}}
{{- end -}}

{{/* The Deployment. Also pass "env" (the service's own variables, a YAML list), "redis" (the pods
     talk to Redis) and "eventConfig" (the event's coupons mounted at /config/event.yaml and imported);
     optionally "configMaps" (a list of dict "name" "configMap" "mountPath": more read-only mounts);
     optionally "ports" (dict "http" N "management" M; default 8080/8081), and "database": false /
     "kafka": false for a service that uses neither (no datasource variables, no Kafka wiring). */}}
{{- define "coupon-lib.deployment" -}}
{{- $ctx := .context -}}
{{- $v := $ctx.Values -}}
{{- $id := dict "context" $ctx "name" .name "component" .component "chart" .chart -}}
{{- $ports := include "coupon-lib.ports" . | fromYaml -}}
{{- $database := ternary .database true (hasKey . "database") -}}
{{- $kafka := ternary .kafka true (hasKey . "kafka") -}}
apiVersion: apps/v1
kind: Deployment
{{ include "coupon-lib.metadata" $id }}
spec:
  {{- if not $v.autoscaling.enabled }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "coupon-lib.selectorLabels" $id | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      labels:
        {{- include "coupon-lib.labels" $id | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Roll the pods when the shared wiring (credentials, endpoints) changes.
        checksum/wiring: {{ toJson $v.global | sha256sum }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "coupon-lib.serviceAccountName" $id }}
      automountServiceAccountToken: false
      {{- include "coupon-lib.imagePullSecrets" $ctx | nindent 6 }}
      securityContext:
        {{- include "coupon-lib.podSecurityContext" $ctx | nindent 8 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $v.topologySpread.enabled }}
      topologySpreadConstraints:
        {{- $spread := $v.topologySpread }}
        {{- range list (list "topology.kubernetes.io/zone" $spread.zoneWhenUnsatisfiable) (list "kubernetes.io/hostname" $spread.nodeWhenUnsatisfiable) }}
        - maxSkew: {{ $spread.maxSkew }}
          topologyKey: {{ index . 0 }}
          whenUnsatisfiable: {{ index . 1 }}
          labelSelector:
            matchLabels:
              {{- include "coupon-lib.selectorLabels" $id | nindent 14 }}
          matchLabelKeys: [pod-template-hash]
        {{- end }}
      {{- end }}
      containers:
        - name: {{ .name }}
          image: {{ include "coupon-lib.image" (dict "image" $v.image "context" $ctx "tag" $ctx.Chart.AppVersion) | quote }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          {{- include "coupon-lib.javaCommand" $v.jvmFlags | nindent 10 }}
          ports:
            - {name: http, containerPort: {{ $ports.http }}, protocol: TCP}
            - {name: management, containerPort: {{ $ports.management }}, protocol: TCP}
          {{- if $kafka }}
          envFrom:
            - configMapRef:
                name: {{ include "coupon-lib.kafkaConfigName" $ctx }}
          {{- end }}
          env:
            - {name: SERVER_PORT, value: {{ $ports.http | quote }}}
            - {name: MANAGEMENT_SERVER_PORT, value: {{ $ports.management | quote }}}
            {{- if $database }}
            # Migrations are the hook Job's work, not every pod's.
            - {name: SPRING_FLYWAY_ENABLED, value: "false"}
            {{- end }}
            {{- if $v.readinessOnMainPort }}
            # /livez and /readyz on the main port as well (management.endpoint.health.probes.add-additional-paths).
            - {name: MANAGEMENT_ENDPOINT_HEALTH_PROBES_ADDADDITIONALPATHS, value: "true"}
            {{- end }}
            {{- with .env }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- with include "coupon-lib.env" (dict "context" $ctx "redis" .redis "jwt" true "database" $database) | trim }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- if $kafka }}
            {{- with include "coupon-lib.kafkaSecurityEnv" $ctx | trim }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- end }}
            {{- range $name, $value := $v.extraEnv }}
            - {name: {{ $name }}, value: {{ $value | toString | quote }}}
            {{- end }}
          {{- range $probe := list "startup" "liveness" "readiness" }}
          {{ $probe }}Probe:
            {{- if and (eq $probe "readiness") $v.readinessOnMainPort }}
            # On the main connector (Spring Boot's /readyz): the management port can keep answering
            # while the server port is saturated.
            httpGet: {path: /readyz, port: http}
            {{- else }}
            httpGet: {path: /actuator/health/{{ eq $probe "readiness" | ternary "readiness" "liveness" }}, port: management}
            {{- end }}
            {{- toYaml (get $v.probes $probe) | nindent 12 }}
          {{- end }}
          lifecycle:
            preStop:
              # Endpoints and load balancers drop the pod before Spring stops accepting (or polling).
              sleep:
                seconds: {{ $v.preStopSleepSeconds }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- include "coupon-lib.containerSecurityContext" $ctx | nindent 12 }}
          volumeMounts:
            - {name: tmp, mountPath: /tmp}
            {{- if .eventConfig }}
            - {name: event, mountPath: /config, readOnly: true}
            {{- end }}
            {{- range .configMaps }}
            - {name: {{ .name }}, mountPath: {{ .mountPath }}, readOnly: true}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 256Mi
        {{- if .eventConfig }}
        - name: event
          configMap:
            name: {{ include "coupon-lib.eventConfigName" $ctx }}
        {{- end }}
        {{- range .configMaps }}
        - name: {{ .name }}
          configMap:
            name: {{ .configMap }}
        {{- end }}
{{- end -}}

{{/* The container ports: pass the same dict as to coupon-lib.deployment. */}}
{{- define "coupon-lib.ports" -}}
{{- $p := .ports | default dict -}}
http: {{ $p.http | default 8080 }}
management: {{ $p.management | default 8081 }}
{{- end -}}

{{/* Also pass "ports" when the deployment got them. */}}
{{- define "coupon-lib.service" -}}
{{- $v := .context.Values -}}
{{- $ports := include "coupon-lib.ports" . | fromYaml -}}
apiVersion: v1
kind: Service
{{ include "coupon-lib.metadata" . }}
spec:
  type: {{ $v.service.type }}
  selector:
    {{- include "coupon-lib.selectorLabels" . | nindent 4 }}
  ports:
    - {name: http, port: {{ $v.service.port }}, targetPort: http, protocol: TCP}
    - {name: management, port: {{ $ports.management }}, targetPort: management, protocol: TCP}
{{- end -}}

{{- define "coupon-lib.podDisruptionBudget" -}}
{{- $pdb := .context.Values.podDisruptionBudget -}}
{{- if $pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
{{ include "coupon-lib.metadata" . }}
spec:
  maxUnavailable: {{ $pdb.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "coupon-lib.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}

{{- define "coupon-lib.serviceAccount" -}}
{{- $sa := .context.Values.serviceAccount -}}
{{- if $sa.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "coupon-lib.serviceAccountName" . }}
  labels:
    {{- include "coupon-lib.labels" . | nindent 4 }}
  {{- with $sa.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
# The services never talk to the Kubernetes API.
automountServiceAccountToken: false
{{- end }}
{{- end -}}

{{/* A CPU HorizontalPodAutoscaler, plus requests per second per pod when that metric is served.
     Also pass "valuesKey", the chart's key in the umbrella's values, for the error message. */}}
{{- define "coupon-lib.hpa" -}}
{{- $a := .context.Values.autoscaling -}}
{{- if $a.enabled }}
{{- if gt ($a.minReplicas | int) ($a.maxReplicas | int) }}
{{- fail (printf "%s.autoscaling.minReplicas must not exceed maxReplicas" .valuesKey) }}
{{- end }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
{{ include "coupon-lib.metadata" . }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "coupon-lib.fullname" . }}
  minReplicas: {{ $a.minReplicas }}
  maxReplicas: {{ $a.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $a.targetCPUUtilizationPercentage }}
    {{- if $a.requestsPerSecond.enabled }}
    - type: Pods
      pods:
        metric:
          name: {{ $a.requestsPerSecond.metricName }}
        target:
          type: AverageValue
          averageValue: {{ $a.requestsPerSecond.averageValue | quote }}
    {{- end }}
  {{- with $a.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end -}}
