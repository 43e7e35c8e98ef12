#!/usr/bin/env python3
"""Checks every custom resource in rendered manifests against the CRD schema of the operator
version the chart targets (scripts/tools.sh crds). Stricter than the API server, which silently prunes
unknown fields: here an unknown field is an error, so a misspelled or removed field (Strimzi v1
dropped several v1beta2 ones) is caught before it reaches a cluster.
Usage: validate_rendered.py CRDS_DIR rendered.yaml..."""

import glob
import sys

import jsonschema
import yaml

# Value validations of a structural schema: their branches only constrain fields the structure
# declares (e.g. Strimzi's env: oneOf {required: [value]} / {required: [valueFrom]}), so they stay open.
CONSTRAINTS = ("oneOf", "anyOf", "allOf", "not")


def strict(schema, structural=True):
    """Copy of an OpenAPI v3 schema in which objects with declared properties are closed."""
    if isinstance(schema, list):
        return [strict(s, structural) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict(v, structural and k not in CONSTRAINTS) for k, v in schema.items()}
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if (
        structural
        and "properties" in schema
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    if schema.get("nullable"):
        out.pop("type", None)
    return out


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """SafeLoader that reads a bare `=` (YAML's old "value" type, used in enums) as a string."""


Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def load_crds(root):
    crds = {}
    # Only the CRDs of kinds the chart renders (the others are large and slow to parse).
    wanted = (
        "kafka.yaml",
        "kafkanodepool.yaml",
        "kafkatopic.yaml",
        "kafkauser.yaml",
        "scaledobjects.yaml",
        "_triggerauthentications.yaml",
        "testruns.yaml",
        "servicemonitors.yaml",
        "podmonitors.yaml",
        "prometheusrules.yaml",
    )
    for path in glob.glob(f"{root}/**/*.yaml", recursive=True):
        if not path.lower().endswith(wanted):
            continue
        with open(path) as f:
            docs = list(yaml.load_all(f, Loader=Loader))
        for doc in docs:
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = doc["spec"]["group"], doc["spec"]["names"]["kind"]
            for version in doc["spec"]["versions"]:
                if version.get("served"):
                    crds[(f"{group}/{version['name']}", kind)] = version["schema"]["openAPIV3Schema"]
    return crds


def main():
    crds = load_crds(sys.argv[1])
    checked, errors = 0, 0
    for path in sys.argv[2:]:
        with open(path) as f:
            docs = list(yaml.safe_load_all(f))
        for doc in docs:
            if not doc:
                continue
            key = (doc.get("apiVersion"), doc.get("kind"))
            group = key[0].split("/")[0] if key[0] and "/" in key[0] else ""
            if key not in crds:
                if "." in group and not group.endswith("k8s.io"):
                    print(f"FAIL {path}: {key[1]} {key[0]} is served by no CRD in {sys.argv[1]}")
                    errors += 1
                continue
            schema = strict(crds[key])
            schema["properties"]["metadata"] = {"type": "object"}
            checked += 1
            problems = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc), key=str)
            for p in problems:
                where = "/".join(str(x) for x in p.absolute_path)
                print(f"FAIL {path}: {key[1]} {doc['metadata'].get('name')}: {where}: {p.message}")
                errors += 1
    print(
        f"{'ok  ' if not errors else 'FAIL'} {checked} custom resources checked against their CRDs, {errors} problems"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
