# Platform: the chart on a real kube-apiserver (tests/apiserver/), the platform files against
# upstream schemas (tests/platform/), the operators release (operators/) and the cluster manifests
# (k8s/). The chart's test-chart target runs $(PLATFORM_CHART_TESTS) after its own lint and unit tests.
PLATFORM_CHART_TESTS := chart-apiserver platform-schemas

.PHONY: chart-apiserver platform-schemas apiserver-up apiserver-down operators-install

chart-apiserver: ## install/upgrade/uninstall the chart on a real etcd + kube-apiserver with the operators' CRDs (pytest)
	tests/apiserver/run.sh

platform-schemas: ## validate skaffold, eksctl, operator and Bitnami values against upstream schemas (pytest)
	scripts/tools.sh crds
	tests/pytest.sh tests/platform

apiserver-up: ## start the test control plane (etcd + kube-apiserver) on loopback; prints KUBECONFIG
	scripts/tools.sh etcd kube-apiserver kubectl
	tests/apiserver/apiserver.sh up
	tests/apiserver/apiserver.sh env

apiserver-down: ## stop the test control plane
	tests/apiserver/apiserver.sh down

operators-install: ## install or upgrade Strimzi, KEDA, k6-operator, kube-prometheus-stack in the current kube context
	operators/install.sh
