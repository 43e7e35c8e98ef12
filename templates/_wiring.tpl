{{/* Wiring between the parts of an event: endpoints, credentials and the partition rule. These
     templates read only .Release and .Values.global (plus umbrella values where noted), so both
     service subcharts include them too; they exist once, here. */}}

{{/* ---- Kafka (umbrella values) ---- */}}
{{- define "coupon-event.kafkaClusterName" -}}
{{- printf "%s-kafka" (include "coupon-event.prefix" .) -}}
{{- end -}}

{{- define "coupon-event.kafkaBootstrap" -}}
{{- if .Values.kafka.external.bootstrapServers -}}
{{- .Values.kafka.external.bootstrapServers -}}
{{- else -}}
{{- printf "%s-kafka-bootstrap:9092" (include "coupon-event.kafkaClusterName" .) -}}
{{- end -}}
{{- end -}}

{{- define "coupon-event.strimziEnabled" -}}
{{- if not .Values.kafka.external.bootstrapServers -}}true{{- end -}}
{{- end -}}

{{/* Listener threads at full scale: one partition each, so no thread idles and every added pod
     gets work. Topic partitions may exceed this, never fall short. */}}
{{- define "coupon-event.requiredPartitions" -}}
{{- $c := .Values.couponConsumer -}}
{{- $max := ternary ($c.autoscaling.maxReplicas | int) ($c.replicaCount | int) $c.autoscaling.enabled -}}
{{- mul $max ($c.concurrency | int) -}}
{{- end -}}

{{- define "coupon-event.partitions" -}}
{{- $required := include "coupon-event.requiredPartitions" . | int -}}
{{- $set := .Values.kafka.topic.partitions | int -}}
{{- if eq $set 0 -}}
{{- $required -}}
{{- else if lt $set $required -}}
{{- fail (printf "kafka.topic.partitions=%d is below couponConsumer max replicas x concurrency = %d: listener threads would idle and KEDA would scale past the partitions. Raise the partitions or lower couponConsumer.autoscaling.maxReplicas / couponConsumer.concurrency." $set $required) -}}
{{- else -}}
{{- $set -}}
{{- end -}}
{{- end -}}

{{/* ---- MySQL (global.externalDatabase; bundled Bitnami mysql when no url) ---- */}}
{{- define "coupon-event.databaseBundled" -}}
{{- if not .Values.global.externalDatabase.url -}}true{{- end -}}
{{- end -}}

{{- define "coupon-event.databaseUrl" -}}
{{- if include "coupon-event.databaseBundled" . -}}
{{- printf "jdbc:mysql://%s-mysql:3306/coupon" .Release.Name -}}
{{- else -}}
{{- .Values.global.externalDatabase.url -}}
{{- end -}}
{{- end -}}

{{- define "coupon-event.databaseUsername" -}}
{{- if include "coupon-event.databaseBundled" . -}}coupon{{- else -}}{{ .Values.global.externalDatabase.username }}{{- end -}}
{{- end -}}

{{/* "name key" of the Secret holding the database password. */}}
{{- define "coupon-event.databaseSecret" -}}
{{- $db := .Values.global.externalDatabase -}}
{{- if include "coupon-event.databaseBundled" . -}}
{{- printf "%s-mysql mysql-password" .Release.Name -}}
{{- else if $db.existingSecret -}}
{{- printf "%s %s" $db.existingSecret $db.existingSecretPasswordKey -}}
{{- else -}}
{{- printf "%s-credentials database-password" (include "coupon-event.prefix" .) -}}
{{- end -}}
{{- end -}}

{{/* ---- Redis (global.externalRedis; bundled Bitnami redis-cluster when no nodes) ---- */}}
{{- define "coupon-event.redisBundled" -}}
{{- if not .Values.global.externalRedis.nodes -}}true{{- end -}}
{{- end -}}

{{- define "coupon-event.redisNodes" -}}
{{- if include "coupon-event.redisBundled" . -}}
{{- printf "%s-redis-cluster:6379" .Release.Name -}}
{{- else -}}
{{- join "," .Values.global.externalRedis.nodes -}}
{{- end -}}
{{- end -}}

{{/* "name key", or empty when Redis has no password. */}}
{{- define "coupon-event.redisSecret" -}}
{{- $r := .Values.global.externalRedis -}}
{{- if include "coupon-event.redisBundled" . -}}
{{- printf "%s-redis-cluster redis-password" .Release.Name -}}
{{- else if $r.existingSecret -}}
{{- printf "%s %s" $r.existingSecret $r.existingSecretPasswordKey -}}
{{- else if $r.password -}}
{{- printf "%s-credentials redis-password" (include "coupon-event.prefix" .) -}}
{{- end -}}
{{- end -}}

{{/* ---- JWT ---- */}}
{{/* "name key", or empty when tokens are checked against a JWK set. */}}
{{- define "coupon-event.jwtSecret" -}}
{{- $j := .Values.global.jwt -}}
{{- if $j.existingSecret -}}
{{- printf "%s %s" $j.existingSecret $j.existingSecretKey -}}
{{- else if not $j.jwkSetUri -}}
{{- printf "%s-jwt jwt-secret" (include "coupon-event.prefix" .) -}}
{{- end -}}
{{- end -}}

{{/* ---- env ---- */}}
{{- define "coupon-event.secretKeyRef" -}}
{{- $ref := splitList " " .ref -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ index $ref 0 }}
      key: {{ index $ref 1 }}
{{- end -}}

{{/* Environment of every coupon container (services and hooks): pass (dict "root" $ "redis" bool "jwt" bool) */}}
{{- define "coupon-event.env" -}}
{{- $root := .root -}}
- name: SPRING_DATASOURCE_URL
  value: {{ include "coupon-event.databaseUrl" $root | quote }}
- name: SPRING_DATASOURCE_USERNAME
  value: {{ include "coupon-event.databaseUsername" $root | quote }}
{{ include "coupon-event.secretKeyRef" (dict "name" "SPRING_DATASOURCE_PASSWORD" "ref" (include "coupon-event.databaseSecret" $root)) }}
{{- if .redis }}
- name: SPRING_DATA_REDIS_CLUSTER_NODES
  value: {{ include "coupon-event.redisNodes" $root | quote }}
{{- with include "coupon-event.redisSecret" $root }}
{{ include "coupon-event.secretKeyRef" (dict "name" "SPRING_DATA_REDIS_PASSWORD" "ref" .) }}
{{- end }}
{{- end }}
{{- if .jwt }}
{{- with include "coupon-event.jwtSecret" $root }}
{{ include "coupon-event.secretKeyRef" (dict "name" "COUPON_SECURITY_JWT_SECRET" "ref" .) }}
{{- end }}
{{- with $root.Values.global.jwt.jwkSetUri }}
- name: COUPON_SECURITY_JWT_JWK_SET_URI
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Name of the ConfigMap with the Kafka wiring (envFrom) and of the one with event.yaml. */}}
{{- define "coupon-event.kafkaConfigName" -}}
{{- printf "%s-kafka-env" (include "coupon-event.prefix" .) -}}
{{- end -}}
{{- define "coupon-event.eventConfigName" -}}
{{- printf "%s-event" (include "coupon-event.prefix" .) -}}
{{- end -}}
