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

{{/* The load test's TestRun (loadtest.runId): its name is also the testid of every sample. */}}
{{- define "coupon-event.testRunName" -}}
{{- printf "%s-k6-%s" (include "coupon-lib.prefix" .) (.Values.loadtest.runId | toString) | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{/* The coupon the load test attacks: loadtest.couponId, else the first of event.coupons. */}}
{{- define "coupon-event.loadtestCouponId" -}}
{{- .Values.loadtest.couponId | default (include "coupon-event.firstCouponId" .) | toString -}}
{{- end -}}

{{/* The ConfigMap the verification Job writes the load test's verdict into. */}}
{{- define "coupon-event.verdictName" -}}
{{- printf "%s-verdict-%s" (include "coupon-lib.prefix" .) (.Values.loadtest.runId | toString) | trunc 63 | trimSuffix "-" -}}
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
