"""Makes the tables of docs/performance/README.md from docs/performance/results/*.json (see
figures.py): every block between `<!-- results:NAME:begin -->` and `<!-- results:NAME:end -->`
is written from the figures, nothing else in the page is touched. Figures missing from a run (a
section not measured, a build not compared) leave their rows or blocks out.

usage: render.py [--check] [--results DIR] [--page FILE]
  --check   change nothing; exit 1 and name the stale blocks when the page differs from the figures"""

import argparse
import re
import sys
from pathlib import Path

from figures import RESULTS, load, verdict

PAGE = RESULTS.parent / "README.md"
BLOCK = re.compile(r"<!-- results:([\w/-]+):begin -->\n(.*?)<!-- results:\1:end -->", re.S)
FIELD = re.compile(r"\{([A-Za-z0-9_.\-]+)(?::([^{}]*))?\}")
ENGINES = ("sqlite", "postgres", "postgres-async")


class Missing(Exception):
    pass


class Figures:
    """One results file: `f(template)` fills `{name:format}` fields with the named figures and
    raises Missing when one is absent."""

    def __init__(self, path: Path) -> None:
        self.figures = load(path) if path.exists() else {None: {}}
        self.runs = self.figures[None]

    def __contains__(self, name: str) -> bool:
        return name in self.figures

    def value(self, name: str):
        if name not in self.figures:
            raise Missing(name)
        return self.figures[name]["value"]

    def __call__(self, template: str) -> str:
        def field(match: re.Match) -> str:
            value = self.value(match.group(1))
            spec = match.group(2) or ""
            if isinstance(value, list):
                return ", ".join(format(v, spec) for v in value)
            return format(value, spec)

        return FIELD.sub(field, template)

    def met(self, name: str, ok) -> str:
        return verdict(ok(self.value(name)))


def rows(f: Figures, templates: list[str]) -> list[str]:
    """The filled templates, leaving out those whose figures are missing."""
    lines = []
    for template in templates:
        try:
            lines.append(f(template))
        except Missing:
            pass
    return lines


def written_by(run: dict) -> str:
    return f"Written by `{run['command']}` on {run['date']} at commit `{run['commit']}` (`{run['tree']}`)."


# --- scripts/bench.sh --cpu -------------------------------------------------------------------

CPU_LABELS = {
    "health": "`GET /health`", "validate_token": "validate-token (memo hit)",
    "login_ES256": "ES256 login (options + verify)", "login_RS256": "RS256 login (options + verify)",
    "login_EdDSA": "EdDSA login (options + verify)", "client_credentials_ES256": "client_credentials, ES256",
    "client_credentials_RS256": "client_credentials, RS256", "refresh_ES256": "refresh_token (rotation), ES256",
    "refresh_RS256": "refresh_token (rotation), RS256", "userinfo_ES256": "userinfo (ES256 access token)",
}


def cpu_run(f: Figures) -> list[str]:
    run = f.runs.get("this")
    return [f"{written_by(run)} CPU: {run['machine']}."] if run else []


def cpu_table(f: Figures) -> list[str]:
    lines = ["| operation | SQLite: server CPU | statements | PostgreSQL: server CPU | PostgreSQL's own CPU |"
             " statements | PostgreSQL / SQLite | floor (openssl) |", "|---|---|---|---|---|---|---|---|"]
    for op, label in CPU_LABELS.items():
        if f"sqlite.{op}.server_us" not in f and f"postgres.{op}.server_us" not in f:
            continue
        cells = [f"{{sqlite.{op}.server_us:,.0f}} µs", f"{{sqlite.{op}.statements:.1f}}",
                 f"{{postgres.{op}.server_us:,.0f}} µs", f"{{postgres.{op}.postgres_us:,.0f}} µs",
                 f"{{postgres.{op}.statements:.1f}}", f"{{postgres_vs_sqlite.{op}:.2f}} ×"]
        filled = [(rows(f, [cell]) or [""])[0] for cell in cells]
        filled.append((rows(f, [f"{{floor.{op}:,.0f}} µs"]) or ["—"])[0])
        lines.append(f"| {label} | " + " | ".join(filled) + " |")
    return lines


def cpu_crypto(f: Figures) -> list[str]:
    lines = ["| operation | `openssl speed` (OpenSSL 3, system) | swift-crypto (BoringSSL) in process |"
             " UMFA's JWS signer in process |", "|---|---|---|---|"]
    for name, label, jws in (("p256_verify", "P-256 verify", None), ("p256_sign", "P-256 sign", "ES256"),
                             ("ed25519_sign", "Ed25519 sign", "EdDSA"), ("rsa2048_sign", "RSA-2048 sign", "RS256")):
        ours = f"{{crypto.umfa_jws.{jws}:,.0f}}/s" if jws else "—"
        lines += rows(f, [f"| {label} | {{crypto.openssl.{name}:,.0f}}/s | {{crypto.swift_crypto.{name}:,.0f}}/s"
                          f" | {ours} |"])
    return lines


def cpu_targets(f: Figures) -> list[str]:
    lines = []
    if "target.login_overhead_vs_health" in f:
        lines.append(f("1. Login overhead (SQLite): ES256 login − its floor = {target.login_overhead_us:,.0f} µs ="
                       " **{target.login_overhead_vs_health:.1f} ×** `/health` ({sqlite.health.server_us:.0f} µs);"
                       " target ≤ 8 × — ") + f.met("target.login_overhead_vs_health", lambda v: v <= 8) + ".")
    if "postgres_vs_sqlite.login_ES256" in f:
        lines.append(f("2. PostgreSQL: UMFA CPU per ES256 login {postgres.login_ES256.server_us:,.0f} µs against"
                       " {sqlite.login_ES256.server_us:,.0f} µs on SQLite = **{postgres_vs_sqlite.login_ES256:.2f} ×**;"
                       " target ≤ 1.5 × — ") + f.met("postgres_vs_sqlite.login_ES256", lambda v: v <= 1.5)
                     + f(". PostgreSQL's own processes spent {postgres.login_ES256.postgres_us:,.0f} µs per login;"
                         " statements per login {sqlite.login_ES256.statements:.1f} (SQLite),"
                         " {postgres.login_ES256.statements:.1f} (PostgreSQL)."))
    if "target.rs256_vs_openssl" in f:
        lines.append(f("3. RS256: UMFA's signer ({crypto.rs256_library}) {crypto.umfa_jws.RS256:,.0f}/s against"
                       " `openssl speed rsa2048` {crypto.openssl.rsa2048_sign:,.0f}/s ="
                       " **{target.rs256_vs_openssl:.2f} ×**; target ≥ 0.9 × — ")
                     + f.met("target.rs256_vs_openssl", lambda v: v >= 0.9) + ".")
    lines += rows(f, ["   In the server: an RS256 login costs {target.rs256_in_server_us:,.0f} µs more than an ES256"
                      " one plus its P-256 signature, i.e. {target.rs256_in_server_per_second:,.0f} RSA signatures/s"
                      " per core ({target.rs256_in_server_vs_openssl:.2f} × openssl)."])
    kept = [f(f"{label} {{target.health_vs_validate_token.{engine}:.2f}} (")
            + f.met(f"target.health_vs_validate_token.{engine}", lambda v: v >= 0.5) + ")"
            for engine, label in (("sqlite", "SQLite"), ("postgres", "PostgreSQL"))
            if f"target.health_vs_validate_token.{engine}" in f]
    if kept:
        lines.append("4. Kept: validate-token ≥ 0.5 × `/health` by server CPU (health µs / validate-token µs) — "
                     + ", ".join(kept) + ".")
    if "library.assertion_vs_raw_p256" in f:
        lines.append(f("   Assertion verification {library.assertion_vs_raw_p256:.2f} × raw P-256 (median of"
                       " {library.rounds} paired rounds; target ≥ 0.9 — ")
                     + f.met("library.assertion_vs_raw_p256", lambda v: v >= 0.9) + ").")
    for engine, label in (("sqlite", "SQLite"), ("postgres", "PostgreSQL")):
        parts = [f(f"{op.replace('_RS256', '')} {{target.vs_lemonldap.{engine}.{op}:.1f}} × (")
                 + f.met(f"target.vs_lemonldap.{engine}.{op}", lambda v: v >= 5) + ")"
                 for op in ("client_credentials_RS256", "refresh_RS256") if f"target.vs_lemonldap.{engine}.{op}" in f]
        if parts:
            lines.append(f"   Token endpoint per core against LemonLDAP::NG (its last full-run figure), {label}, RS256: "
                         + ", ".join(parts) + ".")
    for engine in ("sqlite", "postgres"):
        if f"{engine}.rss_peak" in f:
            before = rows(f, [f"; the before build's {{{engine}.rss_peak_before:.1f}} MB"]) or [""]
            lines.append(f(f"   RSS peak ({engine}): {{{engine}.rss_peak:.1f}} MB (")
                         + f.met(f"{engine}.rss_peak", lambda v: v < 100) + f"){before[0]}.")
    peer = f.runs.get("peer")
    if peer:
        lines.append(f"   LemonLDAP::NG's figures per core: from `{peer['command']}` of {peer['date']}, commit"
                     f" {peer['commit']}" + (f"; {peer['note']}" if peer.get("note") else "") + ".")
    return lines + ["   Growth 1 k → 1 M users: from the full run (`scripts/bench.sh`), not measured by `--cpu`."]


def cpu_before_after(f: Figures) -> list[str]:
    lines = []
    for engine in ("sqlite", "postgres"):
        table = rows(f, [f"| {label} | {{{engine}.{op}.before.server_us:,.0f}} µs"
                         f" ({{{engine}.{op}.before.server_us_rounds:,.0f}}) | {{{engine}.{op}.server_us:,.0f}} µs"
                         f" ({{{engine}.{op}.server_us_rounds:,.0f}}) | {{{engine}.{op}.change:+.1%}} |"
                         for op, label in CPU_LABELS.items()])
        if table:
            lines += [f"Before / after on {engine} (`UMFA_BENCH_BEFORE`: both servers in the same rounds, order"
                      " alternating; server CPU per operation, medians, each round's figures in brackets):", "",
                      "| operation | before | after | change |", "|---|---|---|---|", *table, ""]
    return lines[:-1] if lines else ["No other build in this run."]


# --- scripts/bench.sh (the full run) ---------------------------------------------------------

def full_run(f: Figures) -> list[str]:
    run = f.runs.get("this")
    return [written_by(run), f"Machine: {run['machine']}."] if run else []


def full_library(f: Figures) -> list[str]:
    lines = ["| figure | UMFA | raw P-256 verify | py_webauthn 3.0.1 | UMFA / raw | UMFA / py_webauthn |",
             "|---|---|---|---|---|---|"]
    lines += rows(f, [f"| {label} | {{library.{name}.umfa:,.0f}}/s | {{library.raw_p256_verify:,.0f}}/s |"
                      f" {{library.{name}.py_webauthn:,.0f}}/s | {{library.{name}.vs_raw:.2f}} |"
                      f" {{library.{name}.vs_py_webauthn:.2f}} × |"
                      for name, label in (("assertion", "assertion verification (§7.2)"),
                                          ("registration_none", "registration verification, `none`"),
                                          ("registration_packed", "registration verification, `packed` self"))])
    if "library.assertion.vs_raw_median" in f:
        spread = rows(f, [", rounds {library.assertion.vs_raw_lowest_round:.2f}–"
                          "{library.assertion.vs_raw_highest_round:.2f}"]) or [""]
        lines += ["", "Targets: assertion verification ≥ 0.90 × raw P-256 — "
                  + f.met("library.assertion.vs_raw_median", lambda v: v >= 0.9)
                  + f(" ({library.assertion.vs_raw_median:.2f}, the median of {library.rounds} rounds"
                      " that measure both back to back") + spread[0] + "); ≥ 1.8 × py_webauthn — "
                  + f.met("library.assertion.vs_py_webauthn", lambda v: v >= 1.8)
                  + f(" ({library.assertion.vs_py_webauthn:.2f} ×).")]
    return lines


def full_ceiling(f: Figures) -> list[str]:
    return rows(f, ["P-256 verify {ceiling.p256_verify:,.0f}/s, RS256 sign (2048-bit) {ceiling.rs256_sign:,.0f}/s"
                    " on one core → {ceiling.logins_per_core:,.0f} logins/s per core, {ceiling.logins_all_cores:,.0f}/s"
                    " for the {cores} cores (the ceiling below)."])


def first_users(f: Figures, engine: str) -> str | None:
    name = f"login.{engine}.users"
    return str(f.value(name)[0]) if name in f else None


def full_server(f: Figures) -> list[str]:
    lines = ["| engine | ceremony | per second | p50 | p99 | errors | server CPU | generator CPU | PostgreSQL CPU |"
             " of ceiling | of server CPU |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for engine in ENGINES:
        users = first_users(f, engine)
        if not users:
            continue
        for ceremony, prefix in (("login", f"login.{engine}.{users}"), ("registration", f"registration.{engine}")):
            database = (rows(f, [f"{{{prefix}.database_cpu_cores:.2f}} cores"]) or [""])[0]
            shares = (rows(f, [f"{{login.{engine}.of_ceiling:.0%}} | {{login.{engine}.of_server_cpu:.0%}}"]) or [" | "])[0] \
                if ceremony == "login" else " | "
            lines += rows(f, [f"| {engine} | {ceremony} | {{{prefix}.per_second:,.0f}} | {{{prefix}.p50_ms:.2f}} ms |"
                              f" {{{prefix}.p99_ms:.2f}} ms | {{{prefix}.errors}} | {{{prefix}.server_cpu_cores:.2f}} cores |"
                              f" {{{prefix}.generator_cpu_cores:.2f}} cores | {database} | {shares} |"])
    if "login.sqlite.of_ceiling" in f:
        lines += ["", f("Logins on SQLite: {login.sqlite.of_ceiling:.0%} of the ceiling")
                  + "".join(rows(f, ["; PostgreSQL {login.postgres.vs_sqlite:.0%} of SQLite",
                                     "; with `synchronous_commit=off` {login.postgres-async.vs_sqlite:.0%}"]))
                  + " (retired targets; the CPU targets above replace them)."]
    return lines


def full_algorithms(f: Figures) -> list[str]:
    lines = ["| engine | RS256 | ES256 | EdDSA | ES256 / RS256 | EdDSA / RS256 |", "|---|---|---|---|---|---|"]
    verdicts, costs = [], []
    for engine in ENGINES:
        users = first_users(f, engine)
        if not users or f"by_alg.{engine}.ES256.per_second" not in f:
            continue
        lines.append(f(f"| {engine} | {{login.{engine}.{users}.per_second:,.0f}}/s | {{by_alg.{engine}.ES256.per_second:,.0f}}/s"
                       f" | {{by_alg.{engine}.EdDSA.per_second:,.0f}}/s | {{by_alg.{engine}.ES256.vs_RS256:.2f}} × |"
                       f" {{by_alg.{engine}.EdDSA.vs_RS256:.2f}} × |"))
        verdicts.append(f(f"{engine} {{by_alg.{engine}.best_vs_RS256:.2f}} ×"))
        costs.append(f(f"{engine}: {{by_alg.{engine}.RS256.cpu_ms:.2f}} / {{by_alg.{engine}.ES256.cpu_ms:.2f}} /"
                       f" {{by_alg.{engine}.EdDSA.cpu_ms:.2f}} ms (the generator's share {{by_alg.{engine}.generator_ms:.2f}} ms)"))
    lines += ["", f"ES256 or EdDSA logins against RS256 (a retired target): {', '.join(verdicts) or 'not measured'}."]
    if costs:
        lines += ["", "CPU per login (server and load generator, which share the two cores), RS256 / ES256 / "
                  f"EdDSA — {'; '.join(costs)}."
                  + "".join(rows(f, [" An RS256 signature costs {ceiling.rs256_sign_ms:.2f} ms here (the ceiling above)"
                                     " and a P-256 one about {ceiling.p256_ms:.2f} ms, so 3 × would need everything else"
                                     " in a login, the generator's share included, under {ceiling.rest_for_3x_ms:.2f} ms"
                                     " of CPU."]))]
    return lines


def full_oauth(f: Figures) -> list[str]:
    return ["| engine | client_credentials RS256 | client_credentials ES256 | introspection | non-2xx |",
            "|---|---|---|---|---|"] + rows(f, [
                f"| {e} | {{oauth.{e}.client_credentials_RS256.per_second:,.0f}}/s (p99 {{oauth.{e}.client_credentials_RS256.p99_ms:.1f}} ms) |"
                f" {{oauth.{e}.client_credentials_ES256.per_second:,.0f}}/s (p99 {{oauth.{e}.client_credentials_ES256.p99_ms:.1f}} ms) |"
                f" {{oauth.{e}.introspection.per_second:,.0f}}/s (p99 {{oauth.{e}.introspection.p99_ms:.1f}} ms) |"
                f" {{oauth.{e}.non_2xx}} |" for e in ENGINES])


def refresh_cell(f: Figures, prefix: str) -> str:
    figure = f(f"{{{prefix}.per_second:,.0f}}/s (p99 {{{prefix}.p99_ms:.0f}} ms)")
    return f(f"**invalid** ({figure}: {{{prefix}.problem}})") if f"{prefix}.problem" in f else figure


def full_refresh(f: Figures) -> list[str]:
    lines = ["| engine | alg | refresh_token | server CPU | per core | errors | userinfo | server CPU | per core |",
             "|---|---|---|---|---|---|---|---|---|"]
    for engine in ENGINES:
        for alg in ("RS256", "ES256"):
            r, u = f"oauth.{engine}.refresh_token_{alg}", f"oauth.{engine}.userinfo_{alg}"
            if f"{r}.per_second" not in f or f"{u}.per_second" not in f:
                continue
            lines.append(f"| {engine} | {alg} | {refresh_cell(f, r)} | "
                         + f(f"{{{r}.server_cpu_cores:.2f}} cores | {{{r}.per_core:,.0f}}/s | {{{r}.errors}} of {{{r}.requests:,}} |"
                             f" {{{u}.per_second:,.0f}}/s (p99 {{{u}.p99_ms:.0f}} ms) | {{{u}.server_cpu_cores:.2f}} cores |"
                             f" {{{u}.per_core:,.0f}}/s |"))
    return lines if len(lines) > 2 else lines + ["", "Not measured in this run."]


def full_lemonldap(f: Figures) -> list[str]:
    if "lemonldap.problem" in f:
        return [f("Not measured: {lemonldap.problem}.")]
    lines = [f("LemonLDAP::NG {lemonldap.version} from Debian (`scripts/bench/lemonldap.sh`: nginx,"
               " {lemonldap.fastcgi_workers} FastCGI workers, Demo backend, JWT access tokens signed RS256), one"
               " confidential client by HTTP Basic. UMFA with RS256 too."), "",
             "| server | client_credentials | server CPU | per core | refresh_token | server CPU | per core |",
             "|---|---|---|---|---|---|---|"]
    theirs = ("| LemonLDAP::NG | {lemonldap.client_credentials.per_second:,.0f}/s (p99 {lemonldap.client_credentials.p99_ms:.0f} ms) |"
              " {lemonldap.client_credentials.server_cpu_cores:.2f} cores | {lemonldap.client_credentials.per_core:,.0f}/s |")
    their_refresh = "lemonldap.refresh_token.per_second" in f
    if their_refresh:
        rotates = str(f.value("lemonldap.refresh_token.rotates")).lower()
        lines.append(f(theirs + " {lemonldap.refresh_token.per_second:,.0f}/s (p99 {lemonldap.refresh_token.p99_ms:.0f} ms;"
                       " {lemonldap.refresh_token.method}, rotates: " + rotates + ") |"
                       " {lemonldap.refresh_token.server_cpu_cores:.2f} cores | {lemonldap.refresh_token.per_core:,.0f}/s |"))
    else:
        lines.append(f(theirs + " not measured: {lemonldap.refresh_token.problem} | | |"))
    peer, refresh_verdicts = [], []
    for engine in ENGINES:
        cc, r = f"oauth.{engine}.client_credentials_RS256", f"oauth.{engine}.refresh_token_RS256"
        if f"vs_lemonldap.{engine}.client_credentials" not in f:
            continue
        refresh = (refresh_cell(f, r) + f(f" | {{{r}.server_cpu_cores:.2f}} cores | {{{r}.per_core:,.0f}}/s")
                   if f"{r}.per_second" in f else "not measured | |")
        lines.append(f(f"| UMFA, {engine}, RS256 | {{{cc}.per_second:,.0f}}/s (p99 {{{cc}.p99_ms:.0f}} ms) |"
                       f" {{{cc}.server_cpu_cores:.2f}} cores | {{{cc}.per_core:,.0f}}/s | ") + refresh + " |")
        peer.append(f"{engine} " + f.met(f"vs_lemonldap.{engine}.client_credentials", lambda v: v >= 5)
                    + f(f" ({{vs_lemonldap.{engine}.client_credentials:.1f}} ×)"))
        if f"{r}.problem" in f:
            refresh_verdicts.append(f"{engine} not measured (the figure is invalid)")
        elif f"vs_lemonldap.{engine}.refresh_token" in f:
            refresh_verdicts.append(f"{engine} " + f.met(f"vs_lemonldap.{engine}.refresh_token", lambda v: v >= 5)
                                    + f(f" ({{vs_lemonldap.{engine}.refresh_token:.1f}} ×)"))
    refresh_text = (", ".join(refresh_verdicts) or "not measured for UMFA") if their_refresh else \
        f("not measured for LemonLDAP::NG ({lemonldap.refresh_token.problem})")
    lines += ["", "Target: UMFA ≥ 5 × LemonLDAP::NG per core, `client_credentials` — "
              f"{', '.join(peer) or 'not measured'}; `refresh_token` — {refresh_text}."]
    if their_refresh and not f.value("lemonldap.refresh_token.rotates"):
        lines += ["", "LemonLDAP::NG does not rotate its refresh tokens (wrk replays them); UMFA rotates"
                  " every one (each refresh spends a token and writes a new one)."]
    return lines


def full_validate(f: Figures) -> list[str]:
    lines = ["| engine | validate-token | /health | best / best | median of rounds (range) |"
             " validate-token p50 / p99 | non-2xx |", "|---|---|---|---|---|---|---|"]
    ratios = []
    for e in ENGINES:
        p = f"validate.{e}"
        if f"{p}.health.per_second" not in f:
            continue
        median = f"{p}.median" if f"{p}.median" in f else f"{p}.best_vs_best"
        spread = (rows(f, [f" ({{{p}.lowest:.0%}}–{{{p}.highest:.0%}})"]) or [""])[0]
        lines.append(f(f"| {e} | {{{p}.validate_token.per_second:,.0f}}/s | {{{p}.health.per_second:,.0f}}/s |"
                       f" {{{p}.best_vs_best:.0%}} | {{{median}:.0%}}") + spread
                     + f(f" | {{{p}.validate_token.p50_ms:.2f}} / {{{p}.validate_token.p99_ms:.2f}} ms | {{{p}.non_2xx}} |"))
        ratios.append(f"{e} " + f.met(median, lambda v: v >= 0.5) + f(f" ({{{median}:.0%}})"))
    return lines + ["", f"Target: validate-token ≥ 50 % of /health — {', '.join(ratios)}."]


def full_growth(f: Figures) -> list[str]:
    lines = ["| engine | users | logins/s | p50 | p99 |", "|---|---|---|---|---|"]
    for e in ENGINES:
        if f"login.{e}.users" not in f:
            continue
        for users in f.value(f"login.{e}.users"):
            p = f"login.{e}.{users}"
            lines.append(f(f"| {e} | {users:,} | {{{p}.per_second:,.0f}} | {{{p}.p50_ms:.2f}} ms | {{{p}.p99_ms:.2f}} ms |"))
        if f"growth.{e}.p50" in f:
            lines.append(f(f"| {e} | growth | | {{growth.{e}.p50:.2f}} × (") + f.met(f"growth.{e}.p50", lambda v: v <= 1.3)
                         + f(f") | {{growth.{e}.p99:.2f}} × (") + f.met(f"growth.{e}.p99", lambda v: v <= 1.3) + ") |")
    return lines


def full_memory(f: Figures) -> list[str]:
    return ["| engine | idle | peak (VmHWM, whole run) |", "|---|---|---|"] + [
        f(f"| {e} | {{rss.{e}.idle:.1f}} MB | {{rss.{e}.peak:.1f}} MB (") + f.met(f"rss.{e}.peak", lambda v: v < 100) + ") |"
        for e in ENGINES if f"rss.{e}.peak" in f]


# --- scripts/bench-tls.sh --------------------------------------------------------------------

def tls_run(f: Figures) -> list[str]:
    run = f.runs.get("this")
    if not run:
        return []
    return [f"Written by `{run['command']}` on {run['date']} with the release `umfa` of commit `{run['commit']}`"
            f" (`{run['tree']}`). Machine: {run['machine']}. "
            + f("{rounds} rounds of {seconds} s per listener and endpoint.")]


def tls_table(f: Figures) -> list[str]:
    return ["| endpoint | plain | TLS | TLS / plain, median (range) | plain p50 / p99 | TLS p50 / p99 | non-2xx |",
            "|---|---|---|---|---|---|---|"] + rows(f, [
                f"| {label} | {{{e}.plain.per_second:,.0f}}/s | {{{e}.tls.per_second:,.0f}}/s |"
                f" {{{e}.tls_vs_plain.median:.0%}} ({{{e}.tls_vs_plain.lowest:.0%}}–{{{e}.tls_vs_plain.highest:.0%}}) |"
                f" {{{e}.plain.p50_ms:.2f}} / {{{e}.plain.p99_ms:.2f}} ms | {{{e}.tls.p50_ms:.2f}} / {{{e}.tls.p99_ms:.2f}} ms |"
                f" {{{e}.non_2xx}} |" for e, label in (("health", "`/health`"), ("validate_token", "`validate-token`"))])


# --- scripts/bench/roundtrips.py (the last step of scripts/bench.sh --cpu) -------------------

ROUND_TRIP_LABELS = {
    "health": "`GET /health` (control)", "idle": "nothing (idle window)",
    "signin_options": "sign-in: `authentication/options`", "signin_verify": "sign-in: `authentication/verify`",
    "signin": "**ES256 sign-in (options + verify)**", "refresh": "**`refresh_token` grant (rotation)**",
}
# Round four's targets: round trips per operation (the median of the windows), and what the
# delayed round trip adds to the operation's p50 (ms).
ROUND_TRIP_TARGETS = (("signin", "ES256 sign-in", "a sign-in", 5, 6),
                      ("refresh", "`refresh_token` grant", "a refresh", 3, 4))


def roundtrips_run(f: Figures) -> list[str]:
    run = f.runs.get("this")
    if not run:
        return []
    build = f.value("build") if "build" in f else None
    built = f" A {build} build of `umfa`." if build and build not in run["machine"] else ""
    return [f"{written_by(run)}{built} Machine: {run['machine']}."]


def roundtrips_table(f: Figures) -> list[str]:
    timers = any(f"round_trips.{op}.with_timers.median" in f for op in ROUND_TRIP_LABELS)
    lines = ["| operation | round trips (median) | min–max | windows |"
             + (" on the wire, the timers' included (median, max) |" if timers else ""),
             "|---|---|---|---|" + ("---|" if timers else "")]
    for op, label in ROUND_TRIP_LABELS.items():
        bold = "**" if label.startswith("**") else ""
        row = rows(f, [f"| {label} | {bold}{{round_trips.{op}.median:g}}{bold} | {{round_trips.{op}.min}}–"
                       f"{{round_trips.{op}.max}} | {{round_trips.{op}.windows}} |"])
        if row and timers:
            row[0] += (rows(f, [f" {{round_trips.{op}.with_timers.median:g}}, {{round_trips.{op}.with_timers.max}} |"])
                       or [" |"])[0]
        lines += row
    verdicts = [f"{label} ≤ {most} round trips — " + f.met(f"round_trips.{op}.median", lambda v, most=most: v <= most)
                + f(f" ({{round_trips.{op}.median:g}})")
                for op, label, _, most, _ in ROUND_TRIP_TARGETS if f"round_trips.{op}.median" in f]
    if "round_trips.health.median" in f:
        verdicts.append("`GET /health`, the control, 0 — " + f.met("round_trips.health.median", lambda v: v == 0)
                        + f(" ({round_trips.health.median:g})"))
    if verdicts:
        lines += ["", "Targets of round four, by the medians: " + "; ".join(verdicts) + "."]
    lines += rows(f, ["", "The server's own timers, idle: {background.per_second:.1f} round trips a second, left out"
                      " of the counts above."])
    return lines


def roundtrips_latency(f: Figures) -> list[str]:
    if "latency.delayed.signin.p50_ms" not in f:
        return ["Not measured in this run (`--rounds 0`)."]
    lines = [f("{latency.rounds} interleaved rounds, each with {latency.samples_per_round} sign-ins and"
               " {latency.samples_per_round} refreshes per set-up; the p50 of all of a set-up's samples."), "",
             f("| p50 | direct | proxy, no delay | proxy, {latency.delay_ms_each_way:g} ms each way |"
               " added: delayed − direct | added by the delay alone: delayed − proxy |"),
             "|---|---|---|---|---|---|"]
    verdicts = []
    for op, label, _, _, most in ROUND_TRIP_TARGETS:
        lines += rows(f, [f"| {ROUND_TRIP_LABELS[op].strip('*')} | {{latency.direct.{op}.p50_ms:.2f}} ms | {{latency.proxy.{op}.p50_ms:.2f}} ms |"
                          f" {{latency.delayed.{op}.p50_ms:.2f}} ms | {{latency.{op}.added_ms:+.2f}} ms |"
                          f" {{latency.{op}.added_by_delay_alone_ms:+.2f}} ms |"])
        if f"latency.{op}.added_ms" in f:
            verdicts.append(f"{label} ≤ {most} ms — " + f.met(f"latency.{op}.added_ms", lambda v, most=most: v <= most)
                            + f(f" by `delayed − direct` ({{latency.{op}.added_ms:+.2f}} ms), ")
                            + f.met(f"latency.{op}.added_by_delay_alone_ms", lambda v, most=most: v <= most)
                            + f(f" by `delayed − proxy` ({{latency.{op}.added_by_delay_alone_ms:+.2f}} ms)"))
    lines += ["", "Targets of round four, what the delay adds to the p50: " + "; ".join(verdicts) + "."]
    if "wire.delay_cost_us" in f:
        queries = (rows(f, [" of {wire.queries}"]) or [""])[0]
        lines += ["", f(f"One empty query on a raw connection in the same run (p50{queries}): {{wire.direct_us_p50:,.0f}} µs"
                        " straight, {wire.proxy_us_p50:,.0f} µs through the proxy, {wire.delayed_us_p50:,.0f} µs"
                        " delayed: the proxy costs {wire.proxy_cost_us:,.0f} µs a round trip by itself, the delay"
                        " {wire.delay_cost_us:,.0f} µs.")]
        # The delay's share of each target at the operation's round trips: a product of two
        # unrounded figures of this run (the median count and the delay's cost per round trip).
        shares = []
        for op, _, short, _, most in ROUND_TRIP_TARGETS:
            if f"round_trips.{op}.median" in f:
                delay = f.value(f"round_trips.{op}.median") * f.value("wire.delay_cost_us") / 1000
                shares.append(f(f"{{round_trips.{op}.median:g}} × {{wire.delay_cost_us:,.0f}} µs =")
                              + f" {delay:.2f} ms of {short}'s ≤ {most} ms ({most - delay:.2f} ms left)")
        if shares:
            lines.append("At the medians' round trips, the delay alone is " + " and ".join(shares) + ".")
    return lines


BLOCKS = {
    "cpu/run": ("cpu", cpu_run), "cpu/table": ("cpu", cpu_table), "cpu/crypto": ("cpu", cpu_crypto),
    "cpu/targets": ("cpu", cpu_targets), "cpu/before-after": ("cpu", cpu_before_after),
    "full/run": ("full", full_run), "full/library": ("full", full_library), "full/ceiling": ("full", full_ceiling),
    "full/server": ("full", full_server), "full/algorithms": ("full", full_algorithms),
    "full/oauth": ("full", full_oauth), "full/refresh": ("full", full_refresh),
    "full/lemonldap": ("full", full_lemonldap), "full/validate": ("full", full_validate),
    "full/growth": ("full", full_growth), "full/memory": ("full", full_memory),
    "tls/run": ("tls", tls_run), "tls/table": ("tls", tls_table),
    "roundtrips/run": ("roundtrips", roundtrips_run), "roundtrips/table": ("roundtrips", roundtrips_table),
    "roundtrips/latency": ("roundtrips", roundtrips_latency),
}


def render(page: str, results: Path) -> tuple[str, list[str]]:
    """The page with every results block written again, and the names of the blocks that changed."""
    cache: dict[str, Figures] = {}
    changed = []

    def block(match: re.Match) -> str:
        name = match.group(1)
        if name not in BLOCKS:
            raise SystemExit(f"render.py: no block named {name}")
        section, make = BLOCKS[name]
        if not (results / f"{section}.json").exists():
            body = f"No figures: {section}.json is not in {results}."
        else:
            if section not in cache:
                cache[section] = Figures(results / f"{section}.json")
            try:
                body = "\n".join(make(cache[section]))
            except Missing as missing:
                raise SystemExit(f"render.py: {section}.json has no figure {missing} for block {name}")
        body = body + "\n" if body else ""
        if body != match.group(2):
            changed.append(name)
        return f"<!-- results:{name}:begin -->\n{body}<!-- results:{name}:end -->"

    return BLOCK.sub(block, page), changed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--page", type=Path, default=PAGE)
    args = parser.parse_args()
    page = args.page.read_text()
    new, changed = render(page, args.results)
    if args.check:
        if changed:
            print(f"{args.page}: stale against {args.results}: {', '.join(changed)}"
                  " (run scripts/bench/render.py)", file=sys.stderr)
            sys.exit(1)
        print(f"performance tables are current ({len(BLOCK.findall(page))} blocks of {args.page.name})")
        return
    if new != page:
        args.page.write_text(new)
        print(f"render.py: wrote {', '.join(changed)} in {args.page}")


if __name__ == "__main__":
    main()
