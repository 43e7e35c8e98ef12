# The service images the way a platform team publishes them (docs/kubernetes.md, step 0): built by
# Jib and pushed to a registry, tagged with the chart's appVersion.
.PHONY: images

images: ## build the three service images with Jib and push them to REGISTRY (make images REGISTRY=<registry>)
	REGISTRY="$(REGISTRY)" JIB_FROM="$(JIB_FROM)" JIB_CRED_HELPER="$(JIB_CRED_HELPER)" INSECURE="$(INSECURE)" \
	  MAVEN_ARGS="$(MAVEN_ARGS)" scripts/images.sh
