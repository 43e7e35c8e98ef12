"""The fault scenarios: the faults themselves (killed, stopped, flushed, scaled processes) and the
table of scenarios, with the waiting room's (room_faults.py) and the stores' (store_faults.py).
"""

import signal
import time
import types

import room_faults
import store_faults
from checks import (
    CALM_RATE,
    CALM_S,
    OVERLOAD_ADMISSION_WAIT,
    OVERLOAD_BOUND,
    OVERLOAD_RATE,
    OVERLOAD_S,
    OVERLOAD_TIMEOUT_S,
    backlog_drained,
    every_request_answered,
    failover_bounded,
    issuance_unaffected,
    measure_overload,
    overload_checks,
    overloaded,
    sheds_fast,
    stale_released,
)
from harness import (
    ADMIN,
    BURST_OFFSET,
    KAFKA_LEADERS_MOVED,
    OFFSET,
    SETTINGS,
    http,
    infra,
    kafka_quorum_leader,
    pid_of,
    ready,
    scrape,
    services,
    signal_pid,
    tokens,
)
from load import REDIS_PORTS, Scenario, read_requests

# ---- the faults -----------------------------------------------------------------------------------


def kafka_node_down(nodes, down_s):
    """SIGKILLs Kafka nodes (brokers 1-3; "quorum-leader": the active controller) and restarts them
    down_s later."""

    def inject(run):
        run.at(15)
        # The controllers are dedicated (docs/decisions/0050): no broker's loss takes the active
        # controller with it. The report says which node led the quorum.
        leader = kafka_quorum_leader()
        if nodes == "quorum-leader":
            if leader is None:
                raise RuntimeError("no controller recorded a quorum leader")
            killed = [leader]
        else:
            killed = nodes
        pids = [signal_pid(f"kafka-{n}", signal.SIGKILL) for n in killed]
        run.notes["kafka"] = {"quorum_leader": leader, "killed_quorum_leader": leader in killed}
        run.mark(
            "fault",
            f"SIGKILL kafka node(s) {','.join(map(str, killed))} (pid {','.join(map(str, pids))}); "
            f"quorum leader {leader}",
        )
        run.at(15 + down_s)
        run.mark("restart", "local/infra.sh kafka-start " + " ".join(map(str, killed)))
        infra("kafka-start", *map(str, killed))
        KAFKA_LEADERS_MOVED[0] = True
        run.mark("restored", "every partition fully replicated again")

    return inject


def consumer_killed_mid_batch(run):
    # Stop the consumer for 10 s so that a backlog builds, let it go and kill it 0.5 s later: it is
    # then inside the batches of that backlog (rows written, offsets not yet committed, or both).
    run.at(15)
    signal_pid("consumer", signal.SIGSTOP)
    run.mark("paused", "SIGSTOP consumer: a backlog builds")
    run.at(25)
    signal_pid("consumer", signal.SIGCONT)
    time.sleep(0.5)
    pid = pid_of("consumer")
    services("kill", "consumer")
    run.mark("fault", f"SIGCONT then SIGKILL consumer (pid {pid}) 0.5 s into its backlog")
    run.mark("restart", "local/services.sh up consumer")
    services("up", "consumer")
    run.mark("restored", "consumer ready")


def mariadb_down(down_s):
    def inject(run):
        run.at(15)
        pid = pid_of("mariadb")
        infra("mariadb-stop")
        run.mark("fault", f"MariaDB stopped (SIGTERM, pid {pid}) for {down_s} s")
        run.at(15 + down_s)
        infra("mariadb-start")
        run.mark("restored", "MariaDB answers again")

    return inject


def mariadb_read_only(read_only_s):
    def inject(run):
        # What a managed MySQL answers right after a failover demotes the writer: reads work, every
        # write fails with error 1290 until the new writer takes them.
        run.at(15)
        infra("mariadb-read-only", "on")
        run.mark("fault", f"MariaDB read-only (writes refused with error 1290) for {read_only_s} s")
        run.at(15 + read_only_s)
        infra("mariadb-read-only", "off")
        run.mark("restored", "MariaDB writable again")

    return inject


def redis_master_killed(run):
    run.at(15)
    port = infra("redis-master-of", f"{{coupon:{run.coupon}}}:meta")
    pid = pid_of(f"redis-{port}")
    infra("redis-kill", port)
    run.notes["redis_port"] = port
    run.mark("fault", f"SIGKILL the Redis master of the coupon's slot, :{port} (pid {pid})")
    infra("redis-wait-failover", port, "120")
    run.mark("failed_over", "every slot served by a live master")
    # Down for 20 s more (the client must find the new master by itself), then back, as a
    # restarted pod comes back: it rejoins as a replica, and the client reconnects to it.
    run.at(time.time() - run.t0 + 20)
    infra("redis-start", port)
    run.mark("restored", f"node :{port} back as a replica")


def redis_flushed(run):
    run.at(15)
    infra("redis-flush")
    run.mark("fault", "FLUSHALL on every master")


def api_killed(run):
    # One of two API processes behind the harness's Service (local/services.sh lb), as the chart
    # runs at least two pods. To kill it while requests sit between their reservation and their send,
    # the sends are made slow first: a burst of users arrives and one broker is paused (SIGSTOP) for
    # the second before the kill, so acks=all waits and every request in flight holds a reservation
    # whose record is still in the producer. One second, short of the 2 s send timeout: api-2's
    # sends are slowed, not timed out (a broker's stall is kafka-broker's fault). The Service sends
    # new requests to api-2 meanwhile.
    run.at(19)
    run.wave(
        "burst",
        "spike.js",
        {
            "VUS": 150,
            "USERS": 150,
            "RAMP": "1s",
            "RETRY_FRACTION": 0,
            "POLL_INTERVAL": 0,
            "SHED_RETRIES": 0,
            "USER_OFFSET": BURST_OFFSET,
        },
    )
    run.at(20.5)
    signal_pid("kafka-3", signal.SIGSTOP)
    run.mark("slow_sends", "SIGSTOP kafka node 3: sends wait for its acks")
    run.at(21.5)
    pid = pid_of("api")
    services("kill", "api")
    run.mark("fault", f"SIGKILL coupon-api (pid {pid}) with requests between reservation and send")
    signal_pid("kafka-3", signal.SIGCONT)
    run.mark("restart", "SIGCONT kafka node 3; local/services.sh up api")
    services("up", "api")
    run.mark("restored", "api ready")


def consumers_scaled(run):
    run.at(5)
    run.mark("fault", "scale out: start consumer-2, consumer-3 (same group, cooperative-sticky)")
    services("up", "consumer-2", "consumer-3")
    run.mark("scaled_out", "3 consumer processes in the group")
    run.at(max(time.time() - run.t0 + 10, 55))
    services("down", "consumer-2")
    run.mark("scale_in_1", "consumer-2 stopped (SIGTERM, as KEDA removes a pod)")
    run.at(time.time() - run.t0 + 10)
    services("down", "consumer-3")
    run.mark("restored", "consumer-3 stopped: back to one consumer")


SCENARIOS = [
    Scenario(
        "kafka-broker",
        "One Kafka broker SIGKILLed mid-spike, restarted 30 s later",
        "short",
        quantity=400,
        rate=8,
        duration=75,
        inject=kafka_node_down([2], 30),
        checks=lambda r, s: every_request_answered(r, s),
    ),
    Scenario(
        "kafka-controller",
        "The active KRaft controller SIGKILLed mid-spike, restarted 30 s later",
        "short",
        quantity=400,
        rate=8,
        duration=75,
        inject=kafka_node_down("quorum-leader", 30),
        checks=issuance_unaffected,
    ),
    Scenario(
        "kafka-two-brokers",
        "Two Kafka brokers SIGKILLed (no quorum, no ISR), restarted 30 s later",
        "long",
        quantity=400,
        rate=8,
        duration=100,
        inject=kafka_node_down([2, 3], 30),
        checks=sheds_fast,
    ),
    Scenario(
        "consumer-kill",
        "The consumer SIGKILLed mid-batch (inside a backlog) and restarted",
        "short",
        quantity=500,
        rate=10,
        duration=60,
        inject=consumer_killed_mid_batch,
        checks=issuance_unaffected,
    ),
    Scenario(
        "mariadb-down",
        "MariaDB stopped for 30 s under load",
        "short",
        quantity=500,
        rate=10,
        duration=70,
        inject=mariadb_down(30),
        checks=backlog_drained,
    ),
    Scenario(
        "mariadb-read-only",
        "MariaDB read-only for 20 s under load (writes refused, error 1290)",
        "short",
        quantity=400,
        rate=10,
        duration=50,
        inject=mariadb_read_only(20),
        checks=backlog_drained,
    ),
    Scenario(
        "redis-failover",
        "The Redis master of the coupon SIGKILLed: failover to its replica",
        "long",
        quantity=600,
        rate=10,
        duration=90,
        inject=redis_master_killed,
        checks=failover_bounded,
    ),
    Scenario(
        "redis-flush",
        "Redis flushed entirely mid-event",
        "short",
        quantity=400,
        rate=10,
        duration=50,
        inject=redis_flushed,
        checks=lambda r, s: every_request_answered(r, s),
    ),
    Scenario(
        "api-kill",
        "One of two coupon-api processes SIGKILLed between reservation and send, restarted",
        "short",
        quantity=400,
        rate=8,
        duration=70,
        inject=api_killed,
        checks=stale_released,
        api_instances=2,
    ),
    Scenario(
        "consumer-scale",
        "Consumers scaled out to 3 and back in during the spike",
        "long",
        quantity=900,
        rate=10,
        duration=100,
        inject=consumers_scaled,
        checks=issuance_unaffected,
    ),
    # Every request of the main wave is a new user and the stock never sells out in it, so each one
    # travels the whole path (Redis, Kafka); the late wave sells what is left. No retries: the
    # arrival rate is the load. VUs for 3 s of arrivals: with fewer, k6 runs out of them while the
    # CPU is saturated, drops arrivals and never fills the API's admission bound.
    Scenario(
        "overload",
        f"Arrivals at about twice what the API takes ({OVERLOAD_RATE}/s, max-in-flight "
        f"{OVERLOAD_BOUND}) for {OVERLOAD_S} s, then {CALM_RATE}/s",
        "long",
        quantity=OVERLOAD_RATE * (OVERLOAD_S + 1) + CALM_RATE * (CALM_S + 1),
        rate=OVERLOAD_RATE,
        duration=OVERLOAD_S + CALM_S,
        inject=overloaded,
        checks=overload_checks,
        measure=measure_overload,
        wave_env={
            "STAGES": f"{OVERLOAD_RATE}:{OVERLOAD_S}s,{CALM_RATE}:{CALM_S}s",
            "SHED_RETRIES": 0,
            "MAX_VUS": max(300, OVERLOAD_RATE * 3),
            "REQUEST_TIMEOUT": f"{OVERLOAD_TIMEOUT_S}s",
        },
        settle_timeout=300,
        api_args=f"--coupon.issuance.max-in-flight={OVERLOAD_BOUND} "
        f"--coupon.issuance.admission-wait={OVERLOAD_ADMISSION_WAIT}",
    ),
]
# What room_faults.py and store_faults.py build their scenarios from (their `f`).
KIT = types.SimpleNamespace(
    ADMIN=ADMIN,
    OFFSET=OFFSET,
    REDIS_PORTS=REDIS_PORTS,
    SETTINGS=SETTINGS,
    Scenario=Scenario,
    every_request_answered=every_request_answered,
    http=http,
    infra=infra,
    pid_of=pid_of,
    read_requests=read_requests,
    ready=ready,
    scrape=scrape,
    services=services,
    signal_pid=signal_pid,
    tokens=tokens,
)
# the waiting room's scenarios (room_faults.py): killed and failed over, flooded with unknown ids
SCENARIOS += room_faults.scenarios(KIT)
# the stores' scenarios (store_faults.py): a Redis master lost while its replica lags, a quantity lowered
SCENARIOS += store_faults.scenarios(KIT)
