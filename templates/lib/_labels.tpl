{{/* Labels. Pass (dict "context" $ "name" <app.kubernetes.io/name> "component" <x>), and "chart" when
     the chart label is not <name>-<version> (the umbrella's nameOverride). */}}

{{- define "coupon-lib.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
{{- end -}}

{{- define "coupon-lib.labels" -}}
{{- $ctx := .context -}}
helm.sh/chart: {{ printf "%s-%s" (.chart | default .name) $ctx.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "coupon-lib.selectorLabels" . }}
app.kubernetes.io/version: {{ $ctx.Chart.AppVersion | quote }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: coupon-event
app.kubernetes.io/managed-by: {{ $ctx.Release.Service }}
{{- with $ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The labels NetworkPolicies select pods by. */}}
{{- define "coupon-lib.podLabels" -}}
{{ include "coupon-lib.selectorLabels" . }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: coupon-event
{{- end -}}
