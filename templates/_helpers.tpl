{{/* Names and labels of the umbrella's own objects (the shared helpers are in templates/lib). */}}

{{- define "coupon-event.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* labels: pass (dict "root" $ "component" "x") */}}
{{- define "coupon-event.labels" -}}
{{- include "coupon-lib.labels" (dict "context" .root "name" (include "coupon-event.name" .root) "chart" .root.Chart.Name "component" .component) -}}
{{- end -}}

{{/* Pod labels that NetworkPolicies select on: pass (dict "root" $ "component" "x") */}}
{{- define "coupon-event.podLabels" -}}
{{- include "coupon-lib.podLabels" (dict "context" .root "name" (include "coupon-event.name" .root) "component" .component) -}}
{{- end -}}

{{/* The components' objects, named as templates/lib names them. */}}
{{- define "coupon-event.apiServiceName" -}}
{{- include "coupon-lib.fullname" (dict "context" . "name" "coupon-api") -}}
{{- end -}}

{{- define "coupon-event.consumerName" -}}
{{- include "coupon-lib.fullname" (dict "context" . "name" "coupon-consumer") -}}
{{- end -}}

{{- define "coupon-event.waitingRoomName" -}}
{{- include "coupon-lib.fullname" (dict "context" . "name" "coupon-waiting-room") -}}
{{- end -}}

{{/* The first coupon id: default target of the load test and the helm test. */}}
{{- define "coupon-event.firstCouponId" -}}
{{- (index .Values.event.coupons 0).id | int64 -}}
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
        {{- with .opensAt }}
        opens-at: {{ . | quote }}
        {{- end }}
        closes-at: {{ .closesAt | quote }}
      {{- end }}
{{- end -}}
