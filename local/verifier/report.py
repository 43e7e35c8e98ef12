"""What the verifier prints and writes: the summary of one coupon event, and the benchmark's
summary.json (numbers only) and markdown table. Pure functions of their inputs."""

TARGETS = [  # (label, VUs, req/s, p95 ms)
    ("best public single box (2 vCPU)", 5000, 900, 6750),
    ("public 6-server fleet", 7000, 1550, 5970),
    ("that fleet's goal", 10000, 3333, 3000),
]
GOAL = {"vus_peak": 10000, "accepted_rps": 3333, "p95_ms": 300, "drain_seconds": 10}


def event_summary(k6, res, checks):
    """The text summary of one verified run: k6's figures, MariaDB's, then PASS/FAIL/INFO per check."""
    lines = ["", "==================== coupon event summary ===================="]
    if k6:
        lines += [
            f"  scenario {k6.get('scenario')}: {k6.get('vus_peak')} VUs, {k6.get('requests')} issuance requests "
            f"in {k6.get('issue_window_s')}s = {k6.get('request_rps')}/s (all HTTP: {k6.get('http_requests')})",
            f"  outcomes: accepted {k6.get('accepted')}  duplicate(409) {k6.get('duplicate')}  sold out(410) "
            f"{k6.get('sold_out')}  shed(503) {k6.get('shed')}  unexpected {k6.get('unexpected')}",
            f"  accepted/s {k6.get('accepted_rps')}   latency p50 {k6.get('p50_ms')} ms  p95 {k6.get('p95_ms')} ms  "
            f"p99 {k6.get('p99_ms')} ms  max {k6.get('max_ms')} ms",
        ]
        if k6.get("confirmed"):
            lines.append(
                f"  202 -> ISSUED seen by the user: p50 {k6.get('time_to_issued_p50_ms')} ms  "
                f"p95 {k6.get('time_to_issued_p95_ms')} ms"
            )
    d = res["drain_seconds"]
    lines.append(
        f"  MariaDB rows {res['rows']} (quantity {res['quantity']}), persisted at {res['persist_rps']}/s, "
        f"lag drained {f'in {d:.1f}s after k6 ended' if d >= 0 else 'NOT within the timeout'}"
    )
    lines.append("  ------------------------------------------------------------")
    for name, ok, detail in checks:
        lines.append(f"  {'INFO' if ok is None else 'PASS' if ok else 'FAIL'}  {name:36s} {detail}")
    lines.append(f"  ==> {'ALL INVARIANTS PASS' if res['passed'] else 'FAILED'}")
    return "\n".join(lines) + "\n\n"


def bench_summary(main, soldout, sustained=None, cpu=None, gauge=None, cores=1):
    """summary.json of `make bench` from the verifier outputs of its phases: figures, then
    meets_<goal> 0/1 per goal of GOAL and `correct`."""
    k6, v = main["k6"], main["verification"]
    sk6, sv = soldout["k6"], soldout["verification"]
    out = {
        "vus_peak": k6["vus_peak"],
        "requests": k6["requests"],
        "accepted": k6["accepted"],
        "accepted_rps": k6["accepted_rps"],
        "p50_ms": k6["p50_ms"],
        "p95_ms": k6["p95_ms"],
        "p99_ms": k6["p99_ms"],
        "max_ms": k6["max_ms"],
        "unexpected": k6["unexpected"],
        "shed": k6["shed"],
        "persist_rps": v["persist_rps"],
        "drain_seconds": v["drain_seconds"],
        "rows": v["rows"],
        "over_issue": v["over_issue"] + sv["over_issue"],
        "duplicates": v["duplicates"] + sv["duplicates"],
        "lost_acceptances": v["lost_acceptances"] + sv["lost_acceptances"],
        "soldout_requests": sk6["requests"],
        "soldout_rps": sk6["request_rps"],
        "soldout_p50_ms": sk6["p50_ms"],
        "soldout_p95_ms": sk6["p95_ms"],
        "soldout_p99_ms": sk6["p99_ms"],
        "soldout_unexpected": sk6["unexpected"],
        "cores": cores,
        "invariants_passed": int(v["passed"] and sv["passed"]),
    }
    if sustained:
        tk6, tv = sustained["k6"], sustained["verification"]
        out.update(
            {
                "sustained_target_rps": tk6.get("phases", [{}])[0].get("target_rps", 0),
                "sustained_rps": tk6["accepted_rps"],
                "sustained_p50_ms": tk6["p50_ms"],
                "sustained_p95_ms": tk6["p95_ms"],
                "sustained_p99_ms": tk6["p99_ms"],
                "sustained_dropped": tk6.get("dropped_iterations", 0),
            }
        )
        for k in ("over_issue", "duplicates", "lost_acceptances"):
            out[k] += tv[k]
        out["invariants_passed"] = int(out["invariants_passed"] and tv["passed"])
    for role, pct in (cpu or {}).get("percent_of_machine", {}).items():
        out[f"cpu_pct_{role.replace('-', '_')}"] = pct
    if gauge:
        out["machine_gauge_s"] = gauge["gauge_s"]
        out["machine_wakeup_us"] = gauge.get("wakeup_us", -1)
    for k, ok in verdict(out).items():
        out[f"meets_{k}"] = int(ok)
    return out


def verdict(out):
    drain = out["drain_seconds"]
    return {
        "vus_peak": out["vus_peak"] >= GOAL["vus_peak"],
        "accepted_rps": out["accepted_rps"] >= GOAL["accepted_rps"],
        "p95_ms": out["p95_ms"] < GOAL["p95_ms"],
        "drain_seconds": 0 <= drain <= GOAL["drain_seconds"],
        "correct": out["over_issue"] == 0
        and out["duplicates"] == 0
        and out["lost_acceptances"] == 0
        and out["invariants_passed"] == 1,
    }


def bench_markdown(out, cpu=None):
    """summary.md: the targets, the measured row with ✅/❌ per goal, then one line per phase."""
    ok = {k[len("meets_") :]: bool(v) for k, v in out.items() if k.startswith("meets_")}
    mark = lambda good: "✅" if good else "❌"  # noqa: E731
    md = [
        "| | VUs | accepted req/s | p95 | p99 | drain | over-issue / duplicates / lost |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for label, vus, rps, p95 in TARGETS:
        md.append(f"| {label} | {vus:,} | {rps:,} | {p95 / 1000:.2f} s | | | |")
    md.append("| **target here (2 cores, k6 on the same box)** | 10,000 | ≥ 3,333 | < 300 ms | | ≤ 10 s | 0 / 0 / 0 |")
    md.append(
        f"| **measured** | {out['vus_peak']:,.0f} {mark(ok['vus_peak'])} | "
        f"{out['accepted_rps']:,.0f} {mark(ok['accepted_rps'])} | {out['p95_ms']:,.0f} ms {mark(ok['p95_ms'])} | "
        f"{out['p99_ms']:,.0f} ms | {out['drain_seconds']:.1f} s {mark(ok['drain_seconds'])} | "
        f"{out['over_issue']} / {out['duplicates']} / {out['lost_acceptances']} {mark(ok['correct'])} |"
    )
    md += [
        "",
        f"Main phase: {out['requests']:,} issuance requests, {out['accepted']:,} accepted (p50 {out['p50_ms']:.0f} ms, "
        f"max {out['max_ms']:.0f} ms, {out['shed']} shed, {out['unexpected']} unexpected); consumer persisted "
        f"{out['rows']:,} rows at {out['persist_rps']:,.0f} rows/s.",
        f"Sold-out storm: {out['soldout_requests']:,} requests at {out['soldout_rps']:,.0f} req/s, "
        f"p50 {out['soldout_p50_ms']:.0f} ms, p95 {out['soldout_p95_ms']:.0f} ms, p99 {out['soldout_p99_ms']:.0f} ms.",
    ]
    if "sustained_rps" in out:
        md.append(
            f"Sustained rate: {out['sustained_target_rps']:,}/s offered (constant arrival rate, VUs reused), "
            f"{out['sustained_rps']:,.0f} accepted/s, p50 {out['sustained_p50_ms']:.0f} ms, "
            f"p95 {out['sustained_p95_ms']:.0f} ms, p99 {out['sustained_p99_ms']:.0f} ms, "
            f"{out['sustained_dropped']:,} arrivals k6 could not start."
        )
    if "machine_gauge_s" in out:
        md.append(
            f"Host gauge before the run: 10 million Python additions in {out['machine_gauge_s']} s, a process "
            f"wake-up round trip {out['machine_wakeup_us']} µs (slower means a busier host and lower figures)."
        )
    shares = sorted((cpu or {}).get("percent_of_machine", {}).items(), key=lambda x: -x[1])
    md.append("CPU share of the machine during the main phase: " + ", ".join(f"{r} {p:.0f}%" for r, p in shares) + ".")
    return "\n".join(md) + "\n"
