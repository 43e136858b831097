"""Turns the JSON figures of one scripts/bench.sh run into BENCHMARKS.md: machine, date,
commands, every figure beside its target, then the analysis kept in scripts/bench/ANALYSIS.md."""

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path


def load(out: Path, name: str) -> dict | None:
    path = out / name
    return json.loads(path.read_text()) if path.exists() else None


def verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True).stdout.strip()


def main() -> None:
    out, target, command = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    library, python, ceiling = load(out, "library.json"), load(out, "pywebauthn.json"), load(out, "ceiling.json")
    engines = {name: load(out, f"server-{name}.json") for name in ("sqlite", "postgres", "postgres-async")}
    cores = os.cpu_count() or 1
    lines = [
        "# Benchmarks",
        "",
        f"Written by `{command}` on {datetime.date.today().isoformat()} at commit `{git('rev-parse', '--short', 'HEAD')}`"
        f" (`{git('status', '--porcelain') and 'with local changes' or 'clean tree'}`).",
        f"Machine: {cores} cores (`nproc`), {cpu_model()}, {platform.system()} {platform.release()};"
        f" {subprocess.run(['swift', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}.",
        "Release builds (`swift build -c release`). Every ratio compares figures taken in the same run;",
        "the load generator, wrk and the server share the same cores (their CPU use is reported).",
        "",
        "Reproduce: `scripts/bench.sh` (all of it, ~15 min after the build) or `scripts/bench.sh --smoke`.",
        "Pieces: `umfa-bench library|ceiling|load` (Benchmarks/, an executable of its own package),",
        "`scripts/bench/pywebauthn_bench.py` (py_webauthn 3.0.1 on the same responses),",
        "`scripts/bench/server_bench.py` (release `umfa serve`, seeding, wrk), `scripts/bench/report.py`.",
        "",
        "## Library (one core, ES256)",
        "",
        "| figure | UMFA | raw P-256 verify | py_webauthn 3.0.1 | UMFA / raw | UMFA / py_webauthn |",
        "|---|---|---|---|---|---|",
    ]
    if library and python:
        raw = library["raw_p256_verify_per_second"]
        for label, key in (("assertion verification (§7.2)", "assertion_verify_per_second"),
                           ("registration verification, `none`", "registration_none_verify_per_second"),
                           ("registration verification, `packed` self", "registration_packed_verify_per_second")):
            ours, theirs = library[key], python[key]
            lines.append(f"| {label} | {ours:,.0f}/s | {raw:,.0f}/s | {theirs:,.0f}/s | {ours / raw:.2f} |"
                         f" {ours / theirs:.2f} × |")
        assertion = library["assertion_verify_per_second"]
        # The median of the rounds' own ratios (umfa-bench library measures both back to back in
        # each round); the table's "UMFA / raw" divides the best rates.
        paired = library["assertion_vs_raw_p256"]
        spread = (f", rounds {library['assertion_vs_raw_p256_lowest_round']:.2f}–"
                  f"{library['assertion_vs_raw_p256_highest_round']:.2f}"
                  if "assertion_vs_raw_p256_lowest_round" in library else "")
        lines += ["", "Targets: assertion verification ≥ 0.90 × raw P-256 — "
                  f"{verdict(paired >= 0.9)} ({paired:.2f}, the median of {library.get('rounds', 1)} rounds"
                  f" that measure both back to back{spread}); ≥ 1.8 × py_webauthn — "
                  f"{verdict(assertion / python['assertion_verify_per_second'] >= 1.8)}"
                  f" ({assertion / python['assertion_verify_per_second']:.2f} ×)."]
    if ceiling:
        per_core = ceiling["logins_per_second_per_core"]
        lines += ["", "## Crypto ceiling of one login", "",
                  f"P-256 verify {ceiling['p256_verify_per_second']:,.0f}/s, RS256 sign (2048-bit)"
                  f" {ceiling['rs256_sign_per_second']:,.0f}/s on one core → {per_core:,.0f} logins/s per core,"
                  f" {per_core * cores:,.0f}/s for the {cores} cores (the ceiling below)."]
    lines += ["", "## Server over HTTP on loopback", "",
              "Complete logins: options → assertion signed with a real P-256 key → verify → RS256 token. "
              "Registrations: options → new key → verify (`none`). "
              "Load: `umfa-bench load`, concurrency as shown, each figure after a warm-up.", "",
              "`of ceiling` divides by the crypto ceiling of all the cores; `of server CPU` divides by the"
              " ceiling of the CPU the server itself used (the generator takes the rest): the share of the"
              " server's work that is the login's two signatures.", "",
              "`PostgreSQL CPU` is every PostgreSQL process's, on the same two cores.", "",
              "| engine | ceremony | per second | p50 | p99 | errors | server CPU | generator CPU | PostgreSQL CPU |"
              " of ceiling | of server CPU |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    ceiling_total = (ceiling["logins_per_second_per_core"] * cores) if ceiling else None
    for name, figures in engines.items():
        if not figures:
            continue
        first = next(iter(figures["logins"].values()))
        for ceremony, row in (("login", first), ("registration", figures["registration"])):
            share = f"{row['per_second'] / ceiling_total:.0%}" if ceiling_total and ceremony == "login" else ""
            database = f"{row['database_cpu_cores']:.2f} cores" if "database_cpu_cores" in row else ""
            server_share = (f"{row['per_second'] / (ceiling_total / cores * row['server_cpu_cores_incl_setup']):.0%}"
                            if ceiling_total and ceremony == "login" else "")
            lines.append(
                f"| {name} | {ceremony} | {row['per_second']:,.0f} | {row['p50_ms']:.2f} ms | {row['p99_ms']:.2f} ms |"
                f" {row['errors']} | {row['server_cpu_cores_incl_setup']:.2f} cores |"
                f" {row['generator_cpu_cores']:.2f} cores | {database} |"
                f" {share} | {server_share} |")
    sqlite, postgres = engines.get("sqlite"), engines.get("postgres")
    if sqlite and ceiling_total:
        logins = next(iter(sqlite["logins"].values()))["per_second"]
        # Ratios only: the throughput targets were retired in round three (server CPU per
        # operation, `scripts/bench.sh --cpu`, judges logins now).
        lines += ["", f"Logins on SQLite: {logins / ceiling_total:.0%} of the ceiling"
                  + (f"; PostgreSQL {next(iter(postgres['logins'].values()))['per_second'] / logins:.0%} of SQLite"
                     if postgres else "")
                  + (f"; with `synchronous_commit=off` "
                     f"{next(iter(engines['postgres-async']['logins'].values()))['per_second'] / logins:.0%}"
                     if engines.get("postgres-async") else "")
                  + " (retired targets; the CPU targets above replace them)."]
    lines += ["", "## Login tokens by signing algorithm (same server, same users, same run)", "",
              "The application's `token_signing_alg` changed between runs of the same login load.", "",
              "| engine | RS256 | ES256 | EdDSA | ES256 / RS256 | EdDSA / RS256 |", "|---|---|---|---|---|---|"]
    alg_verdicts, alg_costs = [], []
    for name, figures in engines.items():
        by_alg = (figures or {}).get("logins_by_alg")
        if not by_alg:
            continue
        rs, es, ed = (by_alg[a]["per_second"] for a in ("RS256", "ES256", "EdDSA"))
        lines.append(f"| {name} | {rs:,.0f}/s | {es:,.0f}/s | {ed:,.0f}/s | {es / rs:.2f} × | {ed / rs:.2f} × |")
        alg_verdicts.append(f"{name} {max(es, ed) / rs:.2f} ×")
        # CPU per login on the two shared cores (server and generator): with the machine busy,
        # the throughput ratio is at most the ratio of these costs.
        costs = {a: 1000 * (by_alg[a]["server_cpu_cores_incl_setup"] + by_alg[a]["generator_cpu_cores"])
                 / by_alg[a]["per_second"] for a in ("RS256", "ES256", "EdDSA")}
        generator = 1000 * by_alg["ES256"]["generator_cpu_cores"] / by_alg["ES256"]["per_second"]
        alg_costs.append(f"{name}: {costs['RS256']:.2f} / {costs['ES256']:.2f} / {costs['EdDSA']:.2f} ms"
                         f" (the generator's share {generator:.2f} ms)")
    lines += ["", f"ES256 or EdDSA logins against RS256 (a retired target): {', '.join(alg_verdicts) or 'not measured'}."]
    if alg_costs:
        lines += ["", "CPU per login (server and load generator, which share the two cores), RS256 / ES256 / "
                  f"EdDSA — {'; '.join(alg_costs)}."]
        if ceiling:
            # With x the rest of a login, r an RS256 signature and e a P-256 one (about as costly
            # as a P-256 verification), 3 × needs x + r ≥ 3 (x + e), so x ≤ (r − 3e) / 2.
            rsa = 1000 / ceiling["rs256_sign_per_second"]
            p256 = 1000 / ceiling["p256_verify_per_second"]
            lines[-1] += (f" An RS256 signature costs {rsa:.2f} ms here (the ceiling above) and a P-256 one about"
                          f" {p256:.2f} ms, so 3 × would need everything else in a login, the generator's share"
                          f" included, under {(rsa - 3 * p256) / 2:.2f} ms of CPU.")
    lines += ["", "## OAuth token endpoint (wrk -t2 -c32, HTTP Basic client, same server, same run)", "",
              "| engine | client_credentials RS256 | client_credentials ES256 | introspection | non-2xx |",
              "|---|---|---|---|---|"]
    for name, figures in engines.items():
        oauth = (figures or {}).get("oauth")
        if not oauth:
            continue
        rs, es, intro = oauth["client_credentials_RS256"], oauth["client_credentials_ES256"], oauth["introspection"]
        lines.append(f"| {name} | {rs['per_second']:,.0f}/s (p99 {rs['p99_ms']:.1f} ms) |"
                     f" {es['per_second']:,.0f}/s (p99 {es['p99_ms']:.1f} ms) |"
                     f" {intro['per_second']:,.0f}/s (p99 {intro['p99_ms']:.1f} ms) |"
                     f" {rs['non_2xx'] + es['non_2xx'] + intro['non_2xx']} |")
    lines += ["", "### A user's tokens: `refresh_token` with rotation, and userinfo (wrk -t2 -c32, same run)", "",
              "One user signed in through the API-driven flow (`Tests/Interop/api_flow_client.py`) once per"
              " refresh-token family, for a confidential client (HTTP Basic, scope `openid email profile`):"
              " its refresh tokens are bound to no DPoP key, so wrk refreshes without proofs and gets Bearer"
              " access tokens. Every refresh spends its token and answers a new one (and a new access token"
              " and ID token); `scripts/bench/refresh-token.lua` never sends a token twice (a spent one"
              " revokes its family) and counts the answers that were not a 200 with a new refresh token."
              " A figure counts when at most 0.1 % were not (`errors`), and a spent initial token sent again"
              " after the run is refused. Userinfo: GET with one Bearer access token from a refresh.", "",
              "| engine | alg | refresh_token | server CPU | per core | errors | userinfo | server CPU | per core |",
              "|---|---|---|---|---|---|---|---|---|"]

    def per_core(row: dict) -> float:
        return row["per_second"] / max(row["server_cpu_cores"], 0.01)

    def refresh_cell(row: dict) -> str:
        figure = f"{row['per_second']:,.0f}/s (p99 {row['p99_ms']:.0f} ms)"
        return figure if row.get("valid") else f"**invalid** ({figure}: {row.get('problem', '?')})"

    for name, figures in engines.items():
        oauth = (figures or {}).get("oauth") or {}
        for alg in ("RS256", "ES256"):
            refresh, userinfo = oauth.get(f"refresh_token_{alg}"), oauth.get(f"userinfo_{alg}")
            if not refresh or not userinfo:
                continue
            lines.append(f"| {name} | {alg} | {refresh_cell(refresh)} | {refresh['server_cpu_cores']:.2f} cores |"
                         f" {per_core(refresh):,.0f}/s | {refresh['non_200'] + refresh['no_refresh_token']} of {refresh['requests']:,} |"
                         f" {userinfo['per_second']:,.0f}/s (p99 {userinfo['p99_ms']:.0f} ms) |"
                         f" {userinfo['server_cpu_cores']:.2f} cores | {per_core(userinfo):,.0f}/s |")
    if not any(((f or {}).get("oauth") or {}).get("refresh_token_RS256") for f in engines.values()):
        lines += ["", "Not measured in this run."]
    peer = load(out, "lemonldap.json")
    lines += ["", "### Beside LemonLDAP::NG (same machine, same load generator, same run)", ""]
    if peer and peer.get("client_credentials"):
        theirs = peer["client_credentials"]
        their_per_core = per_core(theirs)
        their_refresh = peer.get("refresh_token")
        lines += [f"LemonLDAP::NG {peer.get('version', '?')} from Debian (`scripts/bench/lemonldap.sh`: nginx,"
                  f" {peer.get('fastcgi_workers', '?')} FastCGI workers, Demo backend, JWT access tokens"
                  " signed RS256), one confidential client by HTTP Basic. UMFA with RS256 too.", "",
                  "| server | client_credentials | server CPU | per core | refresh_token | server CPU | per core |",
                  "|---|---|---|---|---|---|---|"]
        if their_refresh:
            lines.append(f"| LemonLDAP::NG | {theirs['per_second']:,.0f}/s (p99 {theirs['p99_ms']:.0f} ms) |"
                         f" {theirs['server_cpu_cores']:.2f} cores | {their_per_core:,.0f}/s |"
                         f" {their_refresh['per_second']:,.0f}/s (p99 {their_refresh['p99_ms']:.0f} ms;"
                         f" {their_refresh['method']}, rotates: {str(their_refresh['rotates']).lower()}) |"
                         f" {their_refresh['server_cpu_cores']:.2f} cores | {per_core(their_refresh):,.0f}/s |")
        else:
            lines.append(f"| LemonLDAP::NG | {theirs['per_second']:,.0f}/s (p99 {theirs['p99_ms']:.0f} ms) |"
                         f" {theirs['server_cpu_cores']:.2f} cores | {their_per_core:,.0f}/s |"
                         f" not measured: {peer.get('refresh_token_problem', '?')} | | |")
        peer_verdicts, refresh_verdicts = [], []
        for name, figures in engines.items():
            oauth = (figures or {}).get("oauth") or {}
            ours = oauth.get("client_credentials_RS256")
            if not ours or "server_cpu_cores" not in ours:
                continue
            our_per_core = per_core(ours)
            refresh = oauth.get("refresh_token_RS256")
            refresh_cells = (f"{refresh_cell(refresh)} | {refresh['server_cpu_cores']:.2f} cores |"
                             f" {per_core(refresh):,.0f}/s" if refresh else "not measured | |")
            lines.append(f"| UMFA, {name}, RS256 | {ours['per_second']:,.0f}/s (p99 {ours['p99_ms']:.0f} ms) |"
                         f" {ours['server_cpu_cores']:.2f} cores | {our_per_core:,.0f}/s | {refresh_cells} |")
            peer_verdicts.append(f"{name} {verdict(our_per_core >= 5 * their_per_core)}"
                                 f" ({our_per_core / their_per_core:.1f} ×)")
            if refresh and not refresh.get("valid"):
                refresh_verdicts.append(f"{name} not measured (the figure is invalid)")
            elif refresh and their_refresh:
                ratio = per_core(refresh) / per_core(their_refresh)
                refresh_verdicts.append(f"{name} {verdict(ratio >= 5)} ({ratio:.1f} ×)")
        if not their_refresh:
            refresh_text = f"not measured for LemonLDAP::NG ({peer.get('refresh_token_problem', '?')})"
        else:
            refresh_text = ", ".join(refresh_verdicts) or "not measured for UMFA"
        lines += ["", "Target: UMFA ≥ 5 × LemonLDAP::NG per core, `client_credentials` — "
                  f"{', '.join(peer_verdicts) or 'not measured'}; `refresh_token` — {refresh_text}."]
        if their_refresh and not their_refresh.get("rotates", True):
            lines += ["", "LemonLDAP::NG does not rotate its refresh tokens (wrk replays them); UMFA rotates"
                      " every one (each refresh spends a token and writes a new one)."]
    else:
        lines += [f"Not measured: {(peer or {}).get('error', 'scripts/bench/lemonldap.sh did not run')}."]
    lines += ["", "## validate-token beside /health (wrk -t2 -c32, same server, same run)", "",
              "Five rounds, each measuring both back to back (which goes first alternates). The rates are each"
              " the best round's; the target's ratio is the median of the rounds' own ratios.", "",
              "| engine | validate-token | /health | best / best | median of rounds (range) |"
              " validate-token p50 / p99 | non-2xx |", "|---|---|---|---|---|---|---|"]

    def paired(figures: dict) -> float:
        # Runs written before the paired rounds only have the best of each.
        if "validate_token_vs_health" in figures:
            return figures["validate_token_vs_health"]["median"]
        return figures["validate_token"]["per_second"] / figures["health"]["per_second"]

    for name, figures in engines.items():
        if figures:
            v, h = figures["validate_token"], figures["health"]
            rounds = figures.get("validate_token_vs_health")
            spread = f" ({rounds['lowest']:.0%}–{rounds['highest']:.0%})" if rounds else ""
            lines.append(f"| {name} | {v['per_second']:,.0f}/s | {h['per_second']:,.0f}/s |"
                         f" {v['per_second'] / h['per_second']:.0%} | {paired(figures):.0%}{spread} |"
                         f" {v['p50_ms']:.2f} / {v['p99_ms']:.2f} ms | {v['non_2xx'] + h['non_2xx']} |")
    ratios = [f"{name} {verdict(paired(f) >= 0.5)} ({paired(f):.0%})" for name, f in engines.items() if f]
    lines += ["", f"Target: validate-token ≥ 50 % of /health — {', '.join(ratios)}.", "",
              "## Growth: login latency by enrolled users (seeded directly into the database)", "",
              "| engine | users | logins/s | p50 | p99 |", "|---|---|---|---|---|"]
    for name, figures in engines.items():
        if not figures:
            continue
        for users, row in figures["logins"].items():
            lines.append(f"| {name} | {int(users):,} | {row['per_second']:,.0f} | {row['p50_ms']:.2f} ms |"
                         f" {row['p99_ms']:.2f} ms |")
        rows = list(figures["logins"].values())
        if len(rows) > 1:
            growth50, growth99 = rows[-1]["p50_ms"] / rows[0]["p50_ms"], rows[-1]["p99_ms"] / rows[0]["p99_ms"]
            lines.append(f"| {name} | growth | | {growth50:.2f} × ({verdict(growth50 <= 1.3)}) |"
                         f" {growth99:.2f} × ({verdict(growth99 <= 1.3)}) |")
    lines += ["", "Target: latency grows by at most 1.3 × from 1 thousand to 1 million users.", "",
              "## Memory (server RSS)", "", "| engine | idle | peak (VmHWM, whole run) |", "|---|---|---|"]
    for name, figures in engines.items():
        if figures:
            lines.append(f"| {name} | {figures['rss_idle_kb'] / 1024:.1f} MB | {figures['rss_peak_kb'] / 1024:.1f} MB"
                         f" ({verdict(figures['rss_peak_kb'] < 100 * 1024)}) |")
    lines += ["", "Target: RSS under 100 MB at peak load.", ""]
    previous = target.read_text() if target.exists() else ""
    # The TLS section (scripts/bench-tls.sh's figures, written by hand) stays, before the analysis.
    tls = kept_section(previous, "tls")
    if tls:
        lines += [tls, ""]
    analysis = Path(__file__).parent / "ANALYSIS.md"
    if analysis.exists():
        lines += [analysis.read_text().rstrip(), ""]
    # The section `scripts/bench.sh --cpu` writes (cpu_report.py) stays, after the title.
    cpu = kept_section(previous, "cpu")
    if cpu:
        lines[1:1] = ["", cpu]
    target.write_text("\n".join(lines))


def kept_section(text: str, name: str) -> str | None:
    """The part of `text` from `<!-- NAME:begin -->` to `<!-- NAME:end -->`, markers included."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        return None
    return text[text.index(begin):text.index(end) + len(end)]


if __name__ == "__main__":
    main()
