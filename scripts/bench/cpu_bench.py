"""Server CPU per operation, driven from `scripts/bench.sh --cpu`: starts one release
`umfa serve` per binary given (`--umfa A --umfa B` compares two builds in the same session),
then in each round runs every operation against each server in turn (which goes first
alternates) and reads, around each run, the server process's CPU time from /proc/PID/stat
(utime + stime), every PostgreSQL process's, and the store statements from /metrics. CPU per
operation = CPU spent / operations completed; the load generator's own CPU does not count.
Writes OUT/cpu-<engine>.json with every round and each operation's median."""

import argparse
import base64
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_bench import (ADMIN_TOKEN, ORIGIN, FlowUser, Server, cpu_seconds,  # noqa: E402
                          postgres_cpu_seconds, wrk)
from api_flow_client import FLOW_SCOPE, REDIRECT_URI, SIGN_IN_SCOPE  # noqa: E402

HERE = Path(__file__).parent
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
# Operations in the order each round runs them.
OPERATIONS = ["health", "validate_token", "login_ES256", "login_RS256", "login_EdDSA",
              "client_credentials_ES256", "client_credentials_RS256", "refresh_ES256", "refresh_RS256",
              "userinfo_ES256"]


def statements(url: str) -> float:
    """Store statements run so far: the sum of `umfa_store_query_duration_seconds_count`."""
    text = requests.get(url + "/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("umfa_store_query_duration_seconds_count"))


class Target:
    """One server with its application, API key, OAuth clients and a user for refreshes."""

    def __init__(self, name: str, umfa: str, bench: str, database: str, data_dir: Path):
        self.name, self.umfa, self.bench = name, umfa, bench
        data_dir.mkdir(parents=True, exist_ok=True)
        self.server = Server(umfa, database, data_dir)
        self.url = self.server.url
        created = requests.post(self.url + "/api/admin/applications", headers=ADMIN, json={
            "name": "bench", "rp_id": "bench.example", "origins": [ORIGIN], "enrollment_policy": "open",
            "user_verification": "discouraged"}, timeout=10).json()
        self.app, self.api_key = created["application_id"], created["api_key"]
        self.alg = "RS256"
        client = requests.post(f"{self.url}/api/admin/applications/{self.app}/oauth-clients", headers=ADMIN, json={
            "client_name": "bench", "grant_types": ["client_credentials"], "response_types": [],
            "scope": "bench"}, timeout=10).json()
        self.basic = "Basic " + base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
        user_client = requests.post(f"{self.url}/api/admin/applications/{self.app}/oauth-clients", headers=ADMIN,
                                    json={"client_name": "bench-user", "redirect_uris": [REDIRECT_URI],
                                          "grant_types": ["authorization_code", "refresh_token"],
                                          "response_types": ["code"],
                                          "token_endpoint_auth_method": "client_secret_basic",
                                          "scope": f"{SIGN_IN_SCOPE} {FLOW_SCOPE}", "first_party": True,
                                          "access_token_ttl_seconds": 3600}, timeout=10).json()
        self.user_basic = "Basic " + base64.b64encode(
            f"{user_client['client_id']}:{user_client['client_secret']}".encode()).decode()
        discovery = requests.get(f"{self.url}/oidc/{self.app}/.well-known/openid-configuration", timeout=10).json()
        self.user = FlowUser(discovery["issuer"], user_client)
        self.token_url = f"{self.url}/oidc/{self.app}/token"
        with tempfile.TemporaryDirectory() as device_dir:
            enrolled = subprocess.run(
                [umfa, "enroll", "--server", self.url, "--app", self.app, "--user", "wrk-user",
                 "--device-dir", device_dir, "--origin", ORIGIN], check=True, capture_output=True, text=True)
        self.validate_body = json.dumps({"application_id": self.app, "user_id": "wrk-user",
                                         "token": json.loads(enrolled.stdout)["token"]})
        self.access_token = None

    def set_alg(self, alg: str) -> None:
        if alg != self.alg:
            requests.patch(f"{self.url}/api/admin/applications/{self.app}", headers=ADMIN,
                           json={"token_signing_alg": alg}, timeout=10).raise_for_status()
            self.alg = alg

    def around(self, run) -> dict:
        """Runs `run()` (which answers the operations completed and the errors) and what the
        server, PostgreSQL and the store spent meanwhile."""
        pid = self.server.process.pid
        before = (cpu_seconds(pid), postgres_cpu_seconds(), statements(self.url), time.time())
        operations, errors = run()
        after = (cpu_seconds(pid), postgres_cpu_seconds(), statements(self.url), time.time())
        return self.figures(operations, errors, after[0] - before[0], after[1] - before[1],
                            after[2] - before[2], after[3] - before[3])

    @staticmethod
    def figures(operations, errors, server, postgres, statement_count, seconds) -> dict:
        ops = max(operations, 1)
        return {"operations": operations, "errors": errors, "seconds": seconds,
                "server_us": server / ops * 1e6, "postgres_us": postgres / ops * 1e6,
                "statements": statement_count / ops, "per_second": operations / seconds}

    def run(self, operation: str, seconds: int, concurrency: int) -> dict:
        if operation == "health":
            return self.around(lambda: self.wrk(self.url + "/health", seconds, concurrency))
        if operation == "validate_token":
            return self.around(lambda: self.wrk(self.url + "/api/umfa/validate-token", seconds, concurrency,
                                                "validate-token.lua", {"UMFA_BENCH_API_KEY": self.api_key,
                                                                       "UMFA_BENCH_BODY": self.validate_body}))
        kind, alg = operation.rsplit("_", 1)
        self.set_alg(alg)
        if kind == "login":
            return self.login(seconds, concurrency)
        if kind == "client_credentials":
            return self.around(lambda: self.wrk(self.token_url, seconds, concurrency, "form-post.lua", {
                "UMFA_BENCH_AUTHORIZATION": self.basic, "UMFA_BENCH_BODY": "grant_type=client_credentials"}))
        if kind == "refresh":
            # A family per connection and spares, each from its own sign-in (outside the window).
            initial = [self.user.sign_in()["refresh_token"] for _ in range(concurrency + 4)]
            refresh = requests.post(self.token_url, data={"grant_type": "refresh_token",
                                                          "refresh_token": initial.pop()},
                                    headers={"Authorization": self.user_basic}, timeout=10)
            assert refresh.status_code == 200, refresh.text[:200]
            self.access_token = refresh.json()["access_token"]
            outputs: list[str] = []
            result = self.around(lambda: self.wrk(self.token_url, seconds, concurrency, "refresh-token.lua", {
                "UMFA_BENCH_AUTHORIZATION": self.user_basic, "UMFA_BENCH_THREADS": "2",
                "UMFA_BENCH_REFRESH_TOKENS": " ".join(initial)}, outputs))
            counts = re.search(r"refresh-token: non_200=(\d+) no_refresh_token=(\d+)", outputs[0])
            result["errors"] += int(counts.group(1)) + int(counts.group(2))
            return result
        if kind == "userinfo":
            if self.access_token is None:
                self.run(f"refresh_{alg}", 1, concurrency)
            return self.around(lambda: self.wrk(f"{self.url}/oidc/{self.app}/userinfo", seconds, concurrency,
                                                "bearer-get.lua",
                                                {"UMFA_BENCH_AUTHORIZATION": f"Bearer {self.access_token}"}))
        raise ValueError(operation)

    @staticmethod
    def wrk(url, seconds, concurrency, script=None, env=None, outputs=None):
        command_env = dict(env or {})
        figures = wrk_run(url, seconds, concurrency, script, command_env, outputs)
        return figures["requests"], figures["non_2xx"]

    def login(self, seconds: int, concurrency: int) -> dict:
        """Complete logins by `umfa-bench load`, which reads the server's CPU and statements
        itself around its measured window (after enrolling its devices and a warm-up)."""
        output = subprocess.run(
            [self.bench, "load", "--server", self.url, "--app", self.app, "--origin", ORIGIN,
             "--ceremony", "login", "--concurrency", str(concurrency), "--users", str(2 * concurrency),
             "--seconds", str(seconds), "--warmup", "1", "--server-pid", str(self.server.process.pid),
             "--metrics-url", self.url + "/metrics", "--user-prefix", f"cpu-{self.alg}"],
            check=True, capture_output=True, text=True).stdout
        load = json.loads(output)
        return self.figures(load["operations"], load["errors"], load["server_cpu_seconds"],
                            load["postgres_cpu_seconds"], load["statements"], load["seconds"])


def wrk_run(url, seconds, concurrency, script, env, outputs):
    import server_bench
    server_bench.WRK_THREADS, server_bench.WRK_CONNECTIONS = 2, concurrency
    return wrk(url, seconds, str(HERE / script) if script else None, env, outputs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", required=True)
    parser.add_argument("--database", required=True, help="one URL; PostgreSQL gets a schema per server")
    parser.add_argument("--umfa", action="append", required=True, help="a release umfa; twice to compare")
    parser.add_argument("--name", action="append", help="a name for each --umfa (default: the path)")
    parser.add_argument("--bench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--operations", nargs="+", default=OPERATIONS)
    args = parser.parse_args()
    out = Path(args.out)
    names = args.name or args.umfa
    targets = []
    try:
        for index, (name, umfa) in enumerate(zip(names, args.umfa)):
            database = args.database
            if args.engine.startswith("postgres"):
                import psycopg
                schema = f"cpu{index}_{int(time.time())}"
                psycopg.connect(args.database, autocommit=True).execute(f"CREATE SCHEMA {schema}")
                database += ("&" if "?" in database else "?") + f"search_path={schema}"
            else:
                database = f"sqlite://{out}/{args.engine}-{index}/umfa.sqlite"
            targets.append(Target(name, umfa, args.bench, database, out / f"{args.engine}-{index}"))
        rounds: list[dict] = []
        for number in range(args.rounds):
            ordered = targets if number % 2 == 0 else list(reversed(targets))
            round_figures: dict = {t.name: {} for t in targets}
            for operation in args.operations:
                for target in ordered:
                    figures = target.run(operation, args.seconds, args.concurrency)
                    round_figures[target.name][operation] = figures
                    print(f"  {args.engine} round {number} {target.name} {operation}: "
                          f"{figures['server_us']:.0f} µs server CPU, {figures['postgres_us']:.0f} µs PostgreSQL, "
                          f"{figures['statements']:.2f} statements, {figures['per_second']:.0f}/s, "
                          f"errors {figures['errors']}", file=sys.stderr)
            rounds.append(round_figures)
        medians = {t.name: {op: {key: statistics.median(r[t.name][op][key] for r in rounds)
                                 for key in ("server_us", "postgres_us", "statements", "per_second")}
                            | {"errors": sum(r[t.name][op]["errors"] for r in rounds),
                               "server_us_rounds": [r[t.name][op]["server_us"] for r in rounds]}
                            for op in args.operations} for t in targets}
        rss = {t.name: t.server.process.pid for t in targets}
        from server_bench import proc_status
        result = {"engine": args.engine, "rounds": rounds, "medians": medians,
                  "rss_peak_kb": {name: proc_status(pid, "VmHWM") for name, pid in rss.items()},
                  "order": names}
    finally:
        for target in targets:
            target.server.stop()
    (out / f"cpu-{args.engine}.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
