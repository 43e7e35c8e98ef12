"""What a coupon-event release must look like, checked on Kubernetes objects (dicts) — the rendered
manifest or the objects read back from the API server. Each check returns a list of problems."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

POOL_LABEL = "coupon-event.io/pool"
TAINTED_POOLS = {"kafka", "loadgen"}
WORKLOAD_KINDS = {"Deployment", "StatefulSet", "DaemonSet"}
POD_OWNER_KINDS = WORKLOAD_KINDS | {"Job", "CronJob"}
DEFAULT_CONCURRENCY = (
    1  # docs/contract.md: COUPON_CONSUMER_CONCURRENCY default (the service's, when the chart sets none)
)


def name_of(obj: dict) -> str:
    return f"{obj['kind']}/{obj['metadata']['name']}"


def of_kind(objs: list[dict], *kinds: str) -> list[dict]:
    return [o for o in objs if o.get("kind") in kinds]


def pod_spec(obj: dict) -> dict | None:
    kind = obj.get("kind")
    if kind == "CronJob":
        return obj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    if kind in WORKLOAD_KINDS | {"Job"}:
        return obj["spec"]["template"]["spec"]
    if kind == "Pod":
        return obj["spec"]
    return None


def pod_labels(obj: dict) -> dict:
    if obj["kind"] == "CronJob":
        return obj["spec"]["jobTemplate"]["spec"]["template"]["metadata"].get("labels", {})
    return obj["spec"]["template"]["metadata"].get("labels", {})


def containers(spec: dict) -> list[dict]:
    return list(spec.get("initContainers", [])) + list(spec.get("containers", []))


def selector_matches(selector: dict, labels: dict) -> bool:
    """A LabelSelector (matchLabels + matchExpressions) against a label map."""
    if not selector:
        return False
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e["key"], e["operator"], e.get("values", [])
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


# ------------------------------------------------------------------------------------ workloads


def check_resources(objs: list[dict]) -> list[str]:
    problems = []
    for o in objs:
        spec = pod_spec(o)
        if spec is None:
            continue
        for c in containers(spec):
            r = c.get("resources") or {}
            req, lim = r.get("requests") or {}, r.get("limits") or {}
            if "cpu" not in req or "memory" not in req:
                problems.append(f"{name_of(o)} container {c['name']}: no cpu/memory requests")
            if "memory" not in lim:
                problems.append(f"{name_of(o)} container {c['name']}: no memory limit")
    return problems


def check_probes(objs: list[dict]) -> list[str]:
    problems = []
    for o in of_kind(objs, *WORKLOAD_KINDS):
        for c in pod_spec(o).get("containers", []):
            for probe in ("livenessProbe", "readinessProbe"):
                if not c.get(probe):
                    problems.append(f"{name_of(o)} container {c['name']}: no {probe}")
    return problems


def check_non_root(objs: list[dict]) -> list[str]:
    problems = []
    for o in objs:
        spec = pod_spec(o)
        if spec is None:
            continue
        pod_sc = spec.get("securityContext") or {}
        for c in containers(spec):
            sc = c.get("securityContext") or {}
            non_root = sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot"))
            user = sc.get("runAsUser", pod_sc.get("runAsUser"))
            if not (non_root is True or (user is not None and user != 0)) or user == 0:
                problems.append(f"{name_of(o)} container {c['name']}: may run as root")
            if sc.get("privileged") or sc.get("allowPrivilegeEscalation", True) is not False:
                problems.append(f"{name_of(o)} container {c['name']}: privilege escalation allowed")
    return problems


def check_pdbs(objs: list[dict]) -> list[str]:
    pdbs = of_kind(objs, "PodDisruptionBudget")
    problems = []
    for o in of_kind(objs, "Deployment", "StatefulSet"):
        labels = pod_labels(o)
        if not any(selector_matches(p["spec"].get("selector"), labels) for p in pdbs):
            problems.append(f"{name_of(o)}: no PodDisruptionBudget selects its pods")
    return problems


# ------------------------------------------------------------------------------------ scaling


def consumer_deployment(objs: list[dict]) -> dict | None:
    for o in of_kind(objs, "Deployment"):
        labels = o["metadata"].get("labels", {})
        if labels.get("app.kubernetes.io/name") == "coupon-consumer" or o["metadata"]["name"].endswith(
            "coupon-consumer"
        ):
            return o
    return None


def env_value(deploy: dict, name: str) -> str | None:
    for c in deploy["spec"]["template"]["spec"]["containers"]:
        for e in c.get("env", []):
            if e["name"] == name and "value" in e:
                return e["value"]
    return None


def consumer_concurrency(deploy: dict, config_maps: list[dict]) -> int:
    value = env_value(deploy, "COUPON_CONSUMER_CONCURRENCY")
    if value is None:
        # envFrom ConfigMaps of the release
        names = {
            ef["configMapRef"]["name"]
            for c in deploy["spec"]["template"]["spec"]["containers"]
            for ef in c.get("envFrom", [])
            if "configMapRef" in ef
        }
        for cm in config_maps:
            if cm["metadata"]["name"] in names and "COUPON_CONSUMER_CONCURRENCY" in (cm.get("data") or {}):
                value = cm["data"]["COUPON_CONSUMER_CONCURRENCY"]
    return int(value) if value is not None else DEFAULT_CONCURRENCY


def scalers_of(objs: list[dict], deploy: dict) -> tuple[list[dict], list[dict]]:
    name = deploy["metadata"]["name"]
    scaled = [
        s
        for s in of_kind(objs, "ScaledObject")
        if s["spec"]["scaleTargetRef"]["name"] == name
        and s["spec"]["scaleTargetRef"].get("kind", "Deployment") == "Deployment"
    ]
    hpas = [
        h
        for h in of_kind(objs, "HorizontalPodAutoscaler")
        if h["spec"]["scaleTargetRef"]["name"] == name and h["spec"]["scaleTargetRef"]["kind"] == "Deployment"
    ]
    return scaled, hpas


def consumer_max_replicas(objs: list[dict], deploy: dict) -> int:
    scaled, hpas = scalers_of(objs, deploy)
    if scaled:
        return int(scaled[0]["spec"].get("maxReplicaCount", 100))  # KEDA's default is 100
    if hpas:
        return int(hpas[0]["spec"]["maxReplicas"])
    return int(deploy["spec"].get("replicas", 1))


def issuance_topics(objs: list[dict]) -> list[dict]:
    return [
        t for t in of_kind(objs, "KafkaTopic") if t["spec"].get("topicName", t["metadata"]["name"]) == "coupon-issuance"
    ]


def check_partitions(objs: list[dict]) -> list[str]:
    deploy = consumer_deployment(objs)
    if deploy is None:
        return ["no coupon-consumer Deployment"]
    need = consumer_max_replicas(objs, deploy) * consumer_concurrency(deploy, of_kind(objs, "ConfigMap"))
    return [
        f"{name_of(t)}: {t['spec']['partitions']} partitions < max replicas x concurrency = {need}"
        for t in issuance_topics(objs)
        if int(t["spec"]["partitions"]) < need
    ]


def check_min_isr(objs: list[dict]) -> list[str]:
    problems = []
    for t in of_kind(objs, "KafkaTopic"):
        rf = int(t["spec"]["replicas"])
        isr = int((t["spec"].get("config") or {}).get("min.insync.replicas", 1))
        if not isr < rf and rf > 1:
            problems.append(f"{name_of(t)}: min.insync.replicas {isr} not below replication factor {rf}")
        if rf == 1 and isr != 1:
            problems.append(f"{name_of(t)}: min.insync.replicas {isr} with a single replica")
    for k in of_kind(objs, "Kafka"):
        config = k["spec"]["kafka"].get("config") or {}
        if "default.replication.factor" in config and "min.insync.replicas" in config:
            rf, isr = int(config["default.replication.factor"]), int(config["min.insync.replicas"])
            if rf > 1 and not isr < rf:
                problems.append(f"{name_of(k)}: broker min.insync.replicas {isr} not below {rf}")
    return problems


def check_no_replicas_under_keda(rendered: list[dict]) -> list[str]:
    """On the rendered manifest: the API server fills in replicas=1 when the field is absent."""
    problems = []
    for s in of_kind(rendered, "ScaledObject"):
        ref = s["spec"]["scaleTargetRef"]
        for d in of_kind(rendered, "Deployment"):
            if d["metadata"]["name"] == ref["name"]:
                if "replicas" in d["spec"]:
                    problems.append(f"{name_of(d)} has spec.replicas while {name_of(s)} scales it")
                _, hpas = scalers_of(rendered, d)
                if hpas:
                    problems.append(f"{name_of(d)} is scaled by both {name_of(s)} and an HPA")
    return problems


def check_scale_targets_exist(objs: list[dict]) -> list[str]:
    deployments = {d["metadata"]["name"] for d in of_kind(objs, "Deployment")}
    return [
        f"{name_of(s)} targets missing Deployment {s['spec']['scaleTargetRef']['name']}"
        for s in of_kind(objs, "ScaledObject", "HorizontalPodAutoscaler")
        if s["spec"]["scaleTargetRef"]["name"] not in deployments
    ]


# ------------------------------------------------------------------------------------ references


def secret_and_configmap_refs(obj: dict) -> list[tuple[str, str, str | None, bool]]:
    """(kind, name, key or None, optional) for every Secret/ConfigMap a pod template uses."""
    spec = pod_spec(obj)
    refs = []
    if obj.get("kind") == "TestRun":
        # k6-operator: the script ConfigMap, and the runner's env and volumes (a flattened pod spec).
        cm = (obj["spec"].get("script") or {}).get("configMap")
        if cm:
            refs.append(("ConfigMap", cm["name"], cm.get("file"), False))
        runner = obj["spec"].get("runner") or {}
        spec = {
            "containers": [{"env": runner.get("env", []), "envFrom": runner.get("envFrom", [])}],
            "volumes": runner.get("volumes", []),
        }
    if obj.get("kind") == "TriggerAuthentication":
        # KEDA reads these Secrets for the scaler (credentials, CA).
        refs += [("Secret", r["name"], r["key"], False) for r in obj["spec"].get("secretTargetRef", [])]
    if spec is None:
        return refs
    for c in containers(spec):
        for e in c.get("env", []):
            src = e.get("valueFrom") or {}
            for field, kind in (("secretKeyRef", "Secret"), ("configMapKeyRef", "ConfigMap")):
                if field in src:
                    r = src[field]
                    refs.append((kind, r["name"], r["key"], bool(r.get("optional"))))
        for ef in c.get("envFrom", []):
            for field, kind in (("secretRef", "Secret"), ("configMapRef", "ConfigMap")):
                if field in ef:
                    refs.append((kind, ef[field]["name"], None, bool(ef[field].get("optional"))))
    for v in spec.get("volumes", []):
        if "secret" in v:
            refs += [
                ("Secret", v["secret"]["secretName"], i["key"], bool(v["secret"].get("optional")))
                for i in v["secret"].get("items", [])
            ] or [("Secret", v["secret"]["secretName"], None, bool(v["secret"].get("optional")))]
        if "configMap" in v:
            refs += [
                ("ConfigMap", v["configMap"]["name"], i["key"], bool(v["configMap"].get("optional")))
                for i in v["configMap"].get("items", [])
            ] or [("ConfigMap", v["configMap"]["name"], None, bool(v["configMap"].get("optional")))]
        for s in (v.get("projected") or {}).get("sources", []):
            for field, kind in (("secret", "Secret"), ("configMap", "ConfigMap")):
                if field in s:
                    refs += [
                        (kind, s[field]["name"], i["key"], bool(s[field].get("optional")))
                        for i in s[field].get("items", [])
                    ] or [(kind, s[field]["name"], None, bool(s[field].get("optional")))]
    for ps in spec.get("imagePullSecrets", []):
        refs.append(("Secret", ps["name"], None, False))
    return refs


def env_expansions(objs: list[dict]) -> list[tuple[str, str, str]]:
    """(object, variable, referenced name) for every $(NAME) in a container's env values."""
    found = []
    for o in objs:
        spec = pod_spec(o)
        for c in containers(spec) if spec else []:
            for e in c.get("env", []):
                for ref in re.findall(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", e.get("value", "")):
                    found.append((name_of(o), e["name"], ref))
    return found


def check_env_expansions(objs: list[dict]) -> list[str]:
    """Kubernetes expands $(NAME) only from variables defined before it in the same container's
    env; any other reference stays literal text (e.g. a SASL login with the password "$(X)")."""
    problems = []
    for o in objs:
        spec = pod_spec(o)
        for c in containers(spec) if spec else []:
            seen = set()
            for e in c.get("env", []):
                for ref in re.findall(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", e.get("value", "")):
                    if ref not in seen:
                        problems.append(f"{name_of(o)} {c['name']}: {e['name']} uses $({ref}), not defined before it")
                seen.add(e["name"])
    return problems


def operator_made_secrets(objs: list[dict]) -> set[str]:
    """Secrets that the operators create from the release's custom resources."""
    names = set()
    for k in of_kind(objs, "Kafka"):
        n = k["metadata"]["name"]
        names |= {f"{n}-cluster-ca-cert", f"{n}-clients-ca-cert"}
    names |= {u["metadata"]["name"] for u in of_kind(objs, "KafkaUser", "KafkaAccess")}
    return names


def check_refs_resolve(objs: list[dict], available: dict[tuple[str, str], dict]) -> list[str]:
    """available: (kind, name) -> live object in the release namespace (Secrets, ConfigMaps)."""
    problems = []
    external = operator_made_secrets(objs)
    for o in objs:
        for kind, name, key, optional in secret_and_configmap_refs(o):
            if optional or (kind == "Secret" and name in external):
                continue
            target = available.get((kind, name))
            if target is None:
                problems.append(f"{name_of(o)} uses {kind} {name}, which does not exist")
                continue
            if key is not None:
                keys = (
                    set(target.get("data") or {})
                    | set(target.get("stringData") or {})
                    | set(target.get("binaryData") or {})
                )
                if key not in keys:
                    problems.append(f"{name_of(o)} uses key {key} of {kind} {name}, which has only {sorted(keys)}")
    return problems


# ------------------------------------------------------------------------------------ placement


def cluster_pools(eksctl_config: Path) -> set[str]:
    cfg = yaml.safe_load(eksctl_config.read_text())
    return {g["labels"][POOL_LABEL] for g in cfg["managedNodeGroups"]}


def priority_classes(path: Path) -> set[str]:
    return {d["metadata"]["name"] for d in yaml.safe_load_all(path.read_text()) if d}


def tolerates(spec: dict, pool: str) -> bool:
    for t in spec.get("tolerations") or []:
        if t.get("operator") == "Exists" and not t.get("key"):
            return True
        if (
            t.get("key") == POOL_LABEL
            and (t.get("operator") == "Exists" or t.get("value") == pool)
            and t.get("effect") in (None, "", "NoSchedule")
        ):
            return True
    return False


def check_placement(objs: list[dict], pools: set[str], classes: set[str]) -> list[str]:
    """Pod templates and Strimzi/k6 pod templates only ask for pools and priority classes that exist,
    and tolerate the taint of the tainted pool they select."""
    problems = []
    specs = []
    for o in objs:
        spec = pod_spec(o)
        if spec is not None:
            specs.append((name_of(o), spec))
    for o in of_kind(objs, "TestRun"):
        for part in ("runner", "starter", "initializer"):
            if part in o["spec"]:
                specs.append((f"{name_of(o)} {part}", o["spec"][part]))
    for o in of_kind(objs, "KafkaNodePool", "Kafka"):
        tpl = (
            (o["spec"].get("template") or {}).get("pod")
            if o["kind"] == "KafkaNodePool"
            else ((o["spec"].get("entityOperator") or {}).get("template") or {}).get("pod")
        )
        if tpl:
            pod = dict(tpl)
            pod.setdefault("tolerations", tpl.get("tolerations"))
            specs.append((f"{name_of(o)} pod template", pod))
    for where, spec in specs:
        pool = (spec.get("nodeSelector") or {}).get(POOL_LABEL)
        for term in (
            ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
                "requiredDuringSchedulingIgnoredDuringExecution"
            )
            or {}
        ).get("nodeSelectorTerms", []):
            for e in term.get("matchExpressions", []):
                if e["key"] == POOL_LABEL and e["operator"] == "In" and len(e["values"]) == 1:
                    pool = pool or e["values"][0]
        if pool is not None:
            if pool not in pools:
                problems.append(f"{where}: node pool {pool!r} does not exist in k8s/eksctl-cluster.yaml")
            elif pool in TAINTED_POOLS and not tolerates(spec, pool):
                problems.append(f"{where}: selects the {pool} pool but does not tolerate its taint")
        pc = spec.get("priorityClassName")
        if pc and pc not in classes and not pc.startswith("system-"):
            problems.append(f"{where}: PriorityClass {pc!r} is not in k8s/priorityclasses.yaml")
    return problems


# ------------------------------------------------------------------------------------ monitors


def check_monitors_select_something(objs: list[dict]) -> list[str]:
    problems = []
    services = of_kind(objs, "Service")
    pods = [(name_of(o), pod_labels(o)) for o in objs if o["kind"] in WORKLOAD_KINDS]
    for m in of_kind(objs, "ServiceMonitor"):
        if not any(selector_matches(m["spec"]["selector"], s["metadata"].get("labels", {})) for s in services):
            problems.append(f"{name_of(m)} selects no Service of the release")
    for m in of_kind(objs, "PodMonitor"):
        sel = m["spec"]["selector"]
        # Strimzi's pods are created by the operator: a selector on strimzi.io labels is fine.
        if any(k.startswith("strimzi.io/") for k in (sel.get("matchLabels") or {})) or any(
            e["key"].startswith("strimzi.io/") for e in sel.get("matchExpressions") or []
        ):
            continue
        if not any(selector_matches(sel, labels) for _, labels in pods):
            problems.append(f"{name_of(m)} selects no pods of the release")
    return problems
