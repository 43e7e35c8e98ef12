"""Small PromQL helpers for the monitoring tests: find the metric names an expression reads, and
turn Grafana query text into plain PromQL. A tokenizer, not a parser: promtool checks the syntax."""

import re

# Grafana's built-in interval variables become durations; every other variable becomes a label
# value (variables only appear inside label matchers in our dashboards).
_INTERVAL_VARS = re.compile(r"\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}")
_VARS = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::[a-z]+)?\}|\$[A-Za-z_][A-Za-z0-9_]*")

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`)
  | (?P<number>0x[0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:ms|s|m|h|d|w|y)?(?:\d+(?:ms|s|m|h|d|w|y))*)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^=<>(){}\[\],:@])
    """,
    re.VERBOSE,
)

KEYWORDS = {
    "and",
    "or",
    "unless",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "bool",
    "offset",
    "atan2",
    "inf",
    "nan",
    "start",
    "end",
}
# Aggregation operators may be followed by `by (...)`/`without (...)` before their parenthesis.
AGGREGATIONS = {
    "sum",
    "min",
    "max",
    "avg",
    "group",
    "stddev",
    "stdvar",
    "count",
    "count_values",
    "bottomk",
    "topk",
    "quantile",
    "limitk",
    "limit_ratio",
}
# Keywords followed by a parenthesised label list (not an expression).
_LABEL_LIST_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}


def grafana_to_promql(expr: str) -> str:
    """Substitute Grafana variables so that the text is plain PromQL."""
    expr = _INTERVAL_VARS.sub("5m", expr)
    return _VARS.sub("grafana_var", expr)


def tokens(expr: str):
    pos = 0
    out = []
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise ValueError(f"cannot tokenize PromQL at {pos}: {expr[pos : pos + 30]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        out.append((kind, m.group()))
    return out


def metric_names(expr: str) -> set:
    """Names of the metrics (series selectors) an expression reads."""
    return {name for name, _ in selectors(expr)}


def selectors(expr: str) -> list:
    """(metric name, label matcher text) for every series selector in an expression."""
    toks = tokens(expr)
    names = []
    depth_brace = depth_bracket = 0
    skip_label_list = 0  # >0 while inside by(...)/on(...) etc.
    i = 0
    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else None
        if skip_label_list:
            if text == "(":
                skip_label_list += 1
            elif text == ")":
                skip_label_list -= 1
            i += 1
            continue
        if text == "{":
            depth_brace += 1
        elif text == "}":
            depth_brace -= 1
        elif text == "[":
            depth_bracket += 1
        elif text == "]":
            depth_bracket -= 1
        elif kind == "ident" and depth_brace == 0 and depth_bracket == 0:
            low = text.lower()
            if low in _LABEL_LIST_KEYWORDS and nxt == "(":
                skip_label_list = 1
                i += 2
                continue
            if nxt == "(" or low in KEYWORDS or low in AGGREGATIONS:
                pass  # function or aggregation name, or keyword
            else:
                matchers = ""
                if nxt == "{":
                    j = i + 2
                    while j < len(toks) and toks[j][1] != "}":
                        matchers += toks[j][1]
                        j += 1
                names.append((text, matchers))
        i += 1
    return names


_LABEL_VALUES = re.compile(r"^\s*label_values\((?P<args>.*)\)\s*$", re.S)


def variable_query_selector(query: str):
    """The PromQL inside a Grafana `label_values(selector, label)` query, or None."""
    m = _LABEL_VALUES.match(query)
    if not m:
        return None
    args = m.group("args")
    # The label is the last comma-separated argument outside braces.
    depth = 0
    for idx in range(len(args) - 1, -1, -1):
        ch = args[idx]
        if ch == "}":
            depth += 1
        elif ch == "{":
            depth -= 1
        elif ch == "," and depth == 0:
            return args[:idx].strip()
    return None  # label_values(label) has no selector
