"""Memory under repeated load: one release `umfa serve`, the given operations (cpu_bench's
names) run for a few seconds each, round after round, and the server's RSS and peak RSS
(`/proc/PID/status`) printed after each. A server whose memory follows its request rate, or
leaks, climbs round after round; a sound one levels off after the first.

    scripts/with-postgres.sh bash -c '.build/bench-venv/bin/python scripts/bench/rss_rounds.py \
        --umfa .build-bench/release/umfa --bench .build-bench/release/umfa-bench \
        --database "$UMFA_TEST_POSTGRES_URL" --rounds 5 userinfo_ES256 login_ES256'
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_bench import Target  # noqa: E402


def memory(pid: int) -> dict:
    figures = {}
    for line in open(f"/proc/{pid}/status"):
        key, value = line.split(":", 1)
        if key in ("VmRSS", "VmHWM"):
            figures[key] = int(value.split()[0]) / 1024
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--umfa", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--database", default="sqlite", help="sqlite, or a postgres:// URL")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("operations", nargs="+")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        database = f"sqlite:///{directory}/umfa.sqlite" if args.database == "sqlite" else args.database
        target = Target("rss", args.umfa, args.bench, database, Path(directory) / "server")
        try:
            pid = target.server.process.pid
            start = memory(pid)
            print(f"start: RSS {start['VmRSS']:.1f} MB", flush=True)
            first_round = None
            for round_number in range(args.rounds):
                for operation in args.operations:
                    done = target.run(operation, args.seconds, 8)
                    now = memory(pid)
                    print(f"round {round_number} {operation}: {done['operations']} operations, "
                          f"RSS {now['VmRSS']:.1f} MB, peak {now['VmHWM']:.1f} MB", flush=True)
                first_round = first_round or now
            print(f"after the first round: {now['VmRSS'] - first_round['VmRSS']:+.1f} MB over "
                  f"{args.rounds - 1} more rounds", flush=True)
        finally:
            target.server.stop()


if __name__ == "__main__":
    main()
