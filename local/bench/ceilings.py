"""The ceilings a step of the capacity ladder runs under, by Little's law (concurrency = rate x time
in the system, so a bound of N at once over a time T per request caps the rate at N / T), and the
resource that ends the ladder. Pure functions; the settings come from the services' defaults
(application.yaml) and the environment the harness started them with (the profile in force,
HARNESS_PROFILE, and the environment's own variables).

  in_flight           coupon.issuance.max-in-flight / the measured time an issuance holds its slot
                      (coupon_issuance_duration_seconds over the step)
  tomcat_threads      Tomcat's worker threads / the measured response time; none while requests run
                      on virtual threads (spring.threads.virtual.enabled)
  tomcat_connections  server.tomcat.max-connections / the measured response time (a keep-alive
                      client holds its connection between requests too: a generous ceiling)
  consumer_writes     the consumer's writers at once (its listener threads, at most its connection
                      pool) / the CPU time it spends per row (a lower bound of its time per row);
                      coupon.consumer.max-inserts-per-second when it is set and lower

  python3 local/bench/ceilings.py settings    the settings in force as JSON (make bench writes it
                                              to build/bench/settings.json for the ladder)"""

import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# CPU is what ends the ladder when the machine was at least this busy over the failing step.
CPU_BUSY_SHARE = 0.9
# A bound ends it when the offered rate came this close to its ceiling.
NEAR_CEILING = 0.9
# Tomcat's worker threads when requests do not run on virtual threads (server.tomcat.threads.max).
TOMCAT_THREADS_DEFAULT = 200

# setting -> (service, property, environment variables the harness may set instead)
SETTINGS = {
    "max_in_flight": ("coupon-api", "coupon.issuance.max-in-flight", ()),
    "api_virtual_threads": ("coupon-api", "spring.threads.virtual.enabled", ()),
    "api_tomcat_threads": ("coupon-api", "server.tomcat.threads.max", ()),
    "api_max_connections": ("coupon-api", "server.tomcat.max-connections", ("API_TOMCAT_MAX_CONNECTIONS",)),
    "consumer_concurrency": ("coupon-consumer", "coupon.consumer.concurrency", ()),
    "consumer_pool": ("coupon-consumer", "spring.datasource.hikari.maximum-pool-size", ()),
    "consumer_max_inserts_per_second": ("coupon-consumer", "coupon.consumer.max-inserts-per-second", ()),
}


def env_names(prop):
    """The environment variables that bind a property by Spring Boot's relaxed binding."""
    upper = prop.upper().replace(".", "_")
    return [upper.replace("-", ""), upper.replace("-", "_")]


def setting_value(text):
    text = str(text).strip().lower()
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def settings_in_force(defaults, environ):
    """{setting: value} from each service's flattened application.yaml ({service: {property: value}})
    and the environment, which wins (the harness passes its environment to every service)."""
    out = {}
    for name, (service, prop, harness_vars) in SETTINGS.items():
        value = defaults.get(service, {}).get(prop)
        for var in list(harness_vars) + env_names(prop):
            if var in environ:
                value = environ[var]
                break
        out[name] = setting_value(value) if value is not None else None
    if out["api_tomcat_threads"] is None:
        out["api_tomcat_threads"] = TOMCAT_THREADS_DEFAULT
    return out


def metric_sum(text, name, label=None):
    """The sum of every sample of one metric in Prometheus text (those whose labels contain LABEL,
    e.g. 'uri="/api/v1/coupons/{couponId}/issuances"', when given)."""
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        rest = line[len(name) :]
        if rest[:1] not in ("{", " "):
            continue
        if label and label not in rest:
            continue
        try:
            total += float(rest.rsplit(" ", 1)[1])
        except (IndexError, ValueError):
            continue
    return total


def mean_seconds(before, after, name, label=None):
    """The mean of a timer between two scrapes (its _sum and _count); None without samples."""
    count = metric_sum(after, f"{name}_count", label) - metric_sum(before, f"{name}_count", label)
    total = metric_sum(after, f"{name}_sum", label) - metric_sum(before, f"{name}_sum", label)
    return total / count if count > 0 else None


def per_second(bound, seconds):
    return round(bound / seconds, 1) if bound and seconds else None


def ceilings(settings, service_s=None, response_s=None, consumer_cpu_us_per_row=None):
    """{ceiling: requests (rows) a second, or None where it does not apply or was not measured}."""
    out = {"in_flight": per_second(settings.get("max_in_flight"), service_s)}
    out["tomcat_threads"] = (
        None if settings.get("api_virtual_threads") else per_second(settings.get("api_tomcat_threads"), response_s)
    )
    out["tomcat_connections"] = per_second(settings.get("api_max_connections"), response_s)
    writers = settings.get("consumer_concurrency") or 0
    if settings.get("consumer_pool"):
        writers = min(writers, settings["consumer_pool"])
    writes = per_second(writers, consumer_cpu_us_per_row / 1e6) if consumer_cpu_us_per_row else None
    cap = settings.get("consumer_max_inserts_per_second") or 0
    if cap > 0 and (writes is None or cap < writes):
        writes = float(cap)
    out["consumer_writes"] = writes
    return out


def ended_by(rate, busy_cores, cores, step_ceilings):
    """What ended a step that did not hold its rate: "cpu" when the machine was busy, else the
    lowest ceiling the offered rate came near, else "unexplained" (none of those measured)."""
    if cores and busy_cores is not None and busy_cores >= CPU_BUSY_SHARE * cores:
        return "cpu"
    reached = [(c, name) for name, c in step_ceilings.items() if c is not None and rate >= NEAR_CEILING * c]
    if reached:
        return min(reached)[1]
    return "unexplained"


def ladder_end(steps, capacity):
    """The resource that ended the ladder: that of the lowest failing step above the capacity."""
    failed = [s for s in steps if s.get("label") != "warmup" and not s.get("passed") and s["rate"] > (capacity or 0)]
    if not failed:
        return None
    first = min(failed, key=lambda s: s["rate"])
    return {"rate": first["rate"], "resource": first.get("ended_by")}


def application_defaults(service):
    import yaml  # only the settings command needs it (system python3)

    def flatten(tree, prefix=""):
        out = {}
        for key, value in (tree or {}).items():
            path = f"{prefix}.{key}" if prefix else str(key)
            out.update(flatten(value, path) if isinstance(value, dict) and value else {path: value})
        return out

    with open(os.path.join(ROOT, "services", service, "src", "main", "resources", "application.yaml")) as f:
        return flatten(yaml.safe_load(f))


def main(argv):
    if argv[1:] != ["settings"]:
        sys.stderr.write(__doc__)
        return 2
    services = {service for service, _, _ in SETTINGS.values()}
    # the harness's environment: the profile in force (local/profiles/), the environment's own first
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import harness_profile

    name = os.environ.get("HARNESS_PROFILE", "product")
    profile = harness_profile.in_force(name, harness_profile.read(name), os.environ)
    environ = {**{x["name"]: x["value"] for x in profile["settings"]}, **os.environ}
    json.dump(settings_in_force({s: application_defaults(s) for s in services}, environ), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
