{{- define "coupon-api.env" -}}
# Coupon registration is the hook Job's work too; the pods read the event's coupons.
- {name: COUPON_CATALOG_REGISTER_ON_START, value: "false"}
- {name: SPRING_CONFIG_IMPORT, value: "optional:file:/config/event.yaml"}
- {name: COUPON_ISSUANCE_SEND_TIMEOUT, value: {{ .Values.sendTimeout | quote }}}
- {name: COUPON_ISSUANCE_DELIVERY_TIMEOUT, value: {{ .Values.deliveryTimeout | quote }}}
- {name: COUPON_ISSUANCE_MAX_IN_FLIGHT, value: {{ .Values.maxInFlight | quote }}}
- {name: COUPON_ISSUANCE_ADMISSION_WAIT, value: {{ .Values.admissionWait | quote }}}
# The waiting room's entry tokens. Always wired: without a waiting room no gate key is ever set and
# the API admits everyone, and turning the waiting room on later needs no restart of the API.
{{ include "coupon-lib.secretKeyRef" (dict "name" "COUPON_ENTRY_SECRET" "ref" (include "coupon-lib.entrySecret" .)) }}
{{- end -}}
