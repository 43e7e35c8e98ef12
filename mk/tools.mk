.PHONY: tools
tools: ## install every pinned tool into .tools/ (apt packages, Kafka jars, helm, helm-unittest, k6, etcd, kube-apiserver, kubectl)
	scripts/tools.sh all
