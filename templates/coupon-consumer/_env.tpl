{{- define "coupon-consumer.env" -}}
- {name: COUPON_CONSUMER_CONCURRENCY, value: {{ .Values.concurrency | quote }}}
- {name: COUPON_CONSUMER_MAX_INSERTS_PER_SECOND, value: {{ .Values.maxInsertsPerSecond | quote }}}
- {name: SPRING_KAFKA_CONSUMER_MAX_POLL_RECORDS, value: {{ .Values.maxPollRecords | quote }}}
{{- end -}}
