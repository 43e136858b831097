"""The table of `scripts/bench.sh --cpu`: server CPU per operation on each engine beside the
crypto floor measured in the same run (`openssl speed` and swift-crypto in process), with each
target's ratio and verdict. Prints Markdown and puts it into BENCHMARKS.md between the
`<!-- cpu:begin -->` and `<!-- cpu:end -->` marks (added after the title when missing).

usage: cpu_report.py OUT BENCHMARKS.md COMMAND"""

import datetime
import json
import subprocess
import sys
from pathlib import Path

from report import cpu_model, git, verdict

BEGIN, END = "<!-- cpu:begin -->", "<!-- cpu:end -->"
# LemonLDAP::NG's CPU per operation from the last full `scripts/bench.sh` run (its figures per
# core: client_credentials 160/s, refresh_token 119/s), since its Docker-free Debian install
# takes minutes; the full run measures it again.
LEMONLDAP_US = {"client_credentials_RS256": 1e6 / 160, "refresh_RS256": 1e6 / 119}
LABELS = {
    "health": "`GET /health`", "validate_token": "validate-token (memo hit)",
    "login_ES256": "ES256 login (options + verify)", "login_RS256": "RS256 login (options + verify)",
    "login_EdDSA": "EdDSA login (options + verify)", "client_credentials_ES256": "client_credentials, ES256",
    "client_credentials_RS256": "client_credentials, RS256", "refresh_ES256": "refresh_token (rotation), ES256",
    "refresh_RS256": "refresh_token (rotation), RS256", "userinfo_ES256": "userinfo (ES256 access token)",
}


def floors(openssl: dict) -> dict:
    """The crypto of each operation in µs, from `openssl speed`: a login verifies one P-256
    assertion and signs one token; client_credentials signs one access token; a refresh signs
    an access token and an ID token; userinfo verifies its access token."""
    verify = 1e6 / openssl["p256_verify"]
    sign = {"ES256": 1e6 / openssl["p256_sign"], "RS256": 1e6 / openssl["rsa2048_sign"],
            "EdDSA": 1e6 / openssl["ed25519_sign"]}
    result = {"health": 0.0, "validate_token": 0.0, "userinfo_ES256": verify}
    for alg, cost in sign.items():
        result[f"login_{alg}"] = verify + cost
        result[f"client_credentials_{alg}"] = cost
        result[f"refresh_{alg}"] = 2 * cost
    return result


def main() -> None:
    out, target, command = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    openssl = json.loads((out / "openssl.json").read_text())
    swift = json.loads((out / "floor.json").read_text())
    library = json.loads((out / "library.json").read_text()) if (out / "library.json").exists() else None
    engines = {}
    for engine in ("sqlite", "postgres"):
        path = out / f"cpu-{engine}.json"
        if path.exists():
            data = json.loads(path.read_text())
            engines[engine] = data | {"figures": data["medians"][data["order"][0]]}
    floor = floors(openssl)
    lines = [BEGIN, "## Server CPU per operation (round three)", "",
             f"Written by `{command}` on {datetime.date.today()} at commit `{git('rev-parse', '--short', 'HEAD')}`"
             f" (`{'clean tree' if not git('status', '--porcelain') else 'uncommitted changes'}`). "
             f"CPU: {cpu_model()}, 2 cores shared by the server, the load generator and PostgreSQL.", "",
             "Each figure is the `umfa serve` process's CPU time (utime + stime from `/proc/PID/stat`) over a"
             " run, divided by the operations completed in it; the median of the rounds, which interleave the"
             " operations. wrk (GET, form POSTs, refresh-token.lua) or `umfa-bench load` (logins: options →"
             " assertion signed with a real P-256 key → verify → token) drive the load; their own CPU does not"
             " count. `PostgreSQL` is every postgres process's CPU over the same run. `statements` is the"
             " change of `umfa_store_query_duration_seconds_count` in `/metrics` per operation. The floor is"
             " the operation's crypto by `openssl speed` in the same run (a login: one P-256 verification and"
             " one token signature; a refresh: two signatures).", "",
             "| operation | SQLite: server CPU | statements | PostgreSQL: server CPU | PostgreSQL's own CPU |"
             " statements | PostgreSQL / SQLite | floor (openssl) |",
             "|---|---|---|---|---|---|---|---|"]
    sqlite, postgres = engines.get("sqlite", {}).get("figures", {}), engines.get("postgres", {}).get("figures", {})
    for operation, label in LABELS.items():
        s, p = sqlite.get(operation), postgres.get(operation)
        if not s and not p:
            continue
        cells = [f"{s['server_us']:,.0f} µs" if s else "", f"{s['statements']:.1f}" if s else "",
                 f"{p['server_us']:,.0f} µs" if p else "", f"{p['postgres_us']:,.0f} µs" if p else "",
                 f"{p['statements']:.1f}" if p else "",
                 f"{p['server_us'] / s['server_us']:.2f} ×" if s and p else "",
                 f"{floor[operation]:,.0f} µs" if floor.get(operation) else "—"]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "Crypto in the same run, operations per second on one core:", "",
              "| operation | `openssl speed` (OpenSSL 3, system) | swift-crypto (BoringSSL) in process |"
              " UMFA's JWS signer in process |", "|---|---|---|---|"]
    rs256_library = swift.get("rs256_library", "swift-crypto (BoringSSL)")
    for name, label, jws in (("p256_verify", "P-256 verify", None), ("p256_sign", "P-256 sign", "umfa_es256_jws"),
                             ("ed25519_sign", "Ed25519 sign", "umfa_eddsa_jws"),
                             ("rsa2048_sign", "RSA-2048 sign", "umfa_rs256_jws")):
        ours = f"{swift[jws]:,.0f}/s" if jws else "—"
        lines.append(f"| {label} | {openssl[name]:,.0f}/s | {swift[name]:,.0f}/s | {ours} |")
    lines += ["", "### Targets", ""]
    if sqlite:
        health = sqlite["health"]["server_us"]
        overhead = sqlite["login_ES256"]["server_us"] - floor["login_ES256"]
        lines.append(f"1. Login overhead (SQLite): ES256 login − its floor = {overhead:,.0f} µs ="
                     f" **{overhead / health:.1f} ×** `/health` ({health:.0f} µs); target ≤ 8 × —"
                     f" {verdict(overhead / health <= 8)}.")
    if sqlite and postgres:
        ratio = postgres["login_ES256"]["server_us"] / sqlite["login_ES256"]["server_us"]
        lines.append(f"2. PostgreSQL: UMFA CPU per ES256 login {postgres['login_ES256']['server_us']:,.0f} µs against"
                     f" {sqlite['login_ES256']['server_us']:,.0f} µs on SQLite = **{ratio:.2f} ×**; target ≤ 1.3 × —"
                     f" {verdict(ratio <= 1.3)}. PostgreSQL's own processes spent"
                     f" {postgres['login_ES256']['postgres_us']:,.0f} µs per login; statements per login"
                     f" {sqlite['login_ES256']['statements']:.1f} (SQLite), {postgres['login_ES256']['statements']:.1f}"
                     f" (PostgreSQL).")
    rsa = swift["umfa_rs256_jws"] / openssl["rsa2048_sign"]
    lines.append(f"3. RS256: UMFA's signer ({rs256_library}) {swift['umfa_rs256_jws']:,.0f}/s against `openssl speed rsa2048`"
                 f" {openssl['rsa2048_sign']:,.0f}/s = **{rsa:.2f} ×**; target ≥ 0.9 × — {verdict(rsa >= 0.9)}.")
    if sqlite:
        marginal = sqlite["login_RS256"]["server_us"] - sqlite["login_ES256"]["server_us"] + 1e6 / openssl["p256_sign"]
        lines.append(f"   In the server: an RS256 login costs {marginal:,.0f} µs more than an ES256 one plus its"
                     f" P-256 signature, i.e. {1e6 / marginal:,.0f} RSA signatures/s per core"
                     f" ({1e6 / marginal / openssl['rsa2048_sign']:.2f} × openssl).")
    kept = []
    for name, figures in (("SQLite", sqlite), ("PostgreSQL", postgres)):
        if figures:
            ratio = figures["health"]["server_us"] / figures["validate_token"]["server_us"]
            kept.append(f"{name} {ratio:.2f} ({verdict(ratio >= 0.5)})")
    if kept:
        lines.append("4. Kept: validate-token ≥ 0.5 × `/health` by server CPU (health µs / validate-token µs) — "
                     + ", ".join(kept) + ".")
    if library:
        lines.append(f"   Assertion verification {library['assertion_vs_raw_p256']:.2f} × raw P-256 (median of"
                     f" {library['rounds']} paired rounds; target ≥ 0.9 — {verdict(library['assertion_vs_raw_p256'] >= 0.9)}).")
    for name, figures in (("SQLite", sqlite), ("PostgreSQL", postgres)):
        parts = []
        for operation, theirs in LEMONLDAP_US.items():
            if operation in figures:
                ratio = theirs / figures[operation]["server_us"]
                parts.append(f"{operation.replace('_RS256', '')} {ratio:.1f} × ({verdict(ratio >= 5)})")
        if parts:
            lines.append(f"   Token endpoint per core against LemonLDAP::NG (its last full-run figure), {name}, RS256: "
                         + ", ".join(parts) + ".")
    for engine, data in engines.items():
        # This build's peak; a `UMFA_BENCH_BEFORE` build's is shown beside it, never judged.
        peaks = {name: kb / 1024 for name, kb in data["rss_peak_kb"].items()}
        peak = peaks[data["order"][0]]
        before = f"; the before build's {peaks[data['order'][1]]:.1f} MB" if len(data["order"]) > 1 else ""
        lines.append(f"   RSS peak ({engine}): {peak:.1f} MB ({verdict(peak < 100)}){before}.")
    lines += ["   Growth 1 k → 1 M users: from the full run below (`scripts/bench.sh`), not measured by `--cpu`.",
              "", "Medians of the rounds; each round's server CPU per operation is in"
              " `.build/bench-cpu/cpu-<engine>.json`."]
    for engine, data in engines.items():
        if len(data["order"]) < 2:
            continue
        after, before = data["medians"][data["order"][0]], data["medians"][data["order"][1]]
        lines += ["", f"Before / after on {engine} (`UMFA_BENCH_BEFORE`: both servers in the same rounds, order"
                  " alternating; server CPU per operation, medians, each round's figures in brackets):", "",
                  "| operation | before | after | change |", "|---|---|---|---|"]
        for operation, label in LABELS.items():
            if operation in after and operation in before:
                b, a = before[operation], after[operation]
                rounds = lambda f: ", ".join(f"{x:,.0f}" for x in f["server_us_rounds"])
                lines.append(f"| {label} | {b['server_us']:,.0f} µs ({rounds(b)}) | {a['server_us']:,.0f} µs"
                             f" ({rounds(a)}) | {100 * (a['server_us'] / b['server_us'] - 1):+.1f} % |")
        lines.append("")
    lines.append(END)
    section = "\n".join(lines)
    print(section)
    text = target.read_text() if target.exists() else "# Benchmarks\n"
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
    else:
        head, _, rest = text.partition("\n")
        text = head + "\n\n" + section + "\n" + rest
    target.write_text(text)


if __name__ == "__main__":
    main()
