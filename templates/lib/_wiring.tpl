{{/* Wiring between the parts of an event: database, Redis and JWT endpoints and credentials. They read
     only .Release and .Values.global, so the chart's own templates and a component context alike
     can call them. */}}

{{/* ---- MySQL (global.externalDatabase; the bundled Bitnami mysql when no url) ---- */}}
{{- define "coupon-lib.databaseBundled" -}}
{{- if not (dig "externalDatabase" "url" "" (.Values.global | default dict)) -}}true{{- end -}}
{{- end -}}

{{- define "coupon-lib.databaseUrl" -}}
{{- if include "coupon-lib.databaseBundled" . -}}
{{- printf "jdbc:mysql://%s-mysql:3306/coupon" .Release.Name -}}
{{- else -}}
{{- .Values.global.externalDatabase.url -}}
{{- end -}}
{{- end -}}

{{- define "coupon-lib.databaseUsername" -}}
{{- if include "coupon-lib.databaseBundled" . -}}coupon{{- else -}}{{ .Values.global.externalDatabase.username }}{{- end -}}
{{- end -}}

{{/* "name key" of the Secret holding the database password. */}}
{{- define "coupon-lib.databaseSecret" -}}
{{- if include "coupon-lib.databaseBundled" . -}}
{{- printf "%s-mysql mysql-password" .Release.Name -}}
{{- else if .Values.global.externalDatabase.existingSecret -}}
{{- printf "%s %s" .Values.global.externalDatabase.existingSecret .Values.global.externalDatabase.existingSecretPasswordKey -}}
{{- else -}}
{{- printf "%s-credentials database-password" (include "coupon-lib.prefix" .) -}}
{{- end -}}
{{- end -}}

{{/* ---- Redis (global.externalRedis; the bundled Bitnami redis-cluster when no nodes) ---- */}}
{{- define "coupon-lib.redisBundled" -}}
{{- if not (dig "externalRedis" "nodes" list (.Values.global | default dict)) -}}true{{- end -}}
{{- end -}}

{{- define "coupon-lib.redisNodes" -}}
{{- if include "coupon-lib.redisBundled" . -}}
{{- printf "%s-redis-cluster:6379" .Release.Name -}}
{{- else -}}
{{- join "," .Values.global.externalRedis.nodes -}}
{{- end -}}
{{- end -}}

{{/* "name key", or empty when Redis has no password. */}}
{{- define "coupon-lib.redisSecret" -}}
{{- if include "coupon-lib.redisBundled" . -}}
{{- printf "%s-redis-cluster redis-password" .Release.Name -}}
{{- else if .Values.global.externalRedis.existingSecret -}}
{{- printf "%s %s" .Values.global.externalRedis.existingSecret .Values.global.externalRedis.existingSecretPasswordKey -}}
{{- else if .Values.global.externalRedis.password -}}
{{- printf "%s-credentials redis-password" (include "coupon-lib.prefix" .) -}}
{{- end -}}
{{- end -}}

{{/* ---- JWT ---- */}}
{{/* "name key", or empty when tokens are checked against a JWK set. */}}
{{- define "coupon-lib.jwtSecret" -}}
{{- $j := dig "jwt" dict (.Values.global | default dict) -}}
{{- if $j.existingSecret -}}
{{- printf "%s %s" $j.existingSecret $j.existingSecretKey -}}
{{- else if not $j.jwkSetUri -}}
{{- printf "%s-jwt jwt-secret" (include "coupon-lib.prefix" .) -}}
{{- end -}}
{{- end -}}

{{/* ---- Kafka security (global.externalKafka: the brokers of kafka.external) ---- */}}
{{/* security.protocol from TLS and SASL; empty for a plain listener. */}}
{{- define "coupon-lib.kafkaSecurityProtocol" -}}
{{- $k := dig "externalKafka" dict (.Values.global | default dict) -}}
{{- $tls := dig "tls" "enabled" false $k -}}
{{- $sasl := dig "sasl" "mechanism" "" $k -}}
{{- if or $tls $sasl -}}
{{- printf "%s%s" (ternary "SASL_" "" (ne $sasl "")) (ternary "SSL" "PLAINTEXT" $tls) -}}
{{- end -}}
{{- end -}}

{{/* Spring Kafka's client settings for it: the protocol, the SASL login built from a Secret's user
     and password (Kubernetes expands $(VAR) of the variables defined before it), and the CA. With
     .Values.kafkaUser (the release's own Strimzi Kafka authenticates), SCRAM-SHA-512 as that
     KafkaUser: the login is the sasl.jaas.config Strimzi's user operator writes to its Secret. */}}
{{- define "coupon-lib.kafkaSecurityEnv" -}}
{{- if .Values.kafkaUser }}
- {name: SPRING_KAFKA_SECURITY_PROTOCOL, value: SASL_PLAINTEXT}
- {name: SPRING_KAFKA_PROPERTIES_SASL_MECHANISM, value: SCRAM-SHA-512}
{{ include "coupon-lib.secretKeyRef" (dict "name" "SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG" "ref" (printf "%s sasl.jaas.config" .Values.kafkaUser)) }}
{{- else }}
{{- $k := dig "externalKafka" dict (.Values.global | default dict) -}}
{{- with include "coupon-lib.kafkaSecurityProtocol" . }}
- {name: SPRING_KAFKA_SECURITY_PROTOCOL, value: {{ . | quote }}}
{{- end }}
{{- with dig "sasl" "mechanism" "" $k }}
{{ include "coupon-lib.secretKeyRef" (dict "name" "KAFKA_SASL_USERNAME" "ref" (printf "%s %s" $k.sasl.existingSecret $k.sasl.usernameKey)) }}
{{ include "coupon-lib.secretKeyRef" (dict "name" "KAFKA_SASL_PASSWORD" "ref" (printf "%s %s" $k.sasl.existingSecret $k.sasl.passwordKey)) }}
- {name: SPRING_KAFKA_PROPERTIES_SASL_MECHANISM, value: {{ . | quote }}}
- name: SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG
  value: {{ printf "%s required username=\"$(KAFKA_SASL_USERNAME)\" password=\"$(KAFKA_SASL_PASSWORD)\";" (eq . "PLAIN" | ternary "org.apache.kafka.common.security.plain.PlainLoginModule" "org.apache.kafka.common.security.scram.ScramLoginModule") | quote }}
{{- end }}
{{- if dig "tls" "enabled" false $k }}
{{- include "coupon-lib.trustBundleEnv" (dict "bundle" "kafka" "property" "SPRING_KAFKA_SSL_BUNDLE" "tls" $k.tls) }}
{{- end }}
{{- end }}
{{- end -}}

{{/* A CA from a Secret as a Spring Boot PEM SSL bundle (the certificate's content, no file), and the
     client property that uses it: pass (dict "bundle" <name> "property" <variable> "tls" <tls values>). */}}
{{- define "coupon-lib.trustBundleEnv" -}}
{{- with .tls.caSecret }}
- {name: {{ $.property }}, value: {{ $.bundle }}}
{{ include "coupon-lib.secretKeyRef" (dict "name" (printf "SPRING_SSL_BUNDLE_PEM_%s_TRUSTSTORE_CERTIFICATE" (upper $.bundle)) "ref" (printf "%s %s" . $.tls.caSecretKey)) }}
{{- end }}
{{- end -}}

{{/* ---- Entry tokens (the waiting room signs them, the API checks them) ---- */}}
{{/* "name key" of the HMAC key: global.entry.existingSecret, or the umbrella's <prefix>-entry. */}}
{{- define "coupon-lib.entrySecret" -}}
{{- $e := dig "entry" dict (.Values.global | default dict) -}}
{{- if $e.existingSecret -}}
{{- printf "%s %s" $e.existingSecret ($e.existingSecretKey | default "entry-secret") -}}
{{- else -}}
{{- printf "%s-entry entry-secret" (include "coupon-lib.prefix" .) -}}
{{- end -}}
{{- end -}}

{{/* ---- env ---- */}}
{{/* One variable from a Secret: pass (dict "name" <variable> "ref" "<secret> <key>"). */}}
{{- define "coupon-lib.secretKeyRef" -}}
{{- $ref := splitList " " .ref -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ index $ref 0 }}
      key: {{ index $ref 1 }}
{{- end -}}

{{/* The event's Redis (bundled or global.externalRedis) as <prefix>_<nodes>, <prefix>_PASSWORD and,
     over TLS, <prefix>_SSL_ENABLED with the PEM bundle <bundle>: pass (dict "context" $ "prefix"
     "SPRING_DATA_REDIS" "nodes" "CLUSTER_NODES" "bundle" "redis"). */}}
{{- define "coupon-lib.redisEnv" -}}
{{- $ctx := .context }}
- name: {{ .prefix }}_{{ .nodes }}
  value: {{ include "coupon-lib.redisNodes" $ctx | quote }}
{{- with include "coupon-lib.redisSecret" $ctx }}
{{ include "coupon-lib.secretKeyRef" (dict "name" (printf "%s_PASSWORD" $.prefix) "ref" .) }}
{{- end }}
{{- $tls := dig "externalRedis" "tls" dict ($ctx.Values.global | default dict) }}
{{- if and (not (include "coupon-lib.redisBundled" $ctx)) $tls.enabled }}
- {name: {{ .prefix }}_SSL_ENABLED, value: "true"}
{{- include "coupon-lib.trustBundleEnv" (dict "bundle" .bundle "property" (printf "%s_SSL_BUNDLE" .prefix) "tls" $tls) }}
{{- end }}
{{- end -}}

{{/* The event's settings for the issuance Redis: the prefix of every key it writes there (the
     release name on an external Redis, which events may share; none on the release's own), and the
     replicas a reservation waits for: global.externalRedis.replicaAcks, and on the bundled Redis
     Cluster no more than its replicas per master (redis-cluster.cluster.replicas 0, as the dev
     example runs, would otherwise answer every issuance 503). */}}
{{- define "coupon-lib.issuanceRedisEnv" -}}
{{- $bundled := include "coupon-lib.redisBundled" . }}
{{- if and (not $bundled) (dig "externalRedis" "prefixKeys" true (.Values.global | default dict)) }}
- name: COUPON_REDIS_KEYPREFIX
  value: {{ printf "%s:" .Release.Name | quote }}
{{- end }}
{{- $acks := int (dig "externalRedis" "replicaAcks" 1 (.Values.global | default dict)) }}
{{- if $bundled }}
{{- $acks = min $acks (int (dig "cluster" "replicas" 1 (index .Values "redis-cluster" | default dict))) }}
{{- end }}
{{- if ne $acks 1 }}
- name: COUPON_ISSUANCE_REPLICAACKS
  value: {{ $acks | quote }}
{{- end }}
{{- end -}}

{{/* Environment of every coupon container (services and hooks): pass (dict "context" $ "redis" bool "jwt" bool),
     and "database" false for a service without MySQL. */}}
{{- define "coupon-lib.env" -}}
{{- $ctx := .context -}}
{{- if ternary .database true (hasKey . "database") -}}
- name: SPRING_DATASOURCE_URL
  value: {{ include "coupon-lib.databaseUrl" $ctx | quote }}
- name: SPRING_DATASOURCE_USERNAME
  value: {{ include "coupon-lib.databaseUsername" $ctx | quote }}
{{ include "coupon-lib.secretKeyRef" (dict "name" "SPRING_DATASOURCE_PASSWORD" "ref" (include "coupon-lib.databaseSecret" $ctx)) }}
{{- end }}
{{- if .redis }}
{{- include "coupon-lib.redisEnv" (dict "context" $ctx "prefix" "SPRING_DATA_REDIS" "nodes" "CLUSTER_NODES" "bundle" "redis") }}
{{- include "coupon-lib.issuanceRedisEnv" $ctx }}
{{- end }}
{{- if .jwt }}
{{- with include "coupon-lib.jwtSecret" $ctx }}
{{ include "coupon-lib.secretKeyRef" (dict "name" "COUPON_SECURITY_JWT_SECRET" "ref" .) }}
{{- end }}
{{- with dig "jwt" "jwkSetUri" "" ($ctx.Values.global | default dict) }}
- name: COUPON_SECURITY_JWT_JWK_SET_URI
  value: {{ . | quote }}
{{- end }}
{{- with dig "jwt" "issuer" "" ($ctx.Values.global | default dict) }}
- name: COUPON_SECURITY_JWT_ISSUER
  value: {{ . | quote }}
{{- end }}
{{- with dig "jwt" "audience" "" ($ctx.Values.global | default dict) }}
- name: COUPON_SECURITY_JWT_AUDIENCE
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end -}}
