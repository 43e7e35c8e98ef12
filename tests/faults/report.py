"""The fault run's report: one text block per scenario and the table of report.md."""


def verifier_detail(text, name):
    """The detail the verifier printed for one check ("  PASS  <name padded>  <detail>")."""
    for line in (text or "").splitlines():
        body = line.strip()
        if body[:4] in ("PASS", "FAIL") and body[4:].strip().startswith(name):
            return body[4:].strip()[len(name) :].strip()
    return ""


def scenario_text(r):
    a = r["answers"]
    lines = [
        f"--- {r['scenario']} ({r['length']}): {r['title']}",
        f"    requests {a['requests']}: 202 {a['202']}, 409 {a['409']}, 410 {a['410']}, 503 {a['503']}, "
        f"no answer {a['no_answer']} (timeouts {a['timeouts']}), other {a['other']}; p99 of 503s {a['p99_503_ms']} ms, "
        f"max {a['max_ms']} ms",
        f"    rows {r['rows']} of {r['quantity']}, requesters {r['requesters']}, gave up {r['gave_up']}; duplicates "
        f"{r['duplicates']}, over-issue {r['over_issue']}, lost 202s {r['lost_202']}, stranded {r['stranded']}, "
        f"dead letters {r['dead_letters']}",
        f"    recovery: first 202 after the fault {r['first_202_s']} s, backlog back after {r['lag_recovered_s']} s "
        f"(peak {r['backlog_peak']}), settled {r['settled_s']} s after the load; run {r['run_s']} s",
        "    refused after the fault: "
        + (
            "; ".join(
                f"{call} {x['refused']} of {x['requests']}, for {x['refused_s']} s "
                f"({x['refused_seconds']} seconds with a refusal), first answered {x['first_ok_s']} s"
                for call, x in r["refused"].items()
            )
            or "nothing measured"
        ),
        "    timeouts in force: " + ", ".join(f"{k} {v}" for k, v in r["timeouts"].items()),
        f"    reconciler {r['reconciler']}, compensations {r['compensations']}, "
        f"duplicates skipped by the consumer {r['consumer_duplicates_skipped']:.0f}",
        "    timeline: " + ", ".join(f"{lb} t+{t}s" for lb, t, _ in r["marks"]),
    ]
    for c in r["checks"]:
        lines.append(f"    {'PASS' if c['ok'] else 'FAIL'}  {c['name']}: {c['detail']}")
    if not r.get("targets_judged"):
        for t in r.get("targets", []):
            lines.append(
                f"    INFO  target {'met' if t['met'] else 'missed'}, not judged: {t['name']} ({t['value']} s)"
            )
    lines.append(f"    => {'PASS' if r['passed'] else 'FAIL'}")
    return "\n".join(lines)


def table(results):
    head = (
        "| scenario | length | requests | 202 | 409 | 410 | 503 | no answer | rows/qty | dup | over | lost 202 "
        "| stranded | DLT | first 202 s | refused s | backlog s | run s | result |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results:
        a = r["answers"]
        lines.append(
            f"| {r['scenario']} | {r['length']} | {a['requests']} | {a['202']} | {a['409']} | {a['410']} | "
            f"{a['503']} | {a['no_answer']} | {r['rows']}/{r['quantity']} | {r['duplicates']} | "
            f"{r['over_issue']} | {r['lost_202']} | {r['stranded']} | {r['dead_letters']} | "
            f"{r['first_202_s']} | {(r.get('refused') or {}).get('issue', {}).get('refused_s')} | "
            f"{r['lag_recovered_s']} | {r['run_s']} | "
            f"{'PASS' if r['passed'] else 'FAIL'} |"
        )
    return "\n".join(lines)
