"""`umfa-bench delay-proxy`, the network of the benchmark's delayed round trips
(scripts/bench/roundtrips.py, docs/performance/README.md "PostgreSQL round trips"), driven with
psql against the suite's PostgreSQL: every byte arrives, in order, each direction held for the
delay; what the server says before it closes a connection arrives; the control input refuses
what it cannot take. The timings are lower bounds only (a delay can be overshot on a busy
machine, never undershot). Needs UMFA_TEST_POSTGRES_URL and UMFA_TEST_PSQL
(scripts/with-postgres.sh sets them)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from support import umfa_binary


def bench_binary() -> Path:
    binary = umfa_binary().parent / "umfa-bench"
    assert os.access(binary, os.X_OK), f"umfa-bench not built at {binary} (swift build builds it)"
    return binary


class DelayProxy:
    def __init__(self, delay_ms: float):
        url = os.environ.get("UMFA_TEST_POSTGRES_URL")
        assert url, "UMFA_TEST_POSTGRES_URL is not set: run the suite through scripts/with-postgres.sh"
        port = url.rsplit(":", 1)[1].split("/", 1)[0]
        self.process = subprocess.Popen(
            [str(bench_binary()), "delay-proxy", "--upstream", f"127.0.0.1:{port}", "--delay-ms", str(delay_ms)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.port = int(json.loads(self.process.stdout.readline())["listen"].rsplit(":", 1)[1])

    def control(self, line: str) -> str:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def psql(self, sql: str, database: str = "umfa_test") -> subprocess.CompletedProcess:
        """psql through the proxy: the suite's psql command with the proxy's port."""
        command = shlex.split(os.environ["UMFA_TEST_PSQL"])
        command[command.index("-p") + 1] = str(self.port)
        return subprocess.run(command + ["-d", database, "-Atc", sql], capture_output=True, text=True, timeout=60)

    def stop(self) -> int:
        self.process.stdin.close()
        return self.process.wait(timeout=10)


@pytest.fixture
def slow_proxy():
    proxy = DelayProxy(delay_ms=20)
    yield proxy
    assert proxy.stop() == 0


def test_delayed_results_arrive_whole_and_in_order(slow_proxy: DelayProxy):
    started = time.monotonic()
    answer = slow_proxy.psql("SELECT string_agg(g::text, ',' ORDER BY g) FROM generate_series(1, 60000) g")
    elapsed = time.monotonic() - started
    assert answer.returncode == 0, answer.stderr
    # About 350 kB: many reads on each side, every one of them held and sent in order.
    assert answer.stdout.strip() == ",".join(str(n) for n in range(1, 60001))
    # At least the start-up's round trip and the query's, each 2 × 20 ms.
    assert elapsed >= 0.08, f"{elapsed:.3f} s for at least two delayed round trips"


def test_what_the_server_says_before_closing_arrives(slow_proxy: DelayProxy):
    failed = slow_proxy.psql("SELECT 1/0")
    assert failed.returncode != 0 and "division by zero" in failed.stderr, failed.stderr
    # PostgreSQL sends its FATAL and closes at once: the proxy still holds the FATAL for the
    # delay when the server's side closes, and must send it before closing the client's.
    unknown = slow_proxy.psql("SELECT 1", database="umfa_no_such_database")
    assert unknown.returncode != 0
    assert 'database "umfa_no_such_database" does not exist' in unknown.stderr, unknown.stderr


def test_the_delay_changes_at_run_time_and_bad_values_are_refused(slow_proxy: DelayProxy):
    assert slow_proxy.control("delay 0") == "ok 0.0"
    assert slow_proxy.psql("SELECT 41 + 1").stdout.strip() == "42"
    for bad in ("delay inf", "delay nan", "delay -1", "delay 10001", "hold 5"):
        assert slow_proxy.control(bad).startswith("error:"), bad
    assert slow_proxy.control("delay 0.5") == "ok 0.5"
    refused = subprocess.run([str(bench_binary()), "delay-proxy", "--upstream", "127.0.0.1:1", "--delay-ms=-1"],
                             capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert refused.returncode != 0 and "--delay-ms must be from 0 to" in refused.stderr, refused.stderr
