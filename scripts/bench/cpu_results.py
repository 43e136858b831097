"""The figures of `scripts/bench.sh --cpu`: server CPU per operation on each engine beside the
crypto floor measured in the same run (`openssl speed` and swift-crypto in process), and what
each target compares. Reads the run's outputs in OUT and writes docs/performance/results/cpu.json
(see figures.py); scripts/bench/render.py makes the tables.

usage: cpu_results.py OUT COMMAND [--date D --commit C --tree T] [--lemonldap-per-core CC RT]
           [--results DIR]

--date/--commit/--tree record a run whose outputs were kept, as it was recorded. LemonLDAP::NG's
figures per core (client_credentials, refresh_token, RS256) come from results/full.json, the full
run's record, unless given."""

import argparse
import json
from pathlib import Path

from figures import RESULTS, Results, cores, cpu_model, load, this_run

OPERATIONS = ("health", "validate_token", "login_ES256", "login_RS256", "login_EdDSA", "client_credentials_ES256",
              "client_credentials_RS256", "refresh_ES256", "refresh_RS256", "userinfo_ES256")
PEER = ("client_credentials_RS256", "refresh_RS256")


def floors(openssl: dict) -> dict:
    """The crypto of each operation in µs, from `openssl speed`: a login verifies one P-256
    assertion and signs one token; client_credentials signs one access token; a refresh signs
    an access token and an ID token; userinfo verifies its access token."""
    verify = 1e6 / openssl["p256_verify"]
    sign = {"ES256": 1e6 / openssl["p256_sign"], "RS256": 1e6 / openssl["rsa2048_sign"],
            "EdDSA": 1e6 / openssl["ed25519_sign"]}
    result = {"userinfo_ES256": verify}
    for alg, cost in sign.items():
        result[f"login_{alg}"] = verify + cost
        result[f"client_credentials_{alg}"] = cost
        result[f"refresh_{alg}"] = 2 * cost
    return result


def peer_per_core(given: list[float] | None, results: Path, figures: Results) -> dict:
    """LemonLDAP::NG's operations per core: given (recorded here as figures of their own run), or
    the full run's record, which keeps them (only the ratios are written here)."""
    if given:
        figures.add_run("peer", {"command": "scripts/bench.sh",
                                 "date": "2026-11-28 or before", "commit": "before e73c5cf",
                                 "tree": "not recorded", "machine": "the full run's",
                                 "note": "kept as constants in scripts/bench/cpu_report.py"})
        for operation, value in zip(PEER, given):
            figures.add(f"lemonldap.{operation}.per_core", value, "/s", run="peer")
        return dict(zip(PEER, given))
    full = results / "full.json"
    if not full.exists():
        return {}
    record = load(full)
    figures.add_run("peer", record[None]["this"])
    names = {"client_credentials_RS256": "lemonldap.client_credentials.per_core",
             "refresh_RS256": "lemonldap.refresh_token.per_core"}
    return {op: record[name]["value"] for op, name in names.items() if name in record}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("command")
    parser.add_argument("--date")
    parser.add_argument("--commit")
    parser.add_argument("--tree")
    parser.add_argument("--lemonldap-per-core", type=float, nargs=2)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    out = args.out
    run = this_run(args.command, f"{cpu_model()}, {cores()} cores shared by the server, the load generator and"
                                 " PostgreSQL")
    for key in ("date", "commit", "tree"):
        if getattr(args, key):
            run[key] = getattr(args, key)
    figures = Results("cpu", run)
    openssl = json.loads((out / "openssl.json").read_text())
    swift = json.loads((out / "floor.json").read_text())
    library = json.loads((out / "library.json").read_text()) if (out / "library.json").exists() else None
    engines = {}
    for engine in ("sqlite", "postgres"):
        path = out / f"cpu-{engine}.json"
        if path.exists():
            engines[engine] = json.loads(path.read_text())
    medians = {engine: data["medians"][data["order"][0]] for engine, data in engines.items()}
    floor = floors(openssl)

    for engine, ops in medians.items():
        for op in OPERATIONS:
            if op not in ops:
                continue
            row = ops[op]
            figures.add(f"{engine}.{op}.server_us", row["server_us"], "µs")
            figures.add(f"{engine}.{op}.server_us_rounds", row["server_us_rounds"], "µs")
            figures.add(f"{engine}.{op}.statements", row["statements"], "statements")
            if engine == "postgres":
                figures.add(f"{engine}.{op}.postgres_us", row["postgres_us"], "µs")
    sqlite, postgres = medians.get("sqlite", {}), medians.get("postgres", {})
    for op in OPERATIONS:
        if op in sqlite and op in postgres:
            figures.add(f"postgres_vs_sqlite.{op}", postgres[op]["server_us"] / sqlite[op]["server_us"], "×",
                        "postgres server_us / sqlite server_us")
    for op, cost in floor.items():
        figures.add(f"floor.{op}", cost, "µs", "the operation's crypto by openssl speed (1e6 / rate, summed)")
    for name in ("p256_verify", "p256_sign", "ed25519_sign", "rsa2048_sign"):
        figures.add(f"crypto.openssl.{name}", openssl[name], "/s")
        figures.add(f"crypto.swift_crypto.{name}", swift[name], "/s")
    for alg, key in (("ES256", "umfa_es256_jws"), ("EdDSA", "umfa_eddsa_jws"), ("RS256", "umfa_rs256_jws")):
        figures.add(f"crypto.umfa_jws.{alg}", swift[key], "/s")
    figures.add("crypto.rs256_library", swift.get("rs256_library", "swift-crypto (BoringSSL)"), "text")

    # Target 1: the login's work beyond its crypto against the cheapest request.
    if sqlite:
        overhead = sqlite["login_ES256"]["server_us"] - floor["login_ES256"]
        figures.add("target.login_overhead_us", overhead, "µs", "sqlite login_ES256 server_us − floor")
        figures.add("target.login_overhead_vs_health", overhead / sqlite["health"]["server_us"], "×",
                    "login_overhead_us / sqlite health server_us")
    # Target 3: UMFA's RS256 signer against openssl, and the same cost inside the server.
    figures.add("target.rs256_vs_openssl", swift["umfa_rs256_jws"] / openssl["rsa2048_sign"], "×",
                "crypto.umfa_jws.RS256 / crypto.openssl.rsa2048_sign")
    if sqlite:
        marginal = sqlite["login_RS256"]["server_us"] - sqlite["login_ES256"]["server_us"] + 1e6 / openssl["p256_sign"]
        figures.add("target.rs256_in_server_us", marginal, "µs",
                    "sqlite login_RS256 − login_ES256 + one P-256 signature by openssl")
        figures.add("target.rs256_in_server_per_second", 1e6 / marginal, "/s", "1e6 / rs256_in_server_us")
        figures.add("target.rs256_in_server_vs_openssl", 1e6 / marginal / openssl["rsa2048_sign"], "×",
                    "rs256_in_server_per_second / crypto.openssl.rsa2048_sign")
    for engine, ops in medians.items():
        figures.add(f"target.health_vs_validate_token.{engine}",
                    ops["health"]["server_us"] / ops["validate_token"]["server_us"], "×",
                    "health server_us / validate_token server_us")
    if library:
        figures.add("library.assertion_vs_raw_p256", library["assertion_vs_raw_p256"], "×")
        figures.add("library.rounds", library["rounds"], "count")
    peer = peer_per_core(args.lemonldap_per_core, args.results, figures)
    for engine, ops in medians.items():
        for op, theirs in peer.items():
            if op in ops:
                figures.add(f"target.vs_lemonldap.{engine}.{op}", (1e6 / theirs) / ops[op]["server_us"], "×",
                            "LemonLDAP::NG's CPU per operation (1e6 / its per-core rate) / server_us")
    for engine, data in engines.items():
        peaks = data["rss_peak_kb"]
        figures.add(f"{engine}.rss_peak", peaks[data["order"][0]] / 1024, "MB")
        if len(data["order"]) > 1:
            figures.add(f"{engine}.rss_peak_before", peaks[data["order"][1]] / 1024, "MB")
    # UMFA_BENCH_BEFORE: the other build, in the same rounds.
    for engine, data in engines.items():
        if len(data["order"]) < 2:
            continue
        after, before = data["medians"][data["order"][0]], data["medians"][data["order"][1]]
        for op in OPERATIONS:
            if op in after and op in before:
                figures.add(f"{engine}.{op}.before.server_us", before[op]["server_us"], "µs")
                figures.add(f"{engine}.{op}.before.server_us_rounds", before[op]["server_us_rounds"], "µs")
                figures.add(f"{engine}.{op}.change", after[op]["server_us"] / before[op]["server_us"] - 1,
                            "fraction", "server_us / before.server_us − 1")
    print(f"wrote {figures.write(args.results)}")


if __name__ == "__main__":
    main()
