"""PostgreSQL round trips per operation, counted on the wire, and what a 1 ms round trip to
PostgreSQL adds to the latency (performance round four). Run it under scripts/with-postgres.sh:

  UMFA_TEST_POSTGRES_PORT=25611 scripts/with-postgres.sh \\
      .build/interop-venv/bin/python scripts/bench/roundtrips.py --umfa PATH/umfa \\
      --bench PATH/umfa-bench --out rt.json

It starts scripts/bench/pg_proxy.py (a process of its own) in front of the throwaway
PostgreSQL and a `umfa serve` whose UMFA_DATABASE_URL names it, for the counts; then, for the
latencies, `umfa-bench delay-proxy` (--bench; native, so its own cost stays in microseconds) and
two more `umfa serve`, each on a database of its own: one through that proxy, one straight to
PostgreSQL. Start-up (migrations, the development application) happens before any count.

Round trips: the proxy counts every frontend batch that ends in Sync or Query (pg_proxy.py).
Around each operation the proxy's counter is read before and, after a settle pause (so writes
that finish after the HTTP answer still count), after; the operations run one at a time, so a
window's round trips are the operation's. Operations: GET /health (the control, 0 expected), an
ES256 sign-in of the device API (POST /api/umfa/authentication/options, then
/api/umfa/authentication/verify with the virtual authenticator's assertion in between, outside
the windows) and the token endpoint's refresh_token grant (rotation; a confidential client whose
user signed in through the API-driven flow). Idle windows (nothing sent) show any background
statements. Each operation is counted --count times; the statements of each round trip come
from the proxy's log (Parse and Query messages carry the SQL).

Latency: --rounds rounds of --samples sign-ins and --samples refreshes on each of three set-ups,
interleaved sample by sample (one operation on each set-up in turn, the order rotating):
`direct` (the server without a proxy), `proxy` (the other server, through the delay-proxy with
no delay) and `delayed` (the same, --delay-ms each way; the delay is switched between samples).
A sign-in's latency is the options request's plus the verify request's (client-side, HTTP
keep-alive; the authenticator between them is not counted), a refresh's is its one POST. The
figures: p50 of all samples of a set-up, and the added latency `delayed − direct` (the
target's) and `delayed − proxy` (the delay alone, without the proxy's own cost).

The ceremonies reuse Tests/Interop/support.py (`Server`, `Device`, `VirtualAuthenticator`) and
the refresh tokens come from scripts/bench/server_bench.py's `FlowUser` (the API-driven flow of
Tests/Interop/api_flow_client.py)."""

from __future__ import annotations

import argparse
import base64
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import requests

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "Tests" / "Interop"))
from server_bench import FlowUser  # noqa: E402
from server_bench import ORIGIN as FLOW_ORIGIN  # noqa: E402
from api_flow_client import FLOW_SCOPE, REDIRECT_URI, SIGN_IN_SCOPE  # noqa: E402
from support import ADMIN_TOKEN, Device, JsonWriter, Server, Umfa, VirtualAuthenticator  # noqa: E402

OPERATIONS = ("health", "idle", "signin_options", "signin_verify", "signin", "refresh")
SETUPS = ("direct", "proxy", "delayed")


class Target:
    """One `umfa serve` on a database URL, with a registered device user (the development
    application) and a refresh-token chain (an application of its own, a confidential client)."""

    def __init__(self, name: str, umfa: Path, database_url: str, work: Path):
        self.name = name
        work.mkdir(parents=True, exist_ok=True)
        env = {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN, "UMFA_DATABASE_URL": database_url,
               "UMFA_LIMIT_OPTIONS_REQUESTS": "0", "UMFA_LOG_LEVEL": "warning"}
        self.server = Server(umfa, work, work / "data", env).start(timeout=180)
        self.http = self.server.http
        writer_dir = work / "json"
        writer_dir.mkdir(exist_ok=True)
        authenticator = VirtualAuthenticator(Umfa(umfa, work), JsonWriter(writer_dir), work / "authenticator")
        self.device = Device(self.server, authenticator, self.server.app_id)
        self.user = "rt-user"
        registered = self.device.register(self.user)
        assert registered.get("credential_id"), registered
        admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        base = self.server.base

        def es256_tokens(app_id: str) -> None:
            """ES256 sign-in / access tokens, as the `--cpu` record's ES256 figures."""
            patched = requests.patch(f"{base}/api/admin/applications/{app_id}", headers=admin,
                                     json={"token_signing_alg": "ES256"}, timeout=30)
            assert patched.status_code == 200, patched.text

        es256_tokens(self.device.app_id)
        # The refresh grant: an application for the API-driven flow's origin, a confidential client.
        app = requests.post(base + "/api/admin/applications", headers=admin, json={
            "name": "roundtrips", "rp_id": "bench.example", "origins": [FLOW_ORIGIN],
            "enrollment_policy": "open", "user_verification": "discouraged"}, timeout=30)
        assert app.status_code in (200, 201), app.text
        app_id = app.json()["application_id"]
        es256_tokens(app_id)
        client = requests.post(f"{base}/api/admin/applications/{app_id}/oauth-clients", headers=admin, json={
            "client_name": "roundtrips-user", "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "client_secret_basic", "scope": f"{SIGN_IN_SCOPE} {FLOW_SCOPE}",
            "first_party": True, "access_token_ttl_seconds": 3600}, timeout=30)
        assert client.status_code == 201, client.text
        client = client.json()
        self.basic = "Basic " + base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
        discovery = requests.get(f"{base}/oidc/{app_id}/.well-known/openid-configuration", timeout=30).json()
        self.token_url = f"{base}/oidc/{app_id}/token"
        self.refresh_token = FlowUser(discovery["issuer"], client).sign_in()["refresh_token"]
        self.token_http = requests.Session()

    # -- the operations: each answers its latency in seconds ----------------------------------

    def health(self) -> float:
        started = time.perf_counter()
        answer = self.http.get(self.server.base + "/health", timeout=30)
        elapsed = time.perf_counter() - started
        assert answer.status_code == 200, answer.text
        return elapsed

    def options(self) -> tuple[dict, float]:
        started = time.perf_counter()
        answer = self.server.request("POST", "/api/umfa/authentication/options",
                                     {"application_id": self.device.app_id, "user_id": self.user})
        elapsed = time.perf_counter() - started
        assert answer.status_code == 200, f"options: HTTP {answer.status_code} {answer.text}"
        return answer.json(), elapsed

    def assertion(self, options: dict) -> dict:
        return self.device.authenticator.get(options, origin=self.device.origin).data

    def verify(self, credential: dict) -> float:
        started = time.perf_counter()
        answer = self.server.request("POST", "/api/umfa/authentication/verify", {
            "application_id": self.device.app_id, "user_id": self.user, "credential": credential})
        elapsed = time.perf_counter() - started
        assert answer.status_code == 200 and answer.json()["user_id"] == self.user, \
            f"verify: HTTP {answer.status_code} {answer.text}"
        return elapsed

    def refresh(self) -> float:
        started = time.perf_counter()
        answer = self.token_http.post(self.token_url, data={"grant_type": "refresh_token",
                                                            "refresh_token": self.refresh_token},
                                      headers={"Authorization": self.basic}, timeout=30)
        elapsed = time.perf_counter() - started
        assert answer.status_code == 200, f"refresh: HTTP {answer.status_code} {answer.text[:300]}"
        token = answer.json().get("refresh_token")
        assert token and token != self.refresh_token, "refresh: no new refresh token"
        self.refresh_token = token
        return elapsed

    def signin(self) -> float:
        options, first = self.options()
        return first + self.verify(self.assertion(options))

    def stop(self) -> None:
        try:
            self.server.stop(timeout=30)
        except AssertionError as error:
            print(f"  !! {self.name}: {str(error)[:2000]}", file=sys.stderr)


class ProxyProcess:
    """scripts/bench/pg_proxy.py as a process of its own (in this one it would share the GIL
    with the client and add its waits to the latencies), driven through its control port."""

    def __init__(self, upstream: tuple[str, int], verbose: bool):
        command = [sys.executable, str(HERE / "pg_proxy.py"), "--upstream", f"{upstream[0]}:{upstream[1]}"]
        self.process = subprocess.Popen(command + (["--verbose"] if verbose else []), stdout=subprocess.PIPE,
                                        text=True)
        started = json.loads(self.process.stdout.readline())
        self.port = int(started["listen"].rsplit(":", 1)[1])
        self.control = f"http://127.0.0.1:{started['control_port']}"
        self.http = requests.Session()

    def counters(self) -> dict:
        return self.http.get(self.control + "/counters", timeout=10).json()

    def since(self, number: int) -> list[dict]:
        return self.http.get(self.control + "/log", params={"since": number}, timeout=30).json()

    def set_delay(self, milliseconds: float) -> None:
        self.http.post(self.control + "/delay", params={"ms": milliseconds}, timeout=10).raise_for_status()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class DelayProxyProcess:
    """`umfa-bench delay-proxy`: the delaying proxy of the latencies, native (NIO, one event
    loop, timerfd timers), so the proxy's own cost per round trip stays in microseconds on a busy
    machine, where pg_proxy.py's Python threads cost a few hundred (it still counts the round
    trips). Its delay is set through its standard input."""

    def __init__(self, bench: Path, upstream: tuple[str, int]):
        self.process = subprocess.Popen([str(bench), "delay-proxy", "--upstream", f"{upstream[0]}:{upstream[1]}"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            self.port = int(json.loads(self.process.stdout.readline())["listen"].rsplit(":", 1)[1])
        except Exception:
            self.process.kill()
            raise

    def set_delay(self, milliseconds: float) -> None:
        self.process.stdin.write(f"delay {milliseconds}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        assert answer.startswith("ok "), f"delay-proxy: {answer!r}"

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


def is_proof(batch: dict) -> bool:
    return batch["statements"] == [""]


class Counter:
    """Reads the proxy's counters and log around an operation. Statements that the server's
    own timers run (seen in an idle stretch first: the outbox pollers) are told apart, with the
    commit proof that follows one on its connection, as `background`."""

    def __init__(self, proxy: ProxyProcess, settle: float):
        self.proxy, self.settle = proxy, settle
        self.background: set[str] = set()

    def learn_background(self, seconds: float) -> dict:
        before = self.proxy.counters()
        time.sleep(seconds)
        after = self.proxy.counters()
        batches = self.batches(before, after)
        self.background = {s for b in batches for s in b["statements"] if s}
        return {"seconds": seconds, "round_trips": after["round_trips"] - before["round_trips"],
                "per_second": (after["round_trips"] - before["round_trips"]) / seconds,
                "statements": sorted(self.background)}

    def batches(self, before: dict, after: dict) -> list[dict]:
        log = self.proxy.since(before["round_trips"])[: after["round_trips"] - before["round_trips"]]
        return [{"connection": e["connection"], "messages": e["messages"],
                 "statements": [" ".join(s.split()) for s in e["statements"]]} for e in log]

    def window(self, run) -> dict:
        before = self.proxy.counters()
        run()
        time.sleep(self.settle)
        after = self.proxy.counters()
        own, background, waiting_proof = [], [], set()
        for batch in self.batches(before, after):
            if any(s in self.background for s in batch["statements"]):
                background.append(batch)
                waiting_proof.add(batch["connection"])
            elif is_proof(batch) and batch["connection"] in waiting_proof:
                background.append(batch)
                waiting_proof.discard(batch["connection"])
            else:
                own.append(batch)
                waiting_proof.discard(batch["connection"])
        return {"round_trips": len(own), "all_round_trips": after["round_trips"] - before["round_trips"],
                "background_round_trips": len(background),
                "flush_batches": after["flush_batches"] - before["flush_batches"],
                "connections_opened": after["connections"] - before["connections"],
                "batches": own, "background": background}


def count_round_trips(target: Target, counter: Counter, count: int) -> dict:
    """Each operation `count` times through the proxy, one window each."""
    windows: dict[str, list[dict]] = {name: [] for name in OPERATIONS}
    for _ in range(count):
        windows["health"].append(counter.window(target.health))
        windows["idle"].append(counter.window(lambda: None))
        holder: dict = {}
        windows["signin_options"].append(counter.window(lambda: holder.update(options=target.options()[0])))
        credential = target.assertion(holder["options"])
        windows["signin_verify"].append(counter.window(lambda: target.verify(credential)))
        windows["refresh"].append(counter.window(target.refresh))
    for first, second in zip(windows["signin_options"], windows["signin_verify"]):
        windows["signin"].append({key: first[key] + second[key] for key in
                                  ("round_trips", "all_round_trips", "background_round_trips", "flush_batches",
                                   "connections_opened", "batches", "background")})
    result = {}
    for name, samples in windows.items():
        trips = [w["round_trips"] for w in samples]
        median = statistics.median(trips)
        # The statements of a window with the median count (the first such), as the typical list.
        typical = next(w for w in samples if w["round_trips"] == sorted(trips)[len(trips) // 2])
        # Windows with another count: background statements (a timer of the server's) that
        # fell into the window, or a change of path; their statements show which.
        others = [{"window": index, "round_trips": w["round_trips"], "batches": w["batches"]}
                  for index, w in enumerate(samples) if w["round_trips"] != typical["round_trips"]]
        result[name] = {"median": median, "min": min(trips), "max": max(trips), "samples": trips,
                        "all_round_trips": [w["all_round_trips"] for w in samples],
                        "background_round_trips": [w["background_round_trips"] for w in samples],
                        "flush_batches": [w["flush_batches"] for w in samples],
                        "connections_opened": sum(w["connections_opened"] for w in samples),
                        "batches": typical["batches"], "other_windows": others}
    return result


def ping(host: str, port: int, user: str, database: str, count: int) -> list[float]:
    """Round-trip times (µs) of `count` empty simple queries on one raw protocol connection
    (trust authentication, as with-postgres.sh sets up): what the wire itself costs, without UMFA."""
    import socket
    import struct
    times = []
    with socket.create_connection((host, port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        body = struct.pack("!i", 196608) + b"user\0" + user.encode() + b"\0database\0" + database.encode() + b"\0\0"
        sock.sendall(struct.pack("!i", len(body) + 4) + body)
        buffer = bytearray()

        def until_ready() -> None:
            nonlocal buffer
            while True:
                while len(buffer) >= 5:
                    kind, length = chr(buffer[0]), struct.unpack("!i", bytes(buffer[1:5]))[0]
                    if len(buffer) < 1 + length:
                        break
                    assert kind != "E", f"PostgreSQL error: {bytes(buffer[:1 + length])!r}"
                    buffer = buffer[1 + length:]
                    if kind == "Z":
                        return
                chunk = sock.recv(65536)
                assert chunk, "PostgreSQL closed the connection"
                buffer += chunk

        until_ready()
        query = b"Q" + struct.pack("!i", 5) + b"\0"
        for _ in range(count):
            started = time.perf_counter()
            sock.sendall(query)
            until_ready()
            times.append((time.perf_counter() - started) * 1e6)
        sock.sendall(b"X" + struct.pack("!i", 4))
    return times


def measure_wire(database_url: str, proxy: DelayProxyProcess, delay_ms: float, count: int) -> dict:
    """One empty query's round trip straight to PostgreSQL, through the proxy, and through the
    delaying proxy: the proxy's own cost per round trip, and the delay's."""
    url = urlsplit(database_url)
    database = url.path.lstrip("/")
    figures = {}
    for setup in SETUPS:
        proxy.set_delay(delay_ms if setup == "delayed" else 0.0)
        host, port = (url.hostname, url.port or 5432) if setup == "direct" else ("127.0.0.1", proxy.port)
        figures[f"{setup}_us_p50"] = statistics.median(ping(host, port, url.username, database, count))
    proxy.set_delay(0.0)
    figures["proxy_cost_us"] = figures["proxy_us_p50"] - figures["direct_us_p50"]
    figures["delay_cost_us"] = figures["delayed_us_p50"] - figures["proxy_us_p50"]
    figures["queries"] = count
    return figures


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.999999) - 1))]


def measure_latency(targets: dict[str, Target], proxy: DelayProxyProcess, delay_ms: float, rounds: int,
                    samples: int) -> dict:
    """Rounds of interleaved samples; latencies in ms. Within a round each sample is one
    operation on each of the three set-ups in turn (the order rotates from sample to sample), so
    a slow stretch of the machine (a slow disk flush at a commit, a neighbour's burst) falls on
    the three set-ups alike rather than on one set-up's block of samples, which is what made two
    runs of the same build read 1.5 ms apart when each set-up ran its samples in one block."""
    kept: dict = {setup: {"signin": [], "refresh": [], "signin_rounds": [], "refresh_rounds": []}
                  for setup in SETUPS}
    current = {"delay": None}

    def on(setup: str) -> Target:
        delay = delay_ms if setup == "delayed" else 0.0
        if setup != "direct" and current["delay"] != delay:
            proxy.set_delay(delay)
            current["delay"] = delay
        return targets["direct" if setup == "direct" else "proxied"]

    for index in range(rounds):
        for setup in SETUPS:  # one of each first, unmeasured (a pooled connection may have closed)
            on(setup).signin()
            on(setup).refresh()
        for op in ("signin", "refresh"):
            figures: dict = {setup: [] for setup in SETUPS}
            for sample in range(samples):
                turn = (sample + index) % len(SETUPS)
                for setup in SETUPS[turn:] + SETUPS[:turn]:
                    target = on(setup)
                    figures[setup].append((target.signin() if op == "signin" else target.refresh()) * 1000)
            for setup in SETUPS:
                kept[setup][op] += figures[setup]
                kept[setup][f"{op}_rounds"].append(statistics.median(figures[setup]))
        print(f"  latency round {index + 1}/{rounds}: sign-in p50 " + ", ".join(
            f"{setup} {kept[setup]['signin_rounds'][-1]:.2f}" for setup in SETUPS) + " ms; refresh p50 " + ", ".join(
            f"{setup} {kept[setup]['refresh_rounds'][-1]:.2f}" for setup in SETUPS) + " ms", file=sys.stderr)
    proxy.set_delay(0.0)
    result: dict = {"rounds": rounds, "samples_per_round": samples, "delay_ms_each_way": delay_ms,
                    "delay_proxy": "umfa-bench delay-proxy"}
    for setup in SETUPS:
        figures = kept[setup]
        result[setup] = {f"{op}_{stat}": value for op in ("signin", "refresh") for stat, value in (
            ("p50_ms", statistics.median(figures[op])), ("p90_ms", percentile(figures[op], 0.9)),
            ("samples", len(figures[op])), ("round_p50s_ms", figures[f"{op}_rounds"]))}
    for op in ("signin", "refresh"):
        result[f"{op}_added_ms"] = result["delayed"][f"{op}_p50_ms"] - result["direct"][f"{op}_p50_ms"]
        result[f"{op}_added_by_delay_alone_ms"] = (result["delayed"][f"{op}_p50_ms"]
                                                   - result["proxy"][f"{op}_p50_ms"])
        result[f"{op}_added_ms_by_round"] = [d - r for d, r in zip(result["delayed"][f"{op}_round_p50s_ms"],
                                                                    result["direct"][f"{op}_round_p50s_ms"])]
    return result


def run_facts(umfa: Path, build: str, command: str) -> dict:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return {"command": command, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": git("rev-parse", "--short", "HEAD"),
            "tree": "with local changes" if git("status", "--porcelain", "--untracked-files=no") else "clean",
            "binary": str(umfa), "build": build, "machine": f"{cpu}, {os.cpu_count()} cores",
            "postgres": subprocess.run(["bash", "-c", "ls -d /usr/lib/postgresql/*/ | sort -V | tail -n1"],
                                       capture_output=True, text=True).stdout.strip()}


def create_database(psql: str, name: str) -> None:
    subprocess.run(shlex.split(psql) + ["-qc", f"DROP DATABASE IF EXISTS {name}"], check=True)
    subprocess.run(shlex.split(psql) + ["-qc", f"CREATE DATABASE {name}"], check=True)


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return parts._replace(path="/" + name).geturl()


def table(result: dict) -> str:
    rows = ["| operation | round trips (median) | min–max | on the wire, with the timers' (median, max) | windows |",
            "|---|---|---|---|---|"]
    names = {"health": "`GET /health` (control)", "idle": "nothing (idle window)",
             "signin_options": "sign-in: authentication/options", "signin_verify": "sign-in: authentication/verify",
             "signin": "ES256 sign-in (options + verify)", "refresh": "refresh_token grant (rotation)"}
    for name in OPERATIONS:
        figures = result["round_trips"][name]
        rows.append(f"| {names[name]} | {figures['median']:g} | {figures['min']}–{figures['max']} | "
                    f"{statistics.median(figures['all_round_trips']):g}, {max(figures['all_round_trips'])} | "
                    f"{len(figures['samples'])} |")
    text = "\n".join(rows)
    background = result["background"]
    text += (f"\n\nThe server's own timers, idle: {background['round_trips']} round trips in "
             f"{background['seconds']:g} s ({background['per_second']:.2f}/s): "
             + "; ".join(s[:60] + "…" for s in background["statements"]))
    latency = result.get("latency")
    if latency:
        text += "\n\n| p50, ms | direct | proxy, no delay | proxy, " \
                f"{latency['delay_ms_each_way']:g} ms each way | added (delayed − direct) | added by the delay alone |\n" \
                "|---|---|---|---|---|---|\n"
        for op, label in (("signin", "ES256 sign-in (options + verify)"), ("refresh", "refresh_token grant")):
            text += (f"| {label} | {latency['direct'][op + '_p50_ms']:.2f} | {latency['proxy'][op + '_p50_ms']:.2f} | "
                     f"{latency['delayed'][op + '_p50_ms']:.2f} | {latency[op + '_added_ms']:+.2f} | "
                     f"{latency[op + '_added_by_delay_alone_ms']:+.2f} |\n")
        wire = result["wire"]
        text += (f"\nOne empty query, p50 of {wire['queries']}: straight {wire['direct_us_p50']:.0f} µs, through the proxy "
                 f"{wire['proxy_us_p50']:.0f} µs, delayed {wire['delayed_us_p50']:.0f} µs (the proxy's own cost "
                 f"{wire['proxy_cost_us']:+.0f} µs a round trip, the delay's {wire['delay_cost_us']:+.0f} µs).\n")
        text += (f"\n{latency['rounds']} interleaved rounds × {latency['samples_per_round']} samples of each "
                 f"operation per set-up ({latency['rounds'] * latency['samples_per_round']} per figure).")
    return text


def statement_list(result: dict) -> str:
    lines = []
    for name in ("signin_options", "signin_verify", "refresh"):
        figures = result["round_trips"][name]
        lines.append(f"{name} ({figures['median']:g} round trips):")
        for number, batch in enumerate(figures["batches"], 1):
            shown = " ‖ ".join(s if s else "<empty query: commit proof>" for s in batch["statements"])
            lines.append(f"  {number:2}. [{batch['messages']}] {shown or '<no Parse/Query>'}")
    for name in OPERATIONS:
        for other in result["round_trips"][name]["other_windows"]:
            statements = [" ‖ ".join(s or "<empty query>" for s in b["statements"]) for b in other["batches"]]
            lines.append(f"other count: {name} window {other['window']}: {other['round_trips']} round trips: "
                         + " / ".join(s[:120] for s in statements))
    return "\n".join(lines)


def write_results(result: dict, directory: Path, command: str) -> Path:
    """The figures as a results file of scripts/bench/figures.py's format: `roundtrips.json`,
    from which scripts/bench/render.py renders the `roundtrips/…` blocks of
    docs/performance/README.md (its round-four section)."""
    from figures import Results, cores, cpu_model, this_run
    run = this_run(command, f"{cpu_model()}, {cores()} cores shared by UMFA, PostgreSQL, the proxy and the client; "
                   f"{result['run']['build']} build of umfa")
    figures = Results("roundtrips", run)
    figures.add("build", result["run"]["build"], "text")
    figures.add("counting", result["counting"], "text")
    for name in OPERATIONS:
        counted = result["round_trips"][name]
        for stat in ("median", "min", "max"):
            figures.add(f"round_trips.{name}.{stat}", counted[stat], "count")
        figures.add(f"round_trips.{name}.windows", len(counted["samples"]), "count")
        # Every round trip of the window on the wire, the server's timers' included.
        figures.add(f"round_trips.{name}.with_timers.median", statistics.median(counted["all_round_trips"]), "count")
        figures.add(f"round_trips.{name}.with_timers.max", max(counted["all_round_trips"]), "count")
        if name in ("signin_options", "signin_verify", "refresh"):
            figures.add(f"round_trips.{name}.statements",
                        " ; ".join(" ‖ ".join(s or "<empty query: commit proof>" for s in b["statements"])
                                   for b in counted["batches"]), "text")
    figures.add("background.per_second", result["background"]["per_second"], "/s",
                derived="round trips of the server's own timers while idle")
    latency, wire = result.get("latency"), result.get("wire")
    if latency:
        figures.add("latency.delay_ms_each_way", latency["delay_ms_each_way"], "ms")
        figures.add("latency.rounds", latency["rounds"], "count")
        figures.add("latency.samples_per_round", latency["samples_per_round"], "count")
        for setup in SETUPS:
            for op in ("signin", "refresh"):
                figures.add(f"latency.{setup}.{op}.p50_ms", latency[setup][f"{op}_p50_ms"], "ms")
                figures.add(f"latency.{setup}.{op}.round_p50s_ms", latency[setup][f"{op}_round_p50s_ms"], "ms")
        for op in ("signin", "refresh"):
            figures.add(f"latency.{op}.added_ms", latency[f"{op}_added_ms"], "ms", derived="delayed − direct, p50s")
            figures.add(f"latency.{op}.added_by_delay_alone_ms", latency[f"{op}_added_by_delay_alone_ms"], "ms",
                        derived="delayed − proxy without delay, p50s")
    if wire:
        for key in ("direct_us_p50", "proxy_us_p50", "delayed_us_p50", "proxy_cost_us", "delay_cost_us"):
            figures.add(f"wire.{key}", wire[key], "µs")
        figures.add("wire.queries", wire["queries"], "count")
    return figures.write(directory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--umfa", required=True, type=Path)
    parser.add_argument("--bench", type=Path, help="a umfa-bench, for its delay-proxy (the latencies)")
    parser.add_argument("--build", default="unknown", help="debug or release: recorded with the figures")
    parser.add_argument("--database", default=os.environ.get("UMFA_TEST_POSTGRES_URL"),
                        help="PostgreSQL URL (default: with-postgres.sh's UMFA_TEST_POSTGRES_URL)")
    parser.add_argument("--psql", default=os.environ.get("UMFA_TEST_PSQL"),
                        help="psql command for the direct server's database (default: UMFA_TEST_PSQL)")
    parser.add_argument("--out", type=Path, help="the whole result as JSON (every window, every sample)")
    parser.add_argument("--results", type=Path,
                        help="a directory to write roundtrips.json in, in scripts/bench/figures.py's format")
    parser.add_argument("--count", type=int, default=10, help="windows per operation for the round trips")
    parser.add_argument("--idle", type=float, default=8.0,
                        help="seconds idle first, to learn the statements of the server's own timers")
    parser.add_argument("--settle", type=float, default=0.1, help="seconds waited before a window closes")
    parser.add_argument("--rounds", type=int, default=5, help="latency rounds (0: no latencies)")
    parser.add_argument("--samples", type=int, default=20, help="samples per operation, set-up and round")
    parser.add_argument("--delay-ms", type=float, default=0.5, help="the proxy's delay each way")
    parser.add_argument("--command", help="the command to record with the figures (default: this one)")
    parser.add_argument("--verbose", action="store_true", help="the proxy prints every round trip's SQL")
    parser.add_argument("--work", type=Path, help="directory for the servers' data and logs (default: a temporary one)")
    args = parser.parse_args()
    assert args.database, "no --database (run under scripts/with-postgres.sh)"
    command = args.command or "scripts/with-postgres.sh " + " ".join(
        shlex.quote(os.path.relpath(a, REPO) if a.startswith(str(REPO)) else a) for a in [sys.executable, *sys.argv])
    if args.command is None and os.environ.get("UMFA_TEST_POSTGRES_PORT"):
        command = f"UMFA_TEST_POSTGRES_PORT={os.environ['UMFA_TEST_POSTGRES_PORT']} " + command
    upstream = urlsplit(args.database)
    proxy = ProxyProcess((upstream.hostname, upstream.port or 5432), args.verbose)
    proxied_url = upstream._replace(netloc=f"{upstream.username}@127.0.0.1:{proxy.port}").geturl()
    if "sslmode=" not in proxied_url:
        proxied_url += ("&" if "?" in proxied_url else "?") + "sslmode=disable"
    work = args.work or Path(tempfile.mkdtemp(prefix="umfa-roundtrips-"))
    targets: dict[str, Target] = {}
    delayer: DelayProxyProcess | None = None
    result: dict = {"run": run_facts(args.umfa, args.build, command),
                    "counting": "pg_proxy.py on the wire: every frontend batch ending in Sync or Query",
                    "proxy_control": proxy.control}
    try:
        print(f"== umfa serve through the proxy ({proxied_url})", file=sys.stderr)
        targets["proxied"] = Target("proxied", args.umfa, proxied_url, work / "proxied")
        counter = Counter(proxy, args.settle)
        for _ in range(3):  # warm: the pool's connections, the caches
            targets["proxied"].signin()
            targets["proxied"].refresh()
        print(f"== background: {args.idle:g} s idle", file=sys.stderr)
        result["background"] = counter.learn_background(args.idle)
        print(f"== round trips, {args.count} windows per operation", file=sys.stderr)
        result["round_trips"] = count_round_trips(targets["proxied"], counter, args.count)
        if args.rounds > 0:
            assert args.psql, "no --psql for the servers' databases (UMFA_TEST_PSQL)"
            assert args.bench, "no --bench (umfa-bench) for the latencies' delay-proxy"
            # The counting set-up ends here: its server's timers would pass pg_proxy.py meanwhile.
            targets.pop("proxied").stop()
            delayer = DelayProxyProcess(args.bench, (upstream.hostname, upstream.port or 5432))
            delayed_url = with_database(upstream._replace(
                netloc=f"{upstream.username}@127.0.0.1:{delayer.port}").geturl(), "umfa_roundtrips_delayed")
            if "sslmode=" not in delayed_url:
                delayed_url += ("&" if "?" in delayed_url else "?") + "sslmode=disable"
            for name, url in (("direct", with_database(args.database, "umfa_roundtrips_direct")),
                              ("proxied", delayed_url)):
                create_database(args.psql, urlsplit(url).path.lstrip("/"))
                print(f"== umfa serve for the latencies, {name}: {url}", file=sys.stderr)
                targets[name] = Target(name, args.umfa, url, work / ("delayed" if name == "proxied" else name))
            result["wire"] = measure_wire(args.database, delayer, args.delay_ms, 500)
            print(f"== latency: {args.rounds} rounds × {args.samples} samples per set-up", file=sys.stderr)
            result["latency"] = measure_latency(targets, delayer, args.delay_ms, args.rounds, args.samples)
    finally:
        for target in targets.values():
            target.stop()
        for process in (proxy, delayer):
            try:
                if process:
                    process.stop()
            except Exception as error:  # the other one is still stopped
                print(f"  !! stopping {type(process).__name__}: {error}", file=sys.stderr)
    print(table(result))
    print()
    print(statement_list(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"\n== wrote {args.out}", file=sys.stderr)
    if args.results:
        print(f"== wrote {write_results(result, args.results, command)}", file=sys.stderr)


if __name__ == "__main__":
    main()
