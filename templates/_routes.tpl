{{/* The paths users reach from the internet, one list for the Ingress and the HTTPRoute alike:
     the issuance API's public paths, and with the waiting room its API and its page (every other
     path, so the page's files need no list). The admin paths of the API are never routed; the
     room's admin API sits under its page's prefix and answers only an admin token. */}}
{{- define "coupon-event.routes" -}}
- path: /api/v1/coupons
  service: {{ include "coupon-event.apiServiceName" . }}
  port: {{ .Values.couponApi.service.port | int }}
{{- if .Values.couponWaitingRoom.enabled }}
- path: /api/v1/waiting-room
  service: {{ include "coupon-event.waitingRoomName" . }}
  port: {{ .Values.couponWaitingRoom.service.port | int }}
- path: /
  service: {{ include "coupon-event.waitingRoomName" . }}
  port: {{ .Values.couponWaitingRoom.service.port | int }}
{{- end }}
{{- end -}}
