{{- define "coupon-api.fullname" -}}
{{- /* Same name the umbrella uses for it (coupon-event.apiServiceName / consumerName). */ -}}
{{- printf "%s-%s" (.Release.Name | trunc (int (sub 62 (len .Chart.Name))) | trimSuffix "-") .Chart.Name -}}
{{- end -}}

{{- define "coupon-api.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "coupon-api.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
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
