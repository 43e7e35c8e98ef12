# The event on a real Kubernetes node (k8s/node/README.md): a single-node cluster on this machine in
# a network namespace of its own, with its registry, KEDA, the k6-operator and metrics-server running,
# NetworkPolicies enforced by kube-router's firewall (NETWORK_POLICIES=0: stored only), the other
# operators' CRDs, the local harness as the event's external data stores, and the event's images
# built here and pulled from that registry.
.PHONY: cluster-up cluster-down cluster-status test-cluster

cluster-up: ## single-node Kubernetes here (kubelet on containerd, registry, CoreDNS, kube-router's firewall, KEDA, k6-operator, metrics-server) + data stores + images
	k8s/node/cluster.sh up
	@echo "cluster up: k8s/node/node.sh exec helm install my-event \$$(tests/chart/offline-chart.sh) -n my-event --create-namespace -f tests/cluster/values.yaml"

cluster-down: ## stop the single-node cluster and its data stores, remove their state
	k8s/node/cluster.sh down

cluster-status: ## the node's processes and nodes
	k8s/node/node.sh status

test-cluster: ## the chart on the real node: install, helm test, HPAs on CPU, NetworkPolicies enforced, KEDA scaling on lag, a TestRun through the k6-operator, upgrade, uninstall
	tests/cluster/run.sh
