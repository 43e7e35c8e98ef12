{{- define "coupon-waiting-room.env" -}}
{{- $v := .Values -}}
{{- $g := .Values.global | default dict -}}
# The queue's Redis Cluster: its own (redis.nodes) or the event's.
{{- if $v.redis.nodes }}
- {name: SPRING_DATA_REDIS_CLUSTER_NODES, value: {{ join "," $v.redis.nodes | quote }}}
{{- with $v.redis.existingSecret }}
{{ include "coupon-lib.secretKeyRef" (dict "name" "SPRING_DATA_REDIS_PASSWORD" "ref" (printf "%s %s" . $v.redis.existingSecretPasswordKey)) }}
{{- end }}
{{- if $v.redis.tls.enabled }}
- {name: SPRING_DATA_REDIS_SSL_ENABLED, value: "true"}
{{- include "coupon-lib.trustBundleEnv" (dict "bundle" "redis" "property" "SPRING_DATA_REDIS_SSL_BUNDLE" "tls" $v.redis.tls) }}
{{- end }}
# The issuance Redis (the API's, the event's), where the waiting room sets a coupon's gate key.
{{- include "coupon-lib.redisEnv" (dict "context" . "prefix" "COUPON_WAITINGROOM_ISSUANCEREDIS" "nodes" "NODES" "bundle" "issuance") }}
{{- else }}
# The event's Redis holds the queue and the gate keys alike.
{{- include "coupon-lib.redisEnv" (dict "context" . "prefix" "SPRING_DATA_REDIS" "nodes" "CLUSTER_NODES" "bundle" "redis") }}
{{- end }}
{{- include "coupon-lib.issuanceRedisEnv" . }}
- {name: COUPON_WAITINGROOM_APIURL, value: {{ include "coupon-waiting-room.apiUrl" . | quote }}}
{{ include "coupon-lib.secretKeyRef" (dict "name" "COUPON_ENTRY_SECRET" "ref" (include "coupon-lib.entrySecret" .)) }}
- {name: COUPON_ENTRY_TTL, value: {{ $v.entryTtl | quote }}}
# Budgets, modes and zones as one JSON property source (zone names and coupon lists do not fit
# environment variable names).
- name: SPRING_APPLICATION_JSON
  value: {{ include "coupon-waiting-room.settings" . | quote }}
{{- end -}}

{{/* coupon.waiting-room.* (kebab-case keys, as the service binds them). */}}
{{- define "coupon-waiting-room.zoneSettings" -}}
{{- $out := dict -}}
{{- range $key, $value := . -}}
{{- $_ := set $out (kebabcase $key) $value -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{- define "coupon-waiting-room.settings" -}}
{{- $v := .Values -}}
{{- $zones := dict -}}
{{- range $name, $zone := $v.zones -}}
{{- $_ := set $zones $name (include "coupon-waiting-room.zoneSettings" $zone | fromJson) -}}
{{- end -}}
{{- $room := dict "defaults" (include "coupon-waiting-room.zoneSettings" $v.defaults | fromJson) "sweep-every" $v.sweepEvery "zones" $zones -}}
{{- toJson (dict "coupon" (dict "waiting-room" $room)) -}}
{{- end -}}

{{/* Base URL of the API (sold-out lookups): apiUrl, or the release's coupon-api Service. */}}
{{- define "coupon-waiting-room.apiUrl" -}}
{{- .Values.apiUrl | default (printf "http://%s:8080" (include "coupon-lib.fullname" (dict "context" . "name" "coupon-api"))) -}}
{{- end -}}
