{{/* Kafka wiring and the partition rule (umbrella values). The database, Redis and JWT wiring the
     components need too is in templates/lib/_wiring.tpl. */}}

{{/* ---- Kafka (umbrella values) ---- */}}
{{- define "coupon-event.kafkaClusterName" -}}
{{- printf "%s-kafka" (include "coupon-lib.prefix" .) -}}
{{- end -}}

{{- define "coupon-event.kafkaBootstrap" -}}
{{- if .Values.kafka.external.bootstrapServers -}}
{{- .Values.kafka.external.bootstrapServers -}}
{{- else -}}
{{- printf "%s-kafka-bootstrap.%s.svc:9092" (include "coupon-event.kafkaClusterName" .) .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{/* KEDA needs a TriggerAuthentication for the external Kafka (SASL credentials or a private CA)
     and for the release's own Kafka with authentication (its KafkaUser's password). */}}
{{- define "coupon-event.kafkaTriggerAuth" -}}
{{- $ek := .Values.global.externalKafka -}}
{{- if or $ek.sasl.mechanism (and $ek.tls.enabled $ek.tls.caSecret) (include "coupon-event.strimziAuth" .) -}}true{{- end -}}
{{- end -}}

{{- define "coupon-event.strimziEnabled" -}}
{{- if not .Values.kafka.external.bootstrapServers -}}true{{- end -}}
{{- end -}}

{{/* The release's own Kafka runs dedicated controllers (pools controller and broker), not one pool
     dual-role. No controllers key at all: values of a chart before it, reused by helm upgrade
     --reuse-values, whose release runs dual-role. */}}
{{- define "coupon-event.kafkaDedicatedControllers" -}}
{{- with .Values.kafka.strimzi.controllers -}}{{- if .dedicated -}}true{{- end -}}{{- end -}}
{{- end -}}

{{/* The release's own Kafka authenticates its clients (SCRAM-SHA-512, KafkaUsers with ACLs). */}}
{{- define "coupon-event.strimziAuth" -}}
{{- if and (include "coupon-event.strimziEnabled" .) .Values.kafka.strimzi.authentication.enabled -}}true{{- end -}}
{{- end -}}

{{/* A client's KafkaUser, which is also its SCRAM user name and the name of the Secret the user
     operator writes its password and sasl.jaas.config to: (dict "root" $ "client" "api"). */}}
{{- define "coupon-event.kafkaUserName" -}}
{{- printf "%s-kafka-%s" (include "coupon-lib.prefix" .root) .client -}}
{{- end -}}

{{/* Listener threads at full scale: one partition each, so no thread idles and every added pod
     gets work. Topic partitions may exceed this, never fall short. 0 without the consumer in the
     release. */}}
{{- define "coupon-event.requiredPartitions" -}}
{{- $c := .Values.couponConsumer -}}
{{- if $c.enabled -}}
{{- $max := ternary ($c.autoscaling.maxReplicas | int) ($c.replicaCount | int) $c.autoscaling.enabled -}}
{{- mul $max ($c.concurrency | int) -}}
{{- else -}}
0
{{- end -}}
{{- end -}}

{{- define "coupon-event.partitions" -}}
{{- $required := include "coupon-event.requiredPartitions" . | int -}}
{{- $set := .Values.kafka.topic.partitions | int -}}
{{- $live := include "coupon-event.livePartitions" . | int -}}
{{- if and (eq $set 0) (eq $required 0) -}}
{{- fail "couponConsumer.enabled=false: set kafka.topic.partitions (it is derived from the consumer's scaling, which is not in the release)" -}}
{{- else if eq $set 0 -}}
{{- max $required $live -}}
{{- else if lt $set $required -}}
{{- fail (printf "kafka.topic.partitions=%d is below couponConsumer max replicas x concurrency = %d: listener threads would idle and KEDA would scale past the partitions. Raise the partitions or lower couponConsumer.autoscaling.maxReplicas / couponConsumer.concurrency." $set $required) -}}
{{- else if lt $set $live -}}
{{- fail (printf "kafka.topic.partitions=%d is below the %d partitions the KafkaTopic %s already has: Kafka cannot remove partitions (Strimzi would mark the topic NotReady). Set at least %d, or 0 to keep what exists." $set $live .Values.kafka.topic.name $live $live) -}}
{{- else -}}
{{- $set -}}
{{- end -}}
{{- end -}}

{{/* Partitions of the issuance KafkaTopic in the cluster (0 when there is none, or under helm
     template / a client-side dry run, where lookup returns nothing). A derived count never drops
     below it: lowering the consumer's scaling on upgrade must not shrink the topic. */}}
{{- define "coupon-event.livePartitions" -}}
{{- if include "coupon-event.strimziEnabled" . -}}
{{- $topic := lookup "kafka.strimzi.io/v1" "KafkaTopic" .Release.Namespace .Values.kafka.topic.name -}}
{{- dig "spec" "partitions" 0 ($topic | default dict) -}}
{{- else -}}
0
{{- end -}}
{{- end -}}
