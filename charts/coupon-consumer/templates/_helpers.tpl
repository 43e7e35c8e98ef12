{{- /* A fixed component name, not the chart's: the umbrella aliases this chart as couponConsumer, Helm then
reports the alias as the chart name, and Kubernetes object names must be lowercase. */ -}}
{{- define "coupon-consumer.name" -}}coupon-consumer{{- end -}}

{{- define "coupon-consumer.fullname" -}}
{{- /* Same name the umbrella uses for it (coupon-event.apiServiceName / consumerName). */ -}}
{{- printf "%s-%s" (.Release.Name | trunc 47 | trimSuffix "-") (include "coupon-consumer.name" .) -}}
{{- end -}}

{{- define "coupon-consumer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "coupon-consumer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "coupon-consumer.labels" -}}
helm.sh/chart: {{ printf "%s-%s" (include "coupon-consumer.name" .) .Chart.Version }}
{{ include "coupon-consumer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: consumer
app.kubernetes.io/part-of: coupon-event
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "coupon-consumer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "coupon-consumer.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}
