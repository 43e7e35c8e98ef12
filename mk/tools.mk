.PHONY: tools
tools: ## install every pinned tool into .tools/ (apt packages, helm, helm-unittest, k6, etcd, kube-apiserver)
	scripts/tools.sh all
