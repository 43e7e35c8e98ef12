"""The machine under the harness: busy cores, waiting for a quiet machine, CPU per role (machine.py)."""

import subprocess
import sys

from verifier import machine


def spinning():
    """A process that keeps one core busy until it is killed."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def test_busy_cores_see_a_spinning_process():
    spin = spinning()
    try:
        assert machine.busy_cores(1.0) >= 0.7
    finally:
        spin.kill()


def test_wait_quiet_waits_out_a_busy_machine_then_gives_up():
    spin = spinning()
    try:
        q = machine.wait_quiet(max_cores=0.5, hold_s=1.0, timeout_s=1.5)
    finally:
        spin.kill()
    assert not q["quiet"] and q["waited_s"] >= 1.5 and q["busy_cores"] > 0.5


def test_wait_quiet_returns_once_quiet_for_the_hold():
    q = machine.wait_quiet(max_cores=64, hold_s=1.0, timeout_s=30)
    assert q["quiet"] and 1.0 <= q["waited_s"] < 5


def test_cpu_diff_counts_the_machine_and_what_no_role_explains():
    before = machine.cpu_snapshot(offset=54321)  # no harness at this offset: every busy tick is "other"
    spin = spinning()
    try:
        machine.busy_cores(1.0)
    finally:
        spin.kill()
    d = machine.cpu_diff(before)
    assert d["percent_of_machine"] == {}
    assert d["machine_busy_percent"] >= 70 / d["cores"] and d["other_percent"] == d["machine_busy_percent"]
