{{/* Building blocks of networkpolicies.yaml. */}}
{{- define "coupon-event.np.pods" -}}
podSelector:
  matchLabels:
    app.kubernetes.io/instance: {{ .root.Release.Name }}
    app.kubernetes.io/component: {{ .component }}
{{- end -}}
{{- define "coupon-event.np.dns" -}}
- to:
    - namespaceSelector:
        {{- toYaml .Values.networkPolicy.dns.namespaceSelector | nindent 8 }}
      podSelector:
        {{- toYaml .Values.networkPolicy.dns.podSelector | nindent 8 }}
  ports:
    - {protocol: UDP, port: 53}
    - {protocol: TCP, port: 53}
{{- end -}}
{{/* Egress rules to the state stores: bundled ones by their pods, external ones by networkPolicy.externalEgress. */}}
{{- define "coupon-event.np.mysql" -}}
- to:
    {{- if (index .Values "mysql").enabled }}
    - podSelector:
        matchLabels:
          app.kubernetes.io/instance: {{ .Release.Name }}
          app.kubernetes.io/name: mysql
    {{- else }}
    {{- toYaml .Values.networkPolicy.externalEgress | nindent 4 }}
    {{- end }}
  ports:
    {{- if (index .Values "mysql").enabled }}
    - {protocol: TCP, port: 3306}
    {{- else }}
    {{- $port := regexFind "//[^/?]+:[0-9]+" .Values.global.externalDatabase.url | splitList ":" | last | default "3306" }}
    - {protocol: TCP, port: {{ $port | int }}}
    {{- end }}
{{- end -}}
{{- define "coupon-event.np.redis" -}}
- to:
    {{- if (index .Values "redis-cluster").enabled }}
    - podSelector:
        matchLabels:
          app.kubernetes.io/instance: {{ .Release.Name }}
          app.kubernetes.io/name: redis-cluster
    {{- else }}
    {{- toYaml .Values.networkPolicy.externalEgress | nindent 4 }}
    {{- end }}
  ports:
    {{- if (index .Values "redis-cluster").enabled }}
    - {protocol: TCP, port: 6379}
    {{- else }}
    {{- $ports := list }}
    {{- range .Values.global.externalRedis.nodes }}
    {{- $ports = append $ports (splitList ":" (trim .) | last | int) }}
    {{- end }}
    {{- range $ports | default (list 6379) | uniq }}
    - {protocol: TCP, port: {{ . }}}
    {{- end }}
    {{- end }}
{{- end -}}
{{/* An external Kafka's ports are those of its bootstrap servers (TLS and SASL listeners rarely
     use 9092: MSK 9094/9096); the brokers are assumed to advertise the same ports. */}}
{{- define "coupon-event.np.kafka" -}}
- to:
    {{- if include "coupon-event.strimziEnabled" . }}
    - podSelector:
        matchLabels:
          strimzi.io/cluster: {{ include "coupon-event.kafkaClusterName" . }}
          strimzi.io/kind: Kafka
    {{- else }}
    {{- toYaml .Values.networkPolicy.externalEgress | nindent 4 }}
    {{- end }}
  ports:
    {{- $ports := list 9092 }}
    {{- if not (include "coupon-event.strimziEnabled" .) }}
    {{- $ports = list }}
    {{- range splitList "," .Values.kafka.external.bootstrapServers }}
    {{- $ports = append $ports (splitList ":" (trim .) | last | int) }}
    {{- end }}
    {{- end }}
    {{- range $ports | uniq }}
    - {protocol: TCP, port: {{ . }}}
    {{- end }}
{{- end -}}
