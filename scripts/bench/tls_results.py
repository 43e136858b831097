"""The figures of `scripts/bench-tls.sh`: /health and validate-token over TLS against plain HTTP
(tls_bench.py's JSON) into docs/performance/results/tls.json (see figures.py);
scripts/bench/render.py makes the table.

usage: tls_results.py TLS.json COMMAND [--results DIR]"""

import argparse
import json
import re
from pathlib import Path

from figures import RESULTS, Results, this_run
from full_results import machine

SCALE = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def milliseconds(text: str) -> float:
    """wrk's latency text (`812.00us`, `1.08ms`, `1.20s`) in ms."""
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text.strip())
    if not match:
        raise ValueError(f"wrk latency {text!r}")
    return float(match.group(1)) * SCALE[match.group(2)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tls", type=Path)
    parser.add_argument("command")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    data = json.loads(args.tls.read_text())
    r = Results("tls", this_run(args.command, machine()))
    r.add("seconds", data["seconds"], "s")
    r.add("rounds", data["rounds"], "count")
    for endpoint in ("health", "validate_token"):
        figures = data[endpoint]
        for listener in ("plain", "tls"):
            row = figures[listener]
            r.add(f"{endpoint}.{listener}.per_second", row["per_second"], "/s")
            r.add(f"{endpoint}.{listener}.p50_ms", milliseconds(row["p50"]), "ms")
            r.add(f"{endpoint}.{listener}.p99_ms", milliseconds(row["p99"]), "ms")
        for key in ("median", "lowest", "highest"):
            r.add(f"{endpoint}.tls_vs_plain.{key}", figures["tls_vs_plain"][key], "fraction")
        r.add(f"{endpoint}.non_2xx", figures["plain"]["non_2xx"] + figures["tls"]["non_2xx"], "count",
              "non-2xx answers of both listeners' best rounds")
    print(f"wrote {r.write(args.results)}")


if __name__ == "__main__":
    main()
