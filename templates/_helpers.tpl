{{/* Names and labels of the umbrella's own objects. Object names start with the release name so that
     the subcharts (which only know .Release) can refer to them: <release>-<what>. */}}

{{- define "coupon-event.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Prefix of every umbrella object; 40 characters leave room for Strimzi's own suffixes. */}}
{{- define "coupon-event.prefix" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "coupon-event.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "coupon-event.selectorLabels" -}}
app.kubernetes.io/name: {{ include "coupon-event.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* labels: pass (dict "root" $ "component" "x") */}}
{{- define "coupon-event.labels" -}}
{{- $root := .root -}}
helm.sh/chart: {{ include "coupon-event.chart" $root }}
{{ include "coupon-event.selectorLabels" $root }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: coupon-event
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Pod labels that NetworkPolicies select on: pass (dict "root" $ "component" "x") */}}
{{- define "coupon-event.podLabels" -}}
{{ include "coupon-event.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: coupon-event
{{- end -}}

{{/* image: pass (dict "image" .Values.x.image "global" .Values.global "tag" default-tag) */}}
{{- define "coupon-event.image" -}}
{{- $registry := .global.imageRegistry | default .image.registry -}}
{{- $tag := .image.tag | default .tag | toString -}}
{{- if $registry -}}{{ printf "%s/%s:%s" $registry .image.repository $tag }}{{- else -}}{{ printf "%s:%s" .image.repository $tag }}{{- end -}}
{{- end -}}

{{- define "coupon-event.imagePullSecrets" -}}
{{- with .Values.global.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The first coupon id: default target of the load test and the helm test. */}}
{{- define "coupon-event.firstCouponId" -}}
{{- (index .Values.event.coupons 0).id | int64 -}}
{{- end -}}

{{- define "coupon-event.apiServiceName" -}}
{{- printf "%s-coupon-api" (.Release.Name | trunc 52 | trimSuffix "-") -}}
{{- end -}}

{{- define "coupon-event.consumerName" -}}
{{- printf "%s-coupon-consumer" (.Release.Name | trunc 47 | trimSuffix "-") -}}
{{- end -}}

{{/* The hardened container securityContext every container of the release uses. */}}
{{- define "coupon-event.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "coupon-event.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* coupon.catalog.coupons in Spring's relaxed form (docs/contract.md). */}}
{{- define "coupon-event.eventYaml" -}}
coupon:
  catalog:
    coupons:
      {{- range .Values.event.coupons }}
      - id: {{ .id | int64 }}
        name: {{ .name | quote }}
        quantity: {{ .quantity | int64 }}
        opens-at: {{ .opensAt | quote }}
        closes-at: {{ .closesAt | quote }}
      {{- end }}
{{- end -}}
