#!/usr/bin/env python3
"""Generates the Grafana dashboards in dashboards/*.json (the chart ships them as ConfigMaps).

Dashboards are code here so that ids, layout, the datasource and the namespace variable stay
uniform; edit this file and run `make dashboards`. The tests fail when the JSON and this file
disagree. Every query of our services and exporters selects `namespace="$namespace"`, so one copy
serves every event (one event = one namespace); k6 series carry no namespace and select `testid`.
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DS = {"type": "prometheus", "uid": "${datasource}"}

NS = 'namespace="$namespace"'
API = f'{NS}, application="coupon-api"'
CON = f'{NS}, application="coupon-consumer"'
GROUP = f'{NS}, consumergroup="coupon-consumer"'
# KEDA names the HPA it owns keda-hpa-<ScaledObject>; the chart names both after the release.
HPA = f'{NS}, horizontalpodautoscaler=~"keda-hpa-.*coupon-consumer.*"'
RI = "$__rate_interval"


def q(expr, legend="", instant=False):
    return {"expr": " ".join(expr.split()), "legendFormat": legend, "instant": instant}


class Dashboard:
    def __init__(self, uid, title, description, variables):
        self.uid, self.title, self.description = uid, title, description
        self.variables = variables
        self.panels = []
        self.next_id = 1
        self.x = self.y = 0
        self.row_h = 0

    def _place(self, w, h):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        pos = {"h": h, "w": w, "x": self.x, "y": self.y}
        self.x += w
        self.row_h = max(self.row_h, h)
        return pos

    def row(self, title):
        if self.x:
            self.x, self.y, self.row_h = 0, self.y + self.row_h, 0
        self.panels.append(
            {
                "id": self.next_id,
                "type": "row",
                "title": title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y},
                "panels": [],
            }
        )
        self.next_id += 1
        self.y += 1

    def panel(self, kind, title, description, targets, unit="short", w=12, h=8, extra=None):
        targets = [dict(t, refId=chr(ord("A") + i), datasource=DS) for i, t in enumerate(targets)]
        p = {
            "id": self.next_id,
            "type": kind,
            "title": title,
            "description": description,
            "datasource": DS,
            "gridPos": self._place(w, h),
            "targets": targets,
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        }
        if kind == "timeseries":
            p["fieldConfig"]["defaults"]["custom"] = {"lineWidth": 1, "fillOpacity": 10, "showPoints": "never"}
            p["options"] = {
                "legend": {"displayMode": "list", "placement": "bottom", "showLegend": True},
                "tooltip": {"mode": "multi", "sort": "desc"},
            }
        elif kind == "stat":
            p["options"] = {
                "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                "colorMode": "value",
                "graphMode": "area",
                "textMode": "auto",
            }
        if extra:
            for key, value in extra.items():
                if key == "defaults":
                    p["fieldConfig"]["defaults"].update(value)
                else:
                    p[key] = value
        self.panels.append(p)
        self.next_id += 1

    def ts(self, title, description, targets, unit="short", **kw):
        self.panel("timeseries", title, description, targets, unit, **kw)

    def stat(self, title, description, targets, unit="short", w=4, h=4, **kw):
        self.panel("stat", title, description, targets, unit, w=w, h=h, **kw)

    def to_json(self):
        return {
            "id": None,
            "uid": self.uid,
            "title": self.title,
            "description": self.description,
            "tags": ["coupon-event"],
            "timezone": "browser",
            "editable": True,
            "graphTooltip": 1,
            "schemaVersion": 39,
            "version": 1,
            "refresh": "10s",
            "time": {"from": "now-30m", "to": "now"},
            "annotations": {"list": []},
            "links": [
                {
                    "title": "Coupon event dashboards",
                    "type": "dashboards",
                    "tags": ["coupon-event"],
                    "asDropdown": True,
                    "includeVars": True,
                    "keepTime": True,
                }
            ],
            "templating": {"list": self.variables},
            "panels": self.panels,
        }


def datasource_var():
    return {
        "name": "datasource",
        "label": "Data source",
        "type": "datasource",
        "query": "prometheus",
        "current": {},
        "hide": 0,
        "refresh": 1,
        "regex": "",
        "includeAll": False,
        "multi": False,
    }


def query_var(name, label, query, multi=False, include_all=False, all_value=None):
    v = {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DS,
        "query": {"query": query, "refId": f"{name}-var"},
        "definition": query,
        "current": {},
        "hide": 0,
        "refresh": 2,
        "regex": "",
        "sort": 1,
        "multi": multi,
        "includeAll": include_all,
    }
    if all_value is not None:
        v["allValue"] = all_value
    return v


def namespace_var():
    # Any namespace where a coupon-api runs is an event.
    return query_var(
        "namespace", "Event namespace", 'label_values(process_uptime_seconds{application="coupon-api"}, namespace)'
    )


def quantiles(metric, selector, qs=(0.5, 0.95, 0.99)):
    return [
        q(f"histogram_quantile({x}, sum by (le) (rate({metric}_bucket{{{selector}}}[{RI}])))", f"p{round(x * 100)}")
        for x in qs
    ]


STATE_MAPPING = [
    {"type": "value", "options": {"0": {"text": "FAIL", "color": "red"}, "1": {"text": "OK", "color": "green"}}}
]


# --------------------------------------------------------------------------------- event overview
def event_overview():
    d = Dashboard(
        "coupon-event-overview",
        "Coupon event / Overview",
        "Issuance, persistence, scaling and the health of the parts of one coupon event.",
        [datasource_var(), namespace_var()],
    )
    d.row("At a glance")
    d.stat(
        "Accepted (time range)",
        "Issuance requests answered 202 in the selected time range.",
        [q(f'sum(increase(coupon_issuance_requests_total{{{API}, result="accepted"}}[$__range]))')],
    )
    d.stat(
        "Persisted (time range)",
        "Issued coupons committed to MySQL in the selected time range.",
        [q(f"sum(increase(coupon_consumer_inserted_total{{{CON}}}[$__range]))")],
    )
    d.stat(
        "Pending (consumer lag)",
        "Accepted issuances waiting in Kafka for the consumer (Kafka Exporter).",
        [q(f"sum(kafka_consumergroup_lag{{{GROUP}}})")],
    )
    d.stat(
        "Remaining stock",
        "Sum over the event's coupons of the stock left in Redis.",
        [q(f"sum(max by (coupon) (coupon_stock_remaining{{{API}}}))")],
    )
    d.stat(
        "5xx ratio",
        "Share of coupon-api requests answered 5xx (503 shedding included).",
        [
            q(
                f'sum(rate(http_server_requests_seconds_count{{{API}, status=~"5..", uri!~"/actuator.*"}}[5m]))'
                f' / sum(rate(http_server_requests_seconds_count{{{API}, uri!~"/actuator.*"}}[5m]))'
            )
        ],
        unit="percentunit",
        extra={
            "defaults": {
                "thresholds": {
                    "mode": "absolute",
                    "steps": [{"color": "green", "value": None}, {"color": "red", "value": 0.01}],
                }
            }
        },
    )
    d.stat(
        "Dead-lettered (time range)",
        "Records the consumer sent to the dead-letter topic.",
        [q(f"sum(increase(coupon_dlq_records_total{{{CON}}}[$__range]))")],
        extra={
            "defaults": {
                "thresholds": {
                    "mode": "absolute",
                    "steps": [{"color": "green", "value": None}, {"color": "red", "value": 1}],
                }
            }
        },
    )

    d.row("Issuance")
    d.ts(
        "Issuance requests/s by outcome",
        "accepted, duplicate, sold_out, not_open, closed, paused, not_found, rejected, shed.",
        [q(f"sum by (result) (rate(coupon_issuance_requests_total{{{API}}}[{RI}]))", "{{result}}")],
        "reqps",
    )
    d.ts(
        "Issuance latency (server)",
        "POST /issuances latency from the SLO histogram; SLO p95 < 250 ms.",
        quantiles("coupon_issuance_duration_seconds", API),
        "s",
    )
    d.ts(
        "Remaining stock per coupon",
        "Stock left in Redis, per coupon id.",
        [q(f"max by (coupon) (coupon_stock_remaining{{{API}}})", "coupon {{coupon}}")],
    )
    d.ts(
        "Error and shed ratio",
        "5xx other than 503 must stay at 0; 503 is deliberate load shedding.",
        [
            q(
                f'sum(rate(http_server_requests_seconds_count{{{API}, status=~"5..", status!="503", uri!~"/actuator.*"}}[{RI}]))'
                f' / sum(rate(http_server_requests_seconds_count{{{API}, uri!~"/actuator.*"}}[{RI}]))',
                "5xx (not 503)",
            ),
            q(
                f'sum(rate(coupon_issuance_requests_total{{{API}, result="shed"}}[{RI}]))'
                f" / sum(rate(coupon_issuance_requests_total{{{API}}}[{RI}]))",
                "shed",
            ),
        ],
        "percentunit",
    )

    d.row("Persistence")
    d.ts(
        "Accepted vs persisted /s",
        "What the API accepted and what the consumer committed to MySQL.",
        [
            q(f'sum(rate(coupon_issuance_requests_total{{{API}, result="accepted"}}[{RI}]))', "accepted"),
            q(f"sum(rate(coupon_consumer_inserted_total{{{CON}}}[{RI}]))", "persisted"),
            q(f"sum(rate(coupon_consumer_duplicates_total{{{CON}}}[{RI}]))", "redelivered duplicates"),
        ],
        "ops",
    )
    d.ts(
        "Accepted vs persisted (since pod start), gap = pending",
        "Counters since the pods started; the gap is what the consumer has not written yet.",
        [
            q(f'sum(coupon_issuance_requests_total{{{API}, result="accepted"}})', "accepted"),
            q(f"sum(coupon_consumer_inserted_total{{{CON}}})", "persisted"),
            q(
                f'sum(coupon_issuance_requests_total{{{API}, result="accepted"}}) - sum(coupon_consumer_inserted_total{{{CON}}})',
                "gap (pending)",
            ),
        ],
    )
    d.ts(
        "Consumer lag per partition",
        "Kafka Exporter lag of group coupon-consumer.",
        [
            q(f"sum by (partition) (kafka_consumergroup_lag{{{GROUP}}})", "partition {{partition}}"),
            q(f"sum(kafka_consumergroup_lag{{{GROUP}}})", "total"),
        ],
    )
    d.ts(
        "Persist rate and batch size",
        "Rows committed per second and the average listener batch size.",
        [
            q(f"sum(rate(coupon_consumer_inserted_total{{{CON}}}[{RI}]))", "rows/s"),
            q(
                f"sum(rate(coupon_consumer_batch_size_sum{{{CON}}}[{RI}])) / sum(rate(coupon_consumer_batch_size_count{{{CON}}}[{RI}]))",
                "avg batch size",
            ),
        ],
    )
    d.ts(
        "Persist delay (reservedAt → row committed)",
        "Time from the Redis reservation to the MySQL commit.",
        quantiles("coupon_persist_delay_seconds", CON),
        "s",
    )
    d.ts(
        "Consumer replicas (KEDA)",
        "Deployment replicas (kube-state-metrics), the HPA KEDA drives, and scraped pods.",
        [
            q(
                f'sum(kube_deployment_status_replicas{{{NS}, deployment=~".*coupon-consumer.*"}})',
                "deployment replicas",
            ),
            q(f"max(kube_horizontalpodautoscaler_status_current_replicas{{{HPA}}})", "HPA current"),
            q(f"max(kube_horizontalpodautoscaler_status_desired_replicas{{{HPA}}})", "HPA desired"),
            q(f"max(kube_horizontalpodautoscaler_spec_max_replicas{{{HPA}}})", "HPA max"),
            q(f'count(up{{{NS}, job=~".*coupon-consumer.*"}} == 1)', "pods scraped"),
        ],
    )
    d.ts(
        "Dead-letter topic",
        "Records in the dead-letter topic (Kafka Exporter offsets) and the rate they arrive.",
        [
            q(
                f'sum(kafka_topic_partition_current_offset{{{NS}, topic=~".*-dlt"}}) - sum(kafka_topic_partition_oldest_offset{{{NS}, topic=~".*-dlt"}})',
                "records in DLT",
            ),
            q(f"sum by (reason) (rate(coupon_dlq_records_total{{{CON}}}[{RI}]))", "{{reason}} /s"),
        ],
    )
    d.ts(
        "Compensations and reconciler actions",
        "Stock given back after a failed send, and what the reconciler corrected.",
        [
            q(f"sum by (reason) (increase(coupon_compensations_total{{{API}}}[{RI}]))", "compensation {{reason}}"),
            q(f"sum by (action) (increase(coupon_reconciler_actions_total{{{API}}}[{RI}]))", "reconciler {{action}}"),
        ],
    )

    d.row("Infrastructure (details on Coupon event / Infrastructure)")
    d.stat("Kafka brokers", "Brokers in the cluster (Kafka Exporter).", [q(f"max(kafka_brokers{{{NS}}})")], w=6)
    d.stat(
        "Under-replicated partitions",
        "Partitions below their replication factor (Kafka Exporter).",
        [q(f"sum(kafka_topic_partition_under_replicated_partition{{{NS}}})")],
        w=6,
        extra={
            "defaults": {
                "thresholds": {
                    "mode": "absolute",
                    "steps": [{"color": "green", "value": None}, {"color": "red", "value": 1}],
                }
            }
        },
    )
    d.stat(
        "Redis cluster state",
        "Worst cluster_state over the Redis nodes (redis_exporter).",
        [q(f"min(redis_cluster_state{{{NS}}})")],
        w=6,
        extra={"defaults": {"mappings": STATE_MAPPING}},
    )
    d.stat(
        "MySQL up",
        "mysqld_exporter can reach MySQL.",
        [q(f"min(mysql_up{{{NS}}})")],
        w=6,
        extra={"defaults": {"mappings": STATE_MAPPING}},
    )
    return d


# --------------------------------------------------------------------------------------- services
def services():
    sel = f'{NS}, application="$application", instance=~"$instance"'
    d = Dashboard(
        "coupon-event-services",
        "Coupon event / Services",
        "JVM, HTTP server, Kafka clients, Lettuce and HikariCP of coupon-api and coupon-consumer.",
        [
            datasource_var(),
            namespace_var(),
            {
                "name": "application",
                "label": "Service",
                "type": "custom",
                "query": "coupon-api,coupon-consumer",
                "current": {"text": "coupon-api", "value": "coupon-api"},
                "options": [
                    {"text": "coupon-api", "value": "coupon-api", "selected": True},
                    {"text": "coupon-consumer", "value": "coupon-consumer", "selected": False},
                ],
                "hide": 0,
                "multi": False,
                "includeAll": False,
            },
            query_var(
                "instance",
                "Instance",
                'label_values(process_uptime_seconds{namespace="$namespace", application="$application"}, instance)',
                multi=True,
                include_all=True,
                all_value=".*",
            ),
        ],
    )
    d.row("JVM")
    d.ts(
        "Heap",
        "Heap used and committed per instance, and the limit.",
        [
            q(f'sum by (instance) (jvm_memory_used_bytes{{{sel}, area="heap"}})', "used {{instance}}"),
            q(f'sum by (instance) (jvm_memory_committed_bytes{{{sel}, area="heap"}})', "committed {{instance}}"),
            q(f'max(sum by (instance) (jvm_memory_max_bytes{{{sel}, area="heap"}}))', "max"),
        ],
        "bytes",
    )
    d.ts(
        "GC pauses",
        "Share of time in GC pauses, and the longest recent pause.",
        [
            q(f"sum by (instance) (rate(jvm_gc_pause_seconds_sum{{{sel}}}[{RI}]))", "paused share {{instance}}"),
            q(f"max by (instance) (jvm_gc_pause_seconds_max{{{sel}}})", "max pause {{instance}}"),
        ],
        "s",
    )
    d.ts(
        "Threads",
        "Platform threads by state, live and daemon (virtual threads are not platform threads).",
        [
            q(f"sum by (state) (jvm_threads_states_threads{{{sel}}})", "{{state}}"),
            q(f"sum(jvm_threads_live_threads{{{sel}}})", "live"),
            q(f"sum(jvm_threads_daemon_threads{{{sel}}})", "daemon"),
        ],
    )
    d.ts(
        "CPU",
        "Process CPU per instance and the machine's CPU.",
        [
            q(f"max by (instance) (process_cpu_usage{{{sel}}})", "process {{instance}}"),
            q(f"max by (instance) (system_cpu_usage{{{sel}}})", "system {{instance}}"),
        ],
        "percentunit",
    )

    d.row("HTTP server")
    d.ts(
        "Requests/s by route and status",
        "Spring MVC requests, actuator excluded.",
        [
            q(
                f'sum by (uri, status) (rate(http_server_requests_seconds_count{{{sel}, uri!~"/actuator.*"}}[{RI}]))',
                "{{status}} {{uri}}",
            )
        ],
        "reqps",
    )
    d.ts(
        "Latency by route",
        "Average and maximum latency per route.",
        [
            q(
                f'sum by (uri) (rate(http_server_requests_seconds_sum{{{sel}, uri!~"/actuator.*"}}[{RI}]))'
                f' / sum by (uri) (rate(http_server_requests_seconds_count{{{sel}, uri!~"/actuator.*"}}[{RI}]))',
                "avg {{uri}}",
            ),
            q(f'max by (uri) (http_server_requests_seconds_max{{{sel}, uri!~"/actuator.*"}})', "max {{uri}}"),
        ],
        "s",
    )

    d.row("Kafka clients")
    d.ts(
        "Producer records/s and errors",
        "Issuance events sent (coupon-api) and failed sends.",
        [
            q(f"sum by (instance) (rate(kafka_producer_record_send_total{{{sel}}}[{RI}]))", "sent {{instance}}"),
            q(f"sum by (instance) (rate(kafka_producer_record_error_total{{{sel}}}[{RI}]))", "errors {{instance}}"),
        ],
        "ops",
    )
    d.ts(
        "Producer request latency",
        "Broker round trip of produce requests (acks=all).",
        [
            q(f"max by (instance) (kafka_producer_request_latency_avg{{{sel}}}) / 1000", "avg {{instance}}"),
            q(f"max by (instance) (kafka_producer_request_latency_max{{{sel}}}) / 1000", "max {{instance}}"),
        ],
        "s",
    )
    d.ts(
        "Consumer records/s",
        "Records fetched by the listener containers (coupon-consumer).",
        [
            q(
                f"sum by (instance) (rate(kafka_consumer_fetch_manager_records_consumed_total{{{sel}}}[{RI}]))",
                "{{instance}}",
            )
        ],
        "ops",
    )
    d.ts(
        "Consumer lag (client view)",
        "Largest partition lag each consumer sees.",
        [q(f"max by (instance) (kafka_consumer_fetch_manager_records_lag_max{{{sel}}})", "{{instance}}")],
    )

    d.row("Redis (Lettuce) and MySQL (HikariCP)")
    # Lettuce 7 under Spring Boot 4 records commands through the Observation API ("lettuce" timer,
    # db_operation tag); the older lettuce_command_completion_* meters are not published.
    d.ts(
        "Lettuce command latency",
        "Average and maximum completion time per Redis command (coupon-api).",
        [
            q(
                f"sum by (db_operation) (rate(lettuce_seconds_sum{{{sel}}}[{RI}]))"
                f" / sum by (db_operation) (rate(lettuce_seconds_count{{{sel}}}[{RI}]))",
                "avg {{db_operation}}",
            ),
            q(f"max by (db_operation) (lettuce_seconds_max{{{sel}}})", "max {{db_operation}}"),
        ],
        "s",
    )
    d.ts(
        "HikariCP connections",
        "Active, idle and pending connections and the pool size.",
        [
            q(f"sum(hikaricp_connections_active{{{sel}}})", "active"),
            q(f"sum(hikaricp_connections_idle{{{sel}}})", "idle"),
            q(f"sum(hikaricp_connections_pending{{{sel}}})", "pending"),
            q(f"sum(hikaricp_connections_max{{{sel}}})", "max"),
        ],
    )
    d.ts(
        "HikariCP acquire time and timeouts",
        "Average wait for a connection; timeouts must stay at 0.",
        [
            q(
                f"sum(rate(hikaricp_connections_acquire_seconds_sum{{{sel}}}[{RI}])) / sum(rate(hikaricp_connections_acquire_seconds_count{{{sel}}}[{RI}]))",
                "avg acquire",
            ),
            q(f"sum(rate(hikaricp_connections_timeout_total{{{sel}}}[{RI}]))", "timeouts/s"),
        ],
        "s",
    )
    return d


# -------------------------------------------------------------------------------------- load test
def load_test():
    k6 = 'testid=~"$testid"'
    d = Dashboard(
        "coupon-event-load-test",
        "Coupon event / Load test",
        "k6 results (Prometheus remote write, K6_PROMETHEUS_RW_TREND_STATS=p(50),p(95),p(99), as loadtests/run.sh sets it) next to the server view.",
        [
            datasource_var(),
            namespace_var(),
            query_var(
                "testid", "k6 test id", "label_values(k6_vus, testid)", multi=True, include_all=True, all_value=".*"
            ),
        ],
    )
    d.row("k6 (client side)")
    d.ts(
        "Virtual users",
        "Active and maximum VUs.",
        [q(f"sum(k6_vus{{{k6}}})", "vus"), q(f"sum(k6_vus_max{{{k6}}})", "vus max")],
    )
    d.ts(
        "HTTP requests/s by status",
        "Every request k6 sent.",
        [q(f"sum by (status) (rate(k6_http_reqs_total{{{k6}}}[{RI}]))", "{{status}}")],
        "reqps",
    )
    d.ts(
        "HTTP request duration (client)",
        "k6 trend stats, in seconds.",
        [
            q(f"max(k6_http_req_duration_p50{{{k6}}})", "p50"),
            q(f"max(k6_http_req_duration_p95{{{k6}}})", "p95"),
            q(f"max(k6_http_req_duration_p99{{{k6}}})", "p99"),
        ],
        "s",
    )
    d.ts(
        "Issuance outcomes/s (client)",
        "Custom counters of the issuance scenario.",
        [
            q(f"sum(rate(k6_issuance_accepted_total{{{k6}}}[{RI}]))", "accepted"),
            q(f"sum(rate(k6_issuance_duplicate_total{{{k6}}}[{RI}]))", "duplicate"),
            q(f"sum(rate(k6_issuance_sold_out_total{{{k6}}}[{RI}]))", "sold out"),
            q(f"sum(rate(k6_issuance_not_open_total{{{k6}}}[{RI}]))", "not open"),
            q(f"sum(rate(k6_issuance_shed_total{{{k6}}}[{RI}]))", "shed (retried)"),
            q(f"sum(rate(k6_issuance_gave_up_total{{{k6}}}[{RI}]))", "gave up"),
        ],
        "reqps",
    )
    d.ts(
        "Issuance duration and time to ISSUED (client)",
        "POST latency and the time until status ISSUED, in seconds.",
        [
            q(f"max(k6_issuance_duration_p95{{{k6}}})", "issuance p95"),
            q(f"max(k6_issuance_duration_p99{{{k6}}})", "issuance p99"),
            q(f"max(k6_time_to_issued_p95{{{k6}}})", "time to issued p95"),
            q(f"max(k6_time_to_issued_p99{{{k6}}})", "time to issued p99"),
        ],
        "s",
    )
    d.ts(
        "Failures, checks and dropped iterations",
        "Failed-request rate, passed-check rate, iterations k6 could not start.",
        [
            q(f"max(k6_http_req_failed_rate{{{k6}}})", "http_req_failed"),
            q(f"min(k6_checks_rate{{{k6}}})", "checks passed"),
            q(f"sum(rate(k6_dropped_iterations_total{{{k6}}}[{RI}]))", "dropped iterations/s"),
        ],
    )
    d.row("Server side (same time range)")
    d.ts(
        "Issuance outcomes/s (server)",
        "What coupon-api answered.",
        [q(f"sum by (result) (rate(coupon_issuance_requests_total{{{API}}}[{RI}]))", "{{result}}")],
        "reqps",
    )
    d.ts(
        "Issuance latency (server)", "From the SLO histogram.", quantiles("coupon_issuance_duration_seconds", API), "s"
    )
    d.ts(
        "Consumer lag and persist rate",
        "Backlog in Kafka and rows written per second.",
        [
            q(f"sum(kafka_consumergroup_lag{{{GROUP}}})", "lag"),
            q(f"sum(rate(coupon_consumer_inserted_total{{{CON}}}[{RI}]))", "persisted/s"),
        ],
    )
    d.ts(
        "Consumer replicas",
        "Pods scraped and the replicas KEDA asks for.",
        [
            q(f'count(up{{{NS}, job=~".*coupon-consumer.*"}} == 1)', "pods scraped"),
            q(f"max(kube_horizontalpodautoscaler_status_desired_replicas{{{HPA}}})", "HPA desired"),
        ],
    )
    return d


# --------------------------------------------------------------------------------- waiting room
def waiting_room():
    # Meters of coupon-waiting-room, tagged by zone. Every pod reports a zone's queue length and
    # state read from Redis (max over pods); counters and timers are per pod (summed).
    wr = f'{NS}, zone=~"$zone"'
    d = Dashboard(
        "coupon-event-waiting-room",
        "Coupon event / Waiting room",
        "The queue in front of the issuance API: length, admissions against the budget, ETA accuracy, leavers, poll latency.",
        [
            datasource_var(),
            namespace_var(),
            query_var(
                "zone",
                "Zone",
                f"label_values(coupon_waiting_room_queue_length{{{NS}}}, zone)",
                multi=True,
                include_all=True,
                all_value=".*",
            ),
        ],
    )
    d.row("Queue")
    d.stat(
        "Waiting users",
        "Users queued over the selected zones.",
        [q(f"sum(max by (zone) (coupon_waiting_room_queue_length{{{wr}}}))")],
        w=6,
    )
    d.stat(
        "Zones queueing",
        "Zones whose queue is on (arrivals above the budget, or mode on).",
        [q(f"sum(max by (zone) (coupon_waiting_room_active{{{wr}}}))")],
        w=6,
    )
    d.stat(
        "Admitted/min",
        "Users let in per minute over the selected zones.",
        [q(f"sum(rate(coupon_waiting_room_admitted_total{{{wr}}}[{RI}])) * 60")],
        w=6,
    )
    d.stat(
        "Joined/min",
        "Users joining per minute (first arrivals and re-joins).",
        [q(f"sum(rate(coupon_waiting_room_joined_total{{{wr}}}[{RI}])) * 60")],
        w=6,
    )
    d.ts(
        "Queue length per zone",
        "Users waiting; it should fall once arrivals drop below the budget.",
        [q(f"max by (zone) (coupon_waiting_room_queue_length{{{wr}}})", "{{zone}}")],
    )
    d.ts(
        "Admit and join rate per zone",
        "Users per minute let in (at most the zone's budget while queueing) and joining.",
        [
            q(f"sum by (zone) (rate(coupon_waiting_room_admitted_total{{{wr}}}[{RI}])) * 60", "admitted {{zone}}"),
            q(f"sum by (zone) (rate(coupon_waiting_room_joined_total{{{wr}}}[{RI}])) * 60", "joined {{zone}}"),
        ],
    )
    d.row("Accuracy, leavers, latency")
    d.ts(
        "ETA error at admission",
        "|actual - estimated wait| / estimated wait of the users admitted: mean and worst.",
        [
            q(
                f"sum by (zone) (rate(coupon_waiting_room_eta_error_ratio_sum{{{wr}}}[{RI}])) "
                f"/ sum by (zone) (rate(coupon_waiting_room_eta_error_ratio_count{{{wr}}}[{RI}]))",
                "mean {{zone}}",
            ),
            q(f"max by (zone) (coupon_waiting_room_eta_error_ratio_max{{{wr}}})", "max {{zone}}"),
        ],
        "percentunit",
    )
    d.ts(
        "Purged leavers and sold-out answers",
        "Users purged after they stopped polling, and users told the coupon is sold out, per second.",
        [
            q(f"sum by (zone) (rate(coupon_waiting_room_purged_total{{{wr}}}[{RI}]))", "purged {{zone}}"),
            q(f"sum by (zone) (rate(coupon_waiting_room_sold_out_total{{{wr}}}[{RI}]))", "sold out {{zone}}"),
        ],
        "ops",
    )
    d.ts(
        "Poll and join latency p95",
        "Server time of a poll (one Lua call) and of a join; target p95 <= 50 ms.",
        [
            q(
                f"histogram_quantile(0.95, sum by (le) (rate(coupon_waiting_room_poll_seconds_bucket{{{wr}}}[{RI}])))",
                "poll p95",
            ),
            q(
                f"histogram_quantile(0.95, sum by (le) (rate(coupon_waiting_room_join_seconds_bucket{{{wr}}}[{RI}])))",
                "join p95",
            ),
        ],
        "s",
    )
    d.ts(
        "Polls per second",
        "Poll load; it stays bounded because users further back are told to poll less often.",
        [q(f"sum by (zone) (rate(coupon_waiting_room_poll_seconds_count{{{wr}}}[{RI}]))", "{{zone}}")],
        "reqps",
    )
    return d


# --------------------------------------------------------------------------------- infrastructure
def infrastructure():
    d = Dashboard(
        "coupon-event-infrastructure",
        "Coupon event / Infrastructure",
        "Strimzi Kafka (Kafka Exporter + broker JMX exporter), Redis Cluster (redis_exporter), MySQL (mysqld_exporter).",
        [datasource_var(), namespace_var()],
    )
    thr_red_at_1 = {
        "defaults": {
            "thresholds": {
                "mode": "absolute",
                "steps": [{"color": "green", "value": None}, {"color": "red", "value": 1}],
            }
        }
    }
    d.row("Kafka")
    d.stat("Brokers", "Kafka Exporter.", [q(f"max(kafka_brokers{{{NS}}})")])
    d.stat(
        "Active controllers",
        "Must be exactly 1 (broker JMX, Strimzi example rules).",
        [q(f"sum(kafka_controller_kafkacontroller_activecontrollercount{{{NS}}})")],
    )
    d.stat(
        "Offline partitions",
        "Partitions without a leader.",
        [q(f"sum(kafka_controller_kafkacontroller_offlinepartitionscount{{{NS}}})")],
        extra=thr_red_at_1,
    )
    d.stat(
        "Under-replicated (JMX)",
        "Sum over brokers of UnderReplicatedPartitions.",
        [q(f"sum(kafka_server_replicamanager_underreplicatedpartitions{{{NS}}})")],
        extra=thr_red_at_1,
    )
    d.stat(
        "Under-replicated (exporter)",
        "Partitions flagged by Kafka Exporter.",
        [q(f"sum(kafka_topic_partition_under_replicated_partition{{{NS}}})")],
        extra=thr_red_at_1,
    )
    d.stat(
        "Consumer group members",
        "Members of group coupon-consumer.",
        [q(f"sum(kafka_consumergroup_members{{{GROUP}}})")],
    )
    d.ts(
        "Messages in/s by topic",
        "Broker JMX BrokerTopicMetrics.",
        [
            q(
                f'sum by (topic) (rate(kafka_server_brokertopicmetrics_messagesin_total{{{NS}, topic!=""}}[{RI}]))',
                "{{topic}}",
            )
        ],
        "ops",
    )
    d.ts(
        "Consumer lag by group and topic",
        "Kafka Exporter.",
        [q(f"sum by (consumergroup, topic) (kafka_consumergroup_lag{{{NS}}})", "{{consumergroup}} {{topic}}")],
    )
    d.ts(
        "In-sync replicas (min per topic)",
        "Below 2 (min.insync.replicas) producers with acks=all fail.",
        [
            q(f"min by (topic) (kafka_topic_partition_in_sync_replica{{{NS}}})", "{{topic}}"),
            q(f"max(kafka_topic_partition_replicas{{{NS}}})", "replication factor"),
        ],
    )
    d.ts(
        "Partitions per broker",
        "Partitions and leaders per broker (JMX).",
        [
            q(f"sum by (pod) (kafka_server_replicamanager_partitioncount{{{NS}}})", "partitions {{pod}}"),
            q(f"sum by (pod) (kafka_server_replicamanager_leadercount{{{NS}}})", "leaders {{pod}}"),
        ],
    )
    d.row("Redis Cluster")
    d.stat(
        "Cluster state",
        "Worst cluster_state over the nodes.",
        [q(f"min(redis_cluster_state{{{NS}}})")],
        w=6,
        extra={"defaults": {"mappings": STATE_MAPPING}},
    )
    d.stat("Nodes up", "Redis nodes the exporters reach.", [q(f"sum(redis_up{{{NS}}})")], w=6)
    d.stat(
        "Known nodes",
        "Cluster members as CLUSTER INFO reports them.",
        [q(f"max(redis_cluster_known_nodes{{{NS}}})")],
        w=6,
    )
    d.stat("Slots OK", "Hash slots served (16384 when healthy).", [q(f"min(redis_cluster_slots_ok{{{NS}}})")], w=6)
    d.ts(
        "Commands/s per node",
        "",
        [q(f"sum by (instance) (rate(redis_commands_processed_total{{{NS}}}[{RI}]))", "{{instance}}")],
        "ops",
        w=8,
    )
    d.ts(
        "Memory used per node",
        "",
        [q(f"sum by (instance) (redis_memory_used_bytes{{{NS}}})", "{{instance}}")],
        "bytes",
        w=8,
    )
    d.ts(
        "Connected clients per node",
        "",
        [q(f"sum by (instance) (redis_connected_clients{{{NS}}})", "{{instance}}")],
        w=8,
    )
    d.row("MySQL")
    d.stat(
        "MySQL up",
        "mysqld_exporter reaches MySQL.",
        [q(f"min(mysql_up{{{NS}}})")],
        w=6,
        extra={"defaults": {"mappings": STATE_MAPPING}},
    )
    d.stat("Max connections", "", [q(f"max(mysql_global_variables_max_connections{{{NS}}})")], w=6)
    d.stat("Threads connected", "", [q(f"sum(mysql_global_status_threads_connected{{{NS}}})")], w=6)
    d.stat("Threads running", "", [q(f"sum(mysql_global_status_threads_running{{{NS}}})")], w=6)
    d.ts(
        "Queries and inserts/s",
        "",
        [
            q(f"sum(rate(mysql_global_status_queries{{{NS}}}[{RI}]))", "queries"),
            q(f'sum(rate(mysql_global_status_commands_total{{{NS}, command="insert"}}[{RI}]))', "inserts"),
        ],
        "ops",
    )
    d.ts(
        "Row lock waits and slow queries/s",
        "",
        [
            q(f"sum(rate(mysql_global_status_innodb_row_lock_waits{{{NS}}}[{RI}]))", "row lock waits"),
            q(f"sum(rate(mysql_global_status_slow_queries{{{NS}}}[{RI}]))", "slow queries"),
        ],
        "ops",
    )
    return d


DASHBOARDS = {
    "event-overview.json": event_overview,
    "services.json": services,
    "load-test.json": load_test,
    "infrastructure.json": infrastructure,
    "waiting-room.json": waiting_room,
}


def render(build):
    return json.dumps(build().to_json(), indent=2) + "\n"


def main(argv):
    out = ROOT / "dashboards"
    check = "--check" in argv
    stale = []
    for name, build in DASHBOARDS.items():
        text = render(build)
        path = out / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("stale dashboards (run `make dashboards`): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
