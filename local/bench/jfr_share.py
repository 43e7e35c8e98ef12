"""Where the CPU goes, from a JFR recording: the share of execution samples (jdk.ExecutionSample) per
framework bucket, and the busiest methods.

  python3 local/bench/jfr_share.py RECORDING.jfr [--top 25] [--json OUT.json] [--jfr PATH-TO-jfr]

A sample is charged to the bucket of its topmost frame outside the JDK (java., jdk., sun.), so time
in a HashMap or a String called by Spring Security counts as Spring Security; a stack of JDK frames
only counts as "JDK". Buckets go by package prefix (BUCKETS, first match wins).

Recording the API under load (see docs/performance.md):
  jcmd $(cat RUN_DIR/pids/api.pid) JFR.start name=bench settings=profile filename=/tmp/api.jfr
  ... load ...
  jcmd $(cat RUN_DIR/pids/api.pid) JFR.stop name=bench"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys

BUCKETS = [  # (label, package prefixes)
    ("our code (io.couponevent)", ("io.couponevent.",)),
    ("Spring Security + JWT (Nimbus)", ("org.springframework.security.", "com.nimbusds.")),
    ("Spring MVC", ("org.springframework.web.", "org.springframework.http.")),
    ("Tomcat", ("org.apache.catalina.", "org.apache.coyote.", "org.apache.tomcat.", "jakarta.servlet.")),
    ("Lettuce/Netty (Redis)", ("io.lettuce.", "io.netty.", "reactor.")),
    ("Micrometer", ("io.micrometer.",)),
    ("Jackson", ("com.fasterxml.jackson.", "tools.jackson.")),
    ("Kafka client", ("org.apache.kafka.",)),
    ("logging", ("ch.qos.logback.", "org.slf4j.", "org.apache.logging.")),
    ("JDBC (Hikari, driver)", ("com.zaxxer.hikari.", "org.mariadb.", "com.mysql.")),
    ("other Spring", ("org.springframework.",)),
]
JDK = ("java.", "javax.", "jdk.", "sun.", "com.sun.")


def bucket(type_name):
    for label, prefixes in BUCKETS:
        if type_name.startswith(prefixes):
            return label
    return None


def jfr_tool(explicit):
    if explicit:
        return explicit
    home = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")
    candidate = os.path.join(home, "bin", "jfr")
    return candidate if os.path.exists(candidate) else shutil.which("jfr") or "jfr"


def samples(recording, tool):
    """The stacks of every execution sample, topmost frame first, as 'package.Type.method' strings."""
    out = subprocess.run(
        [tool, "print", "--json", "--stack-depth", "64", "--events", "jdk.ExecutionSample", recording],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for event in json.loads(out)["recording"]["events"]:
        frames = ((event.get("values", {}).get("stackTrace") or {}).get("frames")) or []
        # jfr prints type names in their internal form (io/netty/...)
        yield [f"{f['method']['type']['name'].replace('/', '.')}.{f['method']['name']}" for f in frames]


def share(stacks):
    buckets, top_methods, charged_methods = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    for frames in stacks:
        if not frames:
            continue
        total += 1
        top_methods[frames[0]] += 1
        label, charged = "JDK", frames[0]
        for frame in frames:
            if not frame.startswith(JDK):
                label, charged = bucket(frame) or "other", frame
                break
        buckets[label] += 1
        charged_methods[charged] += 1
    return total, buckets, top_methods, charged_methods


def callers(stacks, text, top):
    """Prints the commonest call paths (12 frames from the matching one down) of samples through `text`."""
    paths = collections.Counter()
    for frames in stacks:
        i = next((i for i, f in enumerate(frames) if text in f), None)
        if i is not None:
            paths[tuple(frames[i : i + 12])] += 1
    total = sum(paths.values())
    print(f"{total} of {len(stacks)} samples pass through a frame containing {text!r}")
    for path, n in paths.most_common(top):
        print(f"\n{n} samples:\n  " + "\n  ".join(path))
    return 0


def pct(n, total):
    return round(100.0 * n / total, 1) if total else 0.0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recording")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--json", help="also write the shares as JSON here")
    p.add_argument("--jfr", help="the JDK's jfr tool (default: $JAVA_HOME/bin/jfr)")
    p.add_argument("--callers", metavar="TEXT", help="instead: the commonest stacks through frames containing TEXT")
    a = p.parse_args(argv)
    stacks = list(samples(a.recording, jfr_tool(a.jfr)))
    if a.callers:
        return callers(stacks, a.callers, a.top)
    total, buckets, top_methods, charged = share(stacks)
    if not total:
        raise SystemExit(f"no jdk.ExecutionSample events in {a.recording}")
    print(f"{total} execution samples in {a.recording}\n")
    print("| where | samples | share |\n|---|---:|---:|")
    for label, n in buckets.most_common():
        print(f"| {label} | {n} | {pct(n, total)} % |")
    print(f"\nbusiest methods, charged to the topmost frame outside the JDK (top {a.top}):")
    for m, n in charged.most_common(a.top):
        print(f"  {pct(n, total):5.1f} %  {m}")
    print(f"\nbusiest methods, topmost frame (self time, top {a.top}):")
    for m, n in top_methods.most_common(a.top):
        print(f"  {pct(n, total):5.1f} %  {m}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(
                {
                    "samples": total,
                    "buckets": {k: pct(n, total) for k, n in buckets.most_common()},
                    "charged_methods": {k: pct(n, total) for k, n in charged.most_common(a.top)},
                    "self_methods": {k: pct(n, total) for k, n in top_methods.most_common(a.top)},
                },
                f,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
