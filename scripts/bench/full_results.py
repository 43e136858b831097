"""The figures of one full `scripts/bench.sh` run: reads the JSON its pieces wrote into OUT and
writes docs/performance/results/full.json (see figures.py): the library against raw P-256 and
py_webauthn, the crypto ceiling of a login, the server over HTTP on each engine, logins by token
algorithm, the token endpoint, LemonLDAP::NG beside it, validate-token beside /health, growth by
enrolled users and memory. scripts/bench/render.py makes the tables and target statements.

usage: full_results.py OUT COMMAND [--results DIR]"""

import argparse
import json
import platform
import subprocess
from pathlib import Path

from figures import RESULTS, Results, cores, cpu_model, this_run

ENGINES = ("sqlite", "postgres", "postgres-async")
LIBRARY = (("assertion", "assertion_verify_per_second"), ("registration_none", "registration_none_verify_per_second"),
           ("registration_packed", "registration_packed_verify_per_second"))


def read(out: Path, name: str) -> dict | None:
    path = out / name
    return json.loads(path.read_text()) if path.exists() else None


def machine() -> str:
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    return (f"{cores()} cores (`nproc`), {cpu_model()}, {platform.system()} {platform.release()};"
            f" {swift[0] if swift else 'swift unknown'}")


def per_core(row: dict) -> float:
    return row["per_second"] / max(row["server_cpu_cores"], 0.01)


def add_library(r: Results, library: dict | None, python: dict | None) -> None:
    if not library or not python:
        return
    raw = library["raw_p256_verify_per_second"]
    r.add("library.raw_p256_verify", raw, "/s")
    for name, key in LIBRARY:
        r.add(f"library.{name}.umfa", library[key], "/s")
        r.add(f"library.{name}.py_webauthn", python[key], "/s")
        r.add(f"library.{name}.vs_raw", library[key] / raw, "×", "umfa / raw_p256_verify (best rates)")
        r.add(f"library.{name}.vs_py_webauthn", library[key] / python[key], "×", "umfa / py_webauthn")
    # The median of the rounds' own ratios (umfa-bench library measures both back to back).
    r.add("library.assertion.vs_raw_median", library["assertion_vs_raw_p256"], "×")
    r.add("library.rounds", library.get("rounds", 1), "count")
    if "assertion_vs_raw_p256_lowest_round" in library:
        r.add("library.assertion.vs_raw_lowest_round", library["assertion_vs_raw_p256_lowest_round"], "×")
        r.add("library.assertion.vs_raw_highest_round", library["assertion_vs_raw_p256_highest_round"], "×")


def add_ceiling(r: Results, ceiling: dict | None) -> float | None:
    if not ceiling:
        return None
    r.add("ceiling.p256_verify", ceiling["p256_verify_per_second"], "/s")
    r.add("ceiling.rs256_sign", ceiling["rs256_sign_per_second"], "/s")
    r.add("ceiling.logins_per_core", ceiling["logins_per_second_per_core"], "/s")
    total = ceiling["logins_per_second_per_core"] * cores()
    r.add("ceiling.logins_all_cores", total, "/s", "logins_per_core × cores")
    rsa, p256 = 1000 / ceiling["rs256_sign_per_second"], 1000 / ceiling["p256_verify_per_second"]
    r.add("ceiling.rs256_sign_ms", rsa, "ms", "1000 / rs256_sign")
    r.add("ceiling.p256_ms", p256, "ms", "1000 / p256_verify")
    # With x the rest of a login, r an RS256 signature and e a P-256 one (about as costly as a
    # P-256 verification), 3 × needs x + r ≥ 3 (x + e), so x ≤ (r − 3e) / 2.
    r.add("ceiling.rest_for_3x_ms", (rsa - 3 * p256) / 2, "ms", "(rs256_sign_ms − 3 × p256_ms) / 2")
    return total


def add_server(r: Results, engines: dict, ceiling_total: float | None) -> None:
    for name, figures in engines.items():
        r.add(f"login.{name}.users", [int(u) for u in figures["logins"]], "count")
        for users, row in figures["logins"].items():
            prefix = f"login.{name}.{users}"
            r.add(f"{prefix}.per_second", row["per_second"], "/s")
            r.add(f"{prefix}.p50_ms", row["p50_ms"], "ms")
            r.add(f"{prefix}.p99_ms", row["p99_ms"], "ms")
            r.add(f"{prefix}.errors", row["errors"], "count")
            r.add(f"{prefix}.server_cpu_cores", row["server_cpu_cores_incl_setup"], "cores")
            r.add(f"{prefix}.generator_cpu_cores", row["generator_cpu_cores"], "cores")
            if "database_cpu_cores" in row:
                r.add(f"{prefix}.database_cpu_cores", row["database_cpu_cores"], "cores")
        first = next(iter(figures["logins"].values()))
        if ceiling_total:
            r.add(f"login.{name}.of_ceiling", first["per_second"] / ceiling_total, "fraction",
                  "logins per second / ceiling.logins_all_cores")
            r.add(f"login.{name}.of_server_cpu",
                  first["per_second"] / (ceiling_total / cores() * first["server_cpu_cores_incl_setup"]), "fraction",
                  "logins per second / (ceiling.logins_per_core × server CPU cores)")
        rows = list(figures["logins"].values())
        if len(rows) > 1:
            r.add(f"growth.{name}.p50", rows[-1]["p50_ms"] / rows[0]["p50_ms"], "×", "p50 at most users / at fewest")
            r.add(f"growth.{name}.p99", rows[-1]["p99_ms"] / rows[0]["p99_ms"], "×", "p99 at most users / at fewest")
        row = figures["registration"]
        prefix = f"registration.{name}"
        r.add(f"{prefix}.per_second", row["per_second"], "/s")
        r.add(f"{prefix}.p50_ms", row["p50_ms"], "ms")
        r.add(f"{prefix}.p99_ms", row["p99_ms"], "ms")
        r.add(f"{prefix}.errors", row["errors"], "count")
        r.add(f"{prefix}.server_cpu_cores", row["server_cpu_cores_incl_setup"], "cores")
        r.add(f"{prefix}.generator_cpu_cores", row["generator_cpu_cores"], "cores")
        if "database_cpu_cores" in row:
            r.add(f"{prefix}.database_cpu_cores", row["database_cpu_cores"], "cores")
    if "sqlite" in engines:
        sqlite = next(iter(engines["sqlite"]["logins"].values()))["per_second"]
        for name in ("postgres", "postgres-async"):
            if name in engines:
                r.add(f"login.{name}.vs_sqlite", next(iter(engines[name]["logins"].values()))["per_second"] / sqlite,
                      "fraction", "logins per second / SQLite's")


def add_algorithms(r: Results, engines: dict) -> None:
    for name, figures in engines.items():
        by_alg = figures.get("logins_by_alg")
        if not by_alg:
            continue
        # RS256 is the growth load's first figure (the same measurement), kept once under login.
        rs = by_alg["RS256"]
        for alg in ("ES256", "EdDSA"):
            row = by_alg[alg]
            r.add(f"by_alg.{name}.{alg}.per_second", row["per_second"], "/s")
            r.add(f"by_alg.{name}.{alg}.server_cpu_cores", row["server_cpu_cores_incl_setup"], "cores")
            r.add(f"by_alg.{name}.{alg}.generator_cpu_cores", row["generator_cpu_cores"], "cores")
            r.add(f"by_alg.{name}.{alg}.vs_RS256", row["per_second"] / rs["per_second"], "×", "per second / RS256's")
        r.add(f"by_alg.{name}.best_vs_RS256",
              max(by_alg["ES256"]["per_second"], by_alg["EdDSA"]["per_second"]) / rs["per_second"], "×",
              "the faster of ES256 and EdDSA / RS256")
        # CPU per login on the shared cores (server and generator): with the machine busy, the
        # throughput ratio is at most the ratio of these costs.
        for alg in ("RS256", "ES256", "EdDSA"):
            row = by_alg[alg]
            r.add(f"by_alg.{name}.{alg}.cpu_ms",
                  1000 * (row["server_cpu_cores_incl_setup"] + row["generator_cpu_cores"]) / row["per_second"], "ms",
                  "1000 × (server + generator cores) / per second")
        r.add(f"by_alg.{name}.generator_ms",
              1000 * by_alg["ES256"]["generator_cpu_cores"] / by_alg["ES256"]["per_second"], "ms",
              "1000 × ES256 generator cores / per second")


def add_oauth(r: Results, engines: dict) -> None:
    for name, figures in engines.items():
        oauth = figures.get("oauth")
        if not oauth:
            continue
        for key in ("client_credentials_RS256", "client_credentials_ES256", "introspection"):
            row = oauth[key]
            r.add(f"oauth.{name}.{key}.per_second", row["per_second"], "/s")
            r.add(f"oauth.{name}.{key}.p99_ms", row["p99_ms"], "ms")
        r.add(f"oauth.{name}.non_2xx", sum(oauth[k]["non_2xx"] for k in
                                           ("client_credentials_RS256", "client_credentials_ES256", "introspection")),
              "count", "non-2xx answers of the three figures")
        cc = oauth["client_credentials_RS256"]
        if "server_cpu_cores" in cc:
            r.add(f"oauth.{name}.client_credentials_RS256.server_cpu_cores", cc["server_cpu_cores"], "cores")
            r.add(f"oauth.{name}.client_credentials_RS256.per_core", per_core(cc), "/s", "per second / server cores")
        for alg in ("RS256", "ES256"):
            refresh, userinfo = oauth.get(f"refresh_token_{alg}"), oauth.get(f"userinfo_{alg}")
            if not refresh or not userinfo:
                continue
            prefix = f"oauth.{name}.refresh_token_{alg}"
            r.add(f"{prefix}.per_second", refresh["per_second"], "/s")
            r.add(f"{prefix}.p99_ms", refresh["p99_ms"], "ms")
            r.add(f"{prefix}.server_cpu_cores", refresh["server_cpu_cores"], "cores")
            r.add(f"{prefix}.per_core", per_core(refresh), "/s", "per second / server cores")
            r.add(f"{prefix}.errors", refresh["non_200"] + refresh["no_refresh_token"], "count",
                  "answers not a 200 with a new refresh token")
            r.add(f"{prefix}.requests", refresh["requests"], "count")
            if not refresh.get("valid"):
                r.add(f"{prefix}.problem", refresh.get("problem", "?"), "text")
            prefix = f"oauth.{name}.userinfo_{alg}"
            r.add(f"{prefix}.per_second", userinfo["per_second"], "/s")
            r.add(f"{prefix}.p99_ms", userinfo["p99_ms"], "ms")
            r.add(f"{prefix}.server_cpu_cores", userinfo["server_cpu_cores"], "cores")
            r.add(f"{prefix}.per_core", per_core(userinfo), "/s", "per second / server cores")


def add_peer(r: Results, peer: dict | None, engines: dict) -> None:
    if not peer or not peer.get("client_credentials"):
        r.add("lemonldap.problem", (peer or {}).get("error", "scripts/bench/lemonldap.sh did not run"), "text")
        return
    r.add("lemonldap.version", peer.get("version", "?"), "text")
    r.add("lemonldap.fastcgi_workers", peer.get("fastcgi_workers", "?"), "count")
    theirs = peer["client_credentials"]
    for key, row in (("client_credentials", theirs), ("refresh_token", peer.get("refresh_token"))):
        if not row:
            r.add("lemonldap.refresh_token.problem", peer.get("refresh_token_problem", "?"), "text")
            continue
        r.add(f"lemonldap.{key}.per_second", row["per_second"], "/s")
        r.add(f"lemonldap.{key}.p99_ms", row["p99_ms"], "ms")
        r.add(f"lemonldap.{key}.server_cpu_cores", row["server_cpu_cores"], "cores")
        r.add(f"lemonldap.{key}.per_core", per_core(row), "/s", "per second / server cores")
    their_refresh = peer.get("refresh_token")
    if their_refresh:
        r.add("lemonldap.refresh_token.method", their_refresh["method"], "text")
        r.add("lemonldap.refresh_token.rotates", bool(their_refresh["rotates"]), "bool")
    for name, figures in engines.items():
        oauth = figures.get("oauth") or {}
        ours = oauth.get("client_credentials_RS256")
        if not ours or "server_cpu_cores" not in ours:
            continue
        r.add(f"vs_lemonldap.{name}.client_credentials", per_core(ours) / per_core(theirs), "×",
              "UMFA's per core / LemonLDAP::NG's per core")
        refresh = oauth.get("refresh_token_RS256")
        if refresh and refresh.get("valid") and their_refresh:
            r.add(f"vs_lemonldap.{name}.refresh_token", per_core(refresh) / per_core(their_refresh), "×",
                  "UMFA's per core / LemonLDAP::NG's per core")


def add_validate(r: Results, engines: dict) -> None:
    for name, figures in engines.items():
        v, h = figures["validate_token"], figures["health"]
        prefix = f"validate.{name}"
        r.add(f"{prefix}.validate_token.per_second", v["per_second"], "/s")
        r.add(f"{prefix}.validate_token.p50_ms", v["p50_ms"], "ms")
        r.add(f"{prefix}.validate_token.p99_ms", v["p99_ms"], "ms")
        r.add(f"{prefix}.health.per_second", h["per_second"], "/s")
        r.add(f"{prefix}.best_vs_best", v["per_second"] / h["per_second"], "fraction", "validate-token / /health, best rounds")
        rounds = figures.get("validate_token_vs_health")
        if rounds:
            r.add(f"{prefix}.median", rounds["median"], "fraction")
            r.add(f"{prefix}.lowest", rounds["lowest"], "fraction")
            r.add(f"{prefix}.highest", rounds["highest"], "fraction")
        r.add(f"{prefix}.non_2xx", v["non_2xx"] + h["non_2xx"], "count", "non-2xx answers of both")


def add_memory(r: Results, engines: dict) -> None:
    for name, figures in engines.items():
        r.add(f"rss.{name}.idle", figures["rss_idle_kb"] / 1024, "MB")
        r.add(f"rss.{name}.peak", figures["rss_peak_kb"] / 1024, "MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("command")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    out = args.out
    r = Results("full", this_run(args.command, machine()))
    r.add("cores", cores(), "count")
    engines = {name: figures for name in ENGINES if (figures := read(out, f"server-{name}.json"))}
    add_library(r, read(out, "library.json"), read(out, "pywebauthn.json"))
    ceiling_total = add_ceiling(r, read(out, "ceiling.json"))
    add_server(r, engines, ceiling_total)
    add_algorithms(r, engines)
    add_oauth(r, engines)
    add_peer(r, read(out, "lemonldap.json"), engines)
    add_validate(r, engines)
    add_memory(r, engines)
    print(f"wrote {r.write(args.results)}")


if __name__ == "__main__":
    main()
