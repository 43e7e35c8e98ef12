{{/* What every pod of a release shares: images, pull secrets and the hardened security contexts. */}}

{{/* <registry>/<repository>:<tag>; global.imageRegistry (a mirror) wins over the image's own registry.
     Pass (dict "image" <image values> "context" $ "tag" <tag when image.tag is empty>). */}}
{{- define "coupon-lib.image" -}}
{{- $registry := dig "imageRegistry" "" (.context.Values.global | default dict) | default .image.registry -}}
{{- $tag := .image.tag | default .tag | toString -}}
{{- if $registry -}}{{ printf "%s/%s:%s" $registry .image.repository $tag }}{{- else -}}{{ printf "%s:%s" .image.repository $tag }}{{- end -}}
{{- end -}}

{{- define "coupon-lib.imagePullSecrets" -}}
{{- with dig "imagePullSecrets" list (.Values.global | default dict) }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "coupon-lib.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "coupon-lib.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The container's command: java with the chart's JVM flags, then the classpath and main class
     jib writes into every image it builds (/app/jib-classpath-file, /app/jib-main-class-file; jib
     FAQ, custom entrypoint). The image's own entrypoint carries jib's jvmFlags on the command line,
     where neither JAVA_TOOL_OPTIONS nor JDK_JAVA_OPTIONS can override them (both are read before
     it), so the chart replaces that entrypoint. Pass the flags (a list). */}}
{{- define "coupon-lib.javaCommand" -}}
command:
  - java
  {{- range . }}
  - {{ . | quote }}
  {{- end }}
  - "-cp"
  - "@/app/jib-classpath-file"
  - "@/app/jib-main-class-file"
{{- end -}}
