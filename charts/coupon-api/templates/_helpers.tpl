{{- /* A fixed component name, not the chart's: the umbrella aliases this chart as couponApi, Helm then
reports the alias as the chart name, and Kubernetes object names must be lowercase. */ -}}
{{- define "coupon-api.name" -}}coupon-api{{- end -}}

{{- define "coupon-api.fullname" -}}
{{- /* Same name the umbrella uses for it (coupon-event.apiServiceName / consumerName). */ -}}
{{- printf "%s-%s" (.Release.Name | trunc 52 | trimSuffix "-") (include "coupon-api.name" .) -}}
{{- end -}}

{{- define "coupon-api.selectorLabels" -}}
app.kubernetes.io/name: {{ include "coupon-api.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "coupon-api.labels" -}}
helm.sh/chart: {{ printf "%s-%s" (include "coupon-api.name" .) .Chart.Version }}
{{ include "coupon-api.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: api
app.kubernetes.io/part-of: coupon-event
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "coupon-api.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "coupon-api.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}
