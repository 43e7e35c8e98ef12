#!/usr/bin/env python3
"""docs/values.md, the table of the chart's values, generated from values.schema.json (types,
descriptions, the shared shapes in $defs) and the defaults in values.yaml. Also checks that the
schema is a valid draft-07 schema and that every key in it has a description.

Usage: values_doc.py check    every key described, docs/values.md up to date (chart-lint)
       values_doc.py update   rewrite docs/values.md (make chart-values-doc)"""

import json
import sys
import textwrap
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "values.schema.json"
OUT = ROOT / "docs" / "values.md"
LONG = 70  # defaults longer than this point to the values file instead


def defaults() -> dict:
    return yaml.safe_load((ROOT / "values.yaml").read_text()) or {}


def lookup(values, path: list[str]):
    for part in path:
        if not isinstance(values, dict) or part not in values:
            return None, False
        values = values[part]
    return values, True


def cell(text: str) -> str:
    """One table cell or paragraph: no pipes or line breaks, and <placeholders> outside code spans
    escaped, or Markdown would take them for HTML tags and show nothing."""
    parts = text.replace("|", "\\|").replace("\n", " ").split("`")
    parts[::2] = [p.replace("<", "&lt;").replace(">", "&gt;") for p in parts[::2]]
    return "`".join(parts)


def prose(text: str) -> list[str]:
    """A paragraph wrapped at the docs' 120 columns."""
    return textwrap.wrap(cell(text), 120, break_long_words=False, break_on_hyphens=False)


def type_of(node: dict, defs: dict) -> str:
    if "$ref" in node:
        name = node["$ref"].split("/")[-1]
        return f"[{name}](#{name.lower()})"
    if "enum" in node:
        return " \\| ".join(f"`{v}`" if v != "" else '`""`' for v in node["enum"])
    if "oneOf" in node:
        return " \\| ".join(type_of(o, defs) for o in node["oneOf"])
    t = node.get("type", "any")
    t = " \\| ".join(t) if isinstance(t, list) else t
    if t == "array" and isinstance(node.get("items"), dict):
        item = node["items"]
        t = f"array of {type_of(item, defs) if 'properties' not in item else 'objects'}"
    elif t == "object" and isinstance(node.get("additionalProperties"), dict) and "properties" not in node:
        t = f"map of {type_of(node['additionalProperties'], defs)}"
    return t


def description(node: dict, defs: dict) -> str:
    if node.get("description"):
        return node["description"]
    if "$ref" in node:
        return defs[node["$ref"].split("/")[-1]].get("description", "")
    return ""


def default_of(path: list[str], values) -> str:
    value, found = lookup(values, path)
    if not found:
        return ""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > LONG:
        return "see `values.yaml`"
    return f"`{text}`"


def rows(node: dict, defs: dict, path: list[str], values, with_defaults=True):
    """(key, type, default, description) of every key below node, depth first."""
    for name, prop in (node.get("properties") or {}).items():
        here = [*path, name]
        key = ".".join(here)
        # An object's default is in the rows of its keys.
        default = default_of(here, values) if with_defaults and "properties" not in prop else None
        yield key, type_of(prop, defs), default, description(prop, defs)
        if "$ref" in prop:
            continue
        yield from rows(prop, defs, here, values, with_defaults)
        items = prop.get("items")
        if isinstance(items, dict) and "properties" in items:
            yield from rows(items, defs, [*here[:-1], f"{name}[]"], values, with_defaults=False)


def undocumented(node, defs, path="") -> list[str]:
    missing = []
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if not description(prop, defs):
                missing.append(f"{path}{name}")
            missing += undocumented(prop, defs, f"{path}{name}.")
        if isinstance(node.get("items"), dict):
            missing += undocumented(node["items"], defs, f"{path[:-1]}[].")
    return missing


def table(lines: list[str], entries, with_defaults: bool):
    if with_defaults:
        lines += ["| Key | Type | Default | Description |", "|---|---|---|---|"]
        lines += [f"| `{k}` | {t} | {d or ''} | {cell(desc)} |" for k, t, d, desc in entries]
    else:
        lines += ["| Key | Type | Description |", "|---|---|---|"]
        lines += [f"| `{k}` | {t} | {cell(desc)} |" for k, t, _, desc in entries]
    lines.append("")


def render(schema: dict) -> str:
    defs, values = schema.get("$defs", {}), defaults()
    lines = [
        "# Values of the coupon-event chart",
        "",
        *prose(
            "Generated from `values.schema.json` by `tests/chart/values_doc.py` (`make chart-values-doc`); "
            "edit the schema, not this page. Defaults come from `values.yaml`. "
            "The schema rejects unknown keys everywhere except in the Bitnami sections; "
            "`examples/*.yaml` are complete events to start from."
        ),
        "",
    ]
    top = {"properties": {k: v for k, v in schema["properties"].items() if "properties" not in v}}
    lines += ["## Top level", ""]
    table(lines, list(rows(top, defs, [], values)), with_defaults=True)
    for name, prop in schema["properties"].items():
        if "properties" in prop:
            lines += [f"## {name}", "", *prose(description(prop, defs)), ""]
            table(lines, list(rows(prop, defs, [name], values)), with_defaults=True)
    lines += ["## Shared shapes", "", "Shapes the schema defines once (`$defs`) and uses under several keys.", ""]
    for name, node in defs.items():
        lines += [f"### {name}", "", *prose(description(node, defs) or f"Type: {type_of(node, defs)}."), ""]
        if "properties" in node:
            table(lines, list(rows(node, defs, [], {}, with_defaults=False)), with_defaults=False)
        elif "items" in node and "properties" in node["items"]:
            table(lines, list(rows(node["items"], defs, ["[]"], {}, with_defaults=False)), with_defaults=False)
        else:
            lines += [f"Type: {type_of({k: v for k, v in node.items() if k != 'description'}, defs)}.", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ("check", "update"):
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    schema = json.loads(SCHEMA.read_text())
    text = render(schema)
    if sys.argv[1] == "update":
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
        return 0
    failed = 0
    jsonschema.Draft7Validator.check_schema(schema)
    missing = undocumented(schema, schema.get("$defs", {}))
    for name, node in schema.get("$defs", {}).items():
        missing += undocumented(node, schema["$defs"], f"$defs.{name}.")
    if missing:
        print(f"FAIL {len(missing)} values keys without a description in values.schema.json:")
        print("\n".join(f"    {m}" for m in missing))
        failed += 1
    else:
        print("ok   every values key has a description")
    if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
        print(f"FAIL {OUT.relative_to(ROOT)} is not generated from values.schema.json (make chart-values-doc)")
        failed += 1
    else:
        print(f"ok   {OUT.relative_to(ROOT)} generated from values.schema.json")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
