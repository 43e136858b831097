"""TLS against plain HTTP, driven from scripts/bench-tls.sh: one database served twice at once by
`umfa serve`, plain on one port and HTTPS (`--tls-certificate`, an EC P-256 certificate made by
openssl here) on another; wrk measures `/health` and `POST /api/umfa/validate-token` on both
over keep-alive connections, in alternating rounds (on a shared machine one long run of each
compares two different moments). Prints the JSON figures: per endpoint, the best round of
each listener and the median of the rounds' TLS/plain ratios."""

import argparse
import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ADMIN_TOKEN = "bench-admin-" + base64.urlsafe_b64encode(os.urandom(18)).decode()
ORIGIN = "https://bench.example"
# The load of every wrk figure, as in server_bench.py.
WRK_THREADS, WRK_CONNECTIONS = 2, 32


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wrk(url: str, seconds: int, script: str | None, env: dict) -> dict:
    """wrk's figures over keep-alive connections (wrk does not check the certificate)."""
    command = ["wrk", f"-t{WRK_THREADS}", f"-c{WRK_CONNECTIONS}", f"-d{seconds}s", "--latency"] + (
        ["-s", script] if script else []) + [url]
    output = subprocess.run(command, check=True, capture_output=True, text=True, env=dict(os.environ, **env)).stdout
    non_ok = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return {"per_second": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
            "p50": re.search(r"^\s+50%\s+(\S+)", output, re.M).group(1),
            "p99": re.search(r"^\s+99%\s+(\S+)", output, re.M).group(1),
            "non_2xx": int(non_ok.group(1)) if non_ok else 0}


class Listener:
    """`umfa serve` on the shared data directory, plain or with TLS."""

    def __init__(self, umfa: str, data_dir: Path, master_key: str, tls: tuple[Path, Path] | None):
        self.port = free_port()
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        arguments = [umfa, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", str(data_dir),
                     "--no-default-app"]
        if tls:
            arguments += ["--tls-certificate", str(tls[0]), "--tls-key", str(tls[1])]
        env = dict(os.environ, UMFA_ADMIN_TOKEN=ADMIN_TOKEN, UMFA_LIMIT_OPTIONS_REQUESTS="0",
                   UMFA_MASTER_KEY=master_key)
        self.log = open(data_dir / f"server-{scheme}.log", "wb")
        self.process = subprocess.Popen(arguments, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if requests.get(self.url + "/health", timeout=1, verify=False).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError(f"umfa serve ({scheme}) did not answer /health")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def certificate(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "server.pem", directory / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--umfa", required=True)
    parser.add_argument("--seconds", type=int, default=5, help="one wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    requests.packages.urllib3.disable_warnings()
    with tempfile.TemporaryDirectory() as temporary:
        data_dir = Path(temporary)
        master_key = base64.b64encode(os.urandom(32)).decode()
        plain = Listener(args.umfa, data_dir, master_key, None)
        secure = None
        try:
            created = requests.post(plain.url + "/api/admin/applications", headers={
                "Authorization": f"Bearer {ADMIN_TOKEN}"}, json={
                "name": "bench", "rp_id": "bench.example", "origins": [ORIGIN], "enrollment_policy": "open",
                "user_verification": "discouraged"}, timeout=10).json()
            app, api_key = created["application_id"], created["api_key"]
            enrolled = subprocess.run(
                [args.umfa, "enroll", "--server", plain.url, "--app", app, "--user", "wrk-user", "--device-dir",
                 str(data_dir / "device"), "--origin", ORIGIN], check=True, capture_output=True, text=True)
            body = json.dumps({"application_id": app, "user_id": "wrk-user", "token": json.loads(enrolled.stdout)["token"]})
            secure = Listener(args.umfa, data_dir, master_key, certificate(data_dir))
            headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
            for listener in (plain, secure):
                check = requests.post(listener.url + "/api/umfa/validate-token", data=body, headers=headers,
                                      timeout=10, verify=False)
                assert check.status_code == 200, check.text
            script = str(Path(__file__).parent / "validate-token.lua")
            env = {"UMFA_BENCH_API_KEY": api_key, "UMFA_BENCH_BODY": body}
            result: dict = {"seconds": args.seconds, "rounds": args.rounds}
            for name, path, lua in (("health", "/health", None), ("validate_token", "/api/umfa/validate-token", script)):
                best: dict = {}
                ratios = []
                for index in range(args.rounds):
                    order = (plain, secure) if index % 2 == 0 else (secure, plain)
                    figures = {listener.url: wrk(listener.url + path, args.seconds, lua, env) for listener in order}
                    clear, tls = figures[plain.url], figures[secure.url]
                    if clear["non_2xx"] == 0 and tls["non_2xx"] == 0:
                        ratios.append(tls["per_second"] / clear["per_second"])
                    for label, value in (("plain", clear), ("tls", tls)):
                        if value["per_second"] > best.get(label, {}).get("per_second", 0):
                            best[label] = value
                ratios.sort()
                result[name] = {**best, "tls_vs_plain": {
                    "median": ratios[len(ratios) // 2] if ratios else 0.0, "lowest": ratios[0] if ratios else 0.0,
                    "highest": ratios[-1] if ratios else 0.0, "rounds": len(ratios)}}
                print(f"  {name}: plain {best['plain']['per_second']:.0f}/s, TLS {best['tls']['per_second']:.0f}/s, "
                      f"median ratio {result[name]['tls_vs_plain']['median']:.2f}", file=sys.stderr)
            print(json.dumps(result, indent=2))
        finally:
            plain.stop()
            if secure:
                secure.stop()


if __name__ == "__main__":
    main()
