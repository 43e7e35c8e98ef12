{{/* Object names. Every name of a release starts with the release name, so that templates refer
     to each other's objects by computing their names. */}}

{{/* <release>-<name>, the release name cut so that the whole is a valid object name (63 characters).
     Pass (dict "context" $ "name" "coupon-api"). */}}
{{- define "coupon-lib.fullname" -}}
{{- $room := sub 62 (len .name) | int -}}
{{- printf "%s-%s" (.context.Release.Name | trunc $room | trimSuffix "-") .name -}}
{{- end -}}

{{/* Prefix of the other objects (<prefix>-<what>); 40 characters leave room for Strimzi's suffixes. */}}
{{- define "coupon-lib.prefix" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Name of the ConfigMap with the Kafka wiring (envFrom) and of the one with event.yaml. */}}
{{- define "coupon-lib.kafkaConfigName" -}}
{{- printf "%s-kafka-env" (include "coupon-lib.prefix" .) -}}
{{- end -}}
{{- define "coupon-lib.eventConfigName" -}}
{{- printf "%s-event" (include "coupon-lib.prefix" .) -}}
{{- end -}}
