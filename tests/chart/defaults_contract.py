"""The services' defaults are the chart's defaults: every setting the chart's default render gives a
service as an environment variable (a literal `value`, or a leaf of SPRING_APPLICATION_JSON) must
be the default that service's application.yaml holds for the property the variable binds to, by
Spring Boot's relaxed binding (COUPON_ISSUANCE_MAX_IN_FLIGHT and COUPON_ISSUANCE_MAXINFLIGHT both
bind coupon.issuance.max-in-flight). A variable that binds no property of application.yaml must be
wiring: where this event's stores, ports and secrets are, listed below with the reason.

So a service started without the chart (the local harness, a test) runs what a pod of the chart
runs, and a chart value changed alone, or a default changed alone, fails here.

Usage: defaults_contract.py RENDER.yaml   (the chart rendered with its default values; prints one
"ok   ..." or "FAIL ..." line per service and exits 1 on any FAIL)"""

import json
import os
import re
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Where the event runs rather than how the service behaves: the chart sets these from its wiring.
WIRING = {
    "SERVER_PORT": "a pod has an address of its own: every service listens on the chart's port",
    "MANAGEMENT_SERVER_PORT": "as SERVER_PORT",
    "SPRING_FLYWAY_ENABLED": "the release's migration Job migrates the schema, not each pod",
    "COUPON_CATALOG_REGISTER_ON_START": "the release's registration Job registers the coupons",
    "SPRING_CONFIG_IMPORT": "the event's coupons, mounted from the release's ConfigMap",
    "MANAGEMENT_ENDPOINT_HEALTH_PROBES_ADDADDITIONALPATHS": "readinessOnMainPort: where the kubelet probes",
    "SPRING_DATASOURCE_URL": "the event's database",
    "SPRING_DATASOURCE_USERNAME": "the event's database",
    "SPRING_DATA_REDIS_CLUSTER_NODES": "the event's Redis",
    "COUPON_REDIS_KEYPREFIX": "the release's key prefix in a shared Redis",
    "COUPON_WAITINGROOM_APIURL": "the release's coupon-api Service",
    "COUPON_WAITINGROOM_ISSUANCEREDIS_NODES": "the issuance Redis when the queue has its own",
    "SPRING_KAFKA_BOOTSTRAP_SERVERS": "the event's Kafka",
    "SPRING_KAFKA_SECURITY_PROTOCOL": "how the event's own Kafka authenticates its clients (SCRAM)",
    "SPRING_KAFKA_PROPERTIES_SASL_MECHANISM": "as SPRING_KAFKA_SECURITY_PROTOCOL",
}
# Settings whose value is a map of the event's own (zone names), not a default.
EVENT_MAPS = {"coupon.waiting-room.zones"}
SERVICES = ("coupon-api", "coupon-consumer", "coupon-waiting-room")


def flatten(tree, prefix=""):
    """{dotted.key: leaf} of a nested mapping (lists and empty maps are leaves)."""
    out = {}
    for key, value in (tree or {}).items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.update(flatten(value, path))
        else:
            out[path] = value
    return out


def env_names(prop):
    """The environment variable names that bind a property: Spring Boot's canonical form (dashes
    dropped) and its legacy form (dashes as underscores)."""
    upper = prop.upper().replace(".", "_")
    return {upper.replace("-", ""), upper.replace("-", "_")}


def binding_index(defaults):
    """{ENV_NAME: property} for every property of a flattened application.yaml."""
    index = {}
    for prop in defaults:
        for name in env_names(prop):
            index[name] = prop
    return index


_DURATION = re.compile(r"^(\d+)(ns|us|ms|s|m|h|d)?$")
_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1, "s": 1000, "m": 60000, "h": 3600000, "d": 86400000}


def normal(value, duration_default_unit=None):
    """A value as both sides can be compared: booleans and numbers as text, durations (2s, 500ms,
    2m) in milliseconds; a bare number stays a number."""
    if isinstance(value, bool):
        return str(value).lower()
    text = str(value).strip()
    m = _DURATION.match(text)
    if m and m.group(2):
        return float(m.group(1)) * _UNIT_MS[m.group(2)]
    if m:
        return float(text)
    return text


def same(chart_value, default):
    a, b = normal(chart_value), normal(default)
    return a == b


def check_service(name, env, defaults):
    """Problems (text lines) of one service: env is [(NAME, value)] of the chart's literal values,
    defaults its flattened application.yaml."""
    problems = []
    index = binding_index(defaults)
    for var, value in env:
        if var == "SPRING_APPLICATION_JSON":
            for prop, leaf in flatten(json.loads(value)).items():
                if prop in EVENT_MAPS:
                    continue
                if prop not in defaults:
                    problems.append(f"{prop} (SPRING_APPLICATION_JSON) = {leaf!r}: no default in application.yaml")
                elif not same(leaf, defaults[prop]):
                    problems.append(
                        f"{prop} (SPRING_APPLICATION_JSON): chart {leaf!r}, application.yaml {defaults[prop]!r}"
                    )
            continue
        if var in WIRING:
            continue
        prop = index.get(var)
        if prop is None:
            problems.append(f"{var} = {value!r}: binds no property of application.yaml and is not wiring")
        elif not same(value, defaults[prop]):
            problems.append(f"{prop} ({var}): chart {value!r}, application.yaml {defaults[prop]!r}")
    return problems


def rendered_env(render_path):
    """{service: [(NAME, value)]} of the literal env values of each service's Deployment."""
    out = {}
    with open(render_path) as f:
        for doc in yaml.safe_load_all(f):
            if not doc or doc.get("kind") != "Deployment":
                continue
            for c in doc["spec"]["template"]["spec"]["containers"]:
                if c["name"] in SERVICES:
                    out[c["name"]] = [(e["name"], e["value"]) for e in c.get("env", []) if "value" in e]
    return out


def application_defaults(service):
    path = os.path.join(ROOT, "services", service, "src", "main", "resources", "application.yaml")
    with open(path) as f:
        return flatten(yaml.safe_load(f))


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    envs = rendered_env(argv[1])
    failed = 0
    for service in SERVICES:
        if service not in envs:
            print(f"FAIL defaults contract: {service} has no Deployment in {argv[1]}")
            failed += 1
            continue
        problems = check_service(service, envs[service], application_defaults(service))
        if problems:
            failed += 1
            print(f"FAIL defaults contract: {service}'s chart settings differ from its application.yaml:")
            for p in problems:
                print(f"    {p}")
        else:
            print(
                f"ok   defaults contract: {service}'s {len(envs[service])} chart settings are its application.yaml "
                "defaults or wiring"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
