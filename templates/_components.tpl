{{/* The event's services as one map (the OpenTelemetry demo chart's components pattern): each
     component names its values key and what its pods use, and templates/<component>/ render its
     objects through the shared helpers in templates/lib/. */}}
{{- define "coupon-event.components" -}}
coupon-api:
  valuesKey: couponApi
  component: api
  redis: true
  eventConfig: true
coupon-consumer:
  valuesKey: couponConsumer
  component: consumer
  redis: false
  eventConfig: false
coupon-waiting-room:
  valuesKey: couponWaitingRoom
  component: waiting-room
  redis: false
  database: false
  kafka: false
  ports: {http: 8070, management: 8071}
  # couponWaitingRoom.page, when set, replaces the page's built-in config.json (mounted at /page).
  page: true
{{- end -}}

{{/* One object of one component: (dict "root" $ "name" "coupon-api" "object" "deployment"), where
     object is a helper of templates/lib/_workload.tpl (deployment, hpa, podDisruptionBudget, service,
     serviceAccount). Nothing when the component is disabled. The helpers see a context whose
     .Values are the component's values plus `global` (and `kafkaUser`, its KafkaUser when the
     release's own Kafka authenticates), and whose env template is
     "<name>.env" (templates/<component>/_env.tpl) rendered in that context. */}}
{{- define "coupon-event.component" -}}
{{- $root := .root -}}
{{- $spec := index (include "coupon-event.components" $root | fromYaml) .name -}}
{{- $values := index $root.Values $spec.valuesKey -}}
{{- if $values.enabled -}}
{{- /* The bundled Redis Cluster's shape rides along: the replicas a reservation can wait for. */ -}}
{{- $ctxValues := merge (dict "global" $root.Values.global "commonLabels" $root.Values.commonLabels "redis-cluster" (index $root.Values "redis-cluster")) $values -}}
{{- if ne $spec.kafka false -}}
{{- include "coupon-event.withKafkaUser" (dict "root" $root "values" $ctxValues "client" $spec.component) -}}
{{- end -}}
{{- $ctx := dict "Values" $ctxValues "Release" $root.Release "Chart" $root.Chart "Capabilities" $root.Capabilities "Template" $root.Template -}}
{{- $args := merge (dict "context" $ctx "name" .name "chart" $root.Chart.Name) (omit $spec "valuesKey" "page") -}}
{{- if and $spec.page $values.page -}}
{{- $_ := set $args "configMaps" (list (dict "name" "page" "configMap" (include "coupon-event.pageConfigName" $root) "mountPath" "/page")) -}}
{{- end -}}
{{- if eq .object "deployment" -}}
{{- $_ := set $args "env" (include (printf "%s.env" .name) $ctx) -}}
{{- end -}}
{{- if eq .object "hpa" -}}
{{- $_ := set $args "valuesKey" $spec.valuesKey -}}
{{- end -}}
{{- include (printf "coupon-lib.%s" .object) $args -}}
{{- end -}}
{{- end -}}

{{/* Sets `kafkaUser` in a helper context's .Values (the dict passed as "values") to the KafkaUser of
     "client" (api, consumer, keda) when the release's own Kafka authenticates
     (templates/kafka-users.yaml); coupon-lib.kafkaSecurityEnv then logs in as that user. Renders
     nothing. Used by the components and by the Jobs that talk to Kafka as one of them. */}}
{{- define "coupon-event.withKafkaUser" -}}
{{- if include "coupon-event.strimziAuth" .root -}}
{{- $_ := set .values "kafkaUser" (include "coupon-event.kafkaUserName" (dict "root" .root "client" .client)) -}}
{{- end -}}
{{- end -}}

{{- define "coupon-event.pageConfigName" -}}
{{- printf "%s-page" (include "coupon-lib.prefix" .) -}}
{{- end -}}
