"""The performance record's figures as data: docs/performance/results/<section>.json.

One file per section that a command writes (`full`: scripts/bench.sh, `cpu`: scripts/bench.sh
--cpu, `tls`: scripts/bench-tls.sh). Each holds the runs that made its figures (`runs`: the
command, the date, the commit and whether the tree was clean, the machine) and the figures
themselves (`figures`): each a name, a value (a number, a list of numbers for per-round figures,
or a string for a version), a unit and the run it comes from. Ratios and per-core rates the
tables show are figures too, computed by the writer from the unrounded measurements (`derived`
says how), so the tables never divide rounded numbers. scripts/bench/render.py makes the tables
of docs/performance/README.md from these files; nothing else holds the figures."""

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "performance" / "results"
UNITS = {"µs", "ms", "/s", "cores", "×", "fraction", "MB", "count", "statements", "s", "text", "bool"}


def verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT).stdout.strip()


def this_run(command: str, machine: str) -> dict:
    """The run now under way: its command, today's date, the commit and whether the tree has
    uncommitted changes, and the machine note."""
    return {"command": command, "date": datetime.date.today().isoformat(),
            "commit": git("rev-parse", "--short", "HEAD"),
            # The record's own files, which an earlier step of the same run may have written, are
            # no change to the tree that was measured.
            "tree": "with local changes" if git("status", "--porcelain", "--", ".", ":(exclude)docs/performance")
            else "clean tree",
            "machine": machine}


def cores() -> int:
    return os.cpu_count() or 1


class Results:
    """Figures of one section, named with dots (`server.sqlite.login.p50`), in the order added."""

    def __init__(self, section: str, run: dict, run_id: str = "this") -> None:
        self.section, self.run_id = section, run_id
        self.runs = {run_id: run}
        self.figures: list[dict] = []

    def add(self, name: str, value, unit: str, derived: str | None = None, run: str | None = None) -> None:
        if unit not in UNITS:
            raise ValueError(f"{name}: unknown unit {unit}")
        if any(f["name"] == name for f in self.figures):
            raise ValueError(f"{name}: added twice")
        figure = {"name": name, "value": value, "unit": unit, "run": run or self.run_id}
        if derived:
            figure["derived"] = derived
        self.figures.append(figure)

    def add_run(self, run_id: str, run: dict) -> None:
        self.runs[run_id] = run

    def write(self, directory: Path = RESULTS) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.section}.json"
        # One figure a line, so that a new run reads as a diff of figures.
        runs = json.dumps(self.runs, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        figures = ",\n    ".join(json.dumps(f, ensure_ascii=False) for f in self.figures)
        path.write_text(f'{{\n  "section": {json.dumps(self.section)},\n  "runs": {runs},\n'
                        f'  "figures": [\n    {figures}\n  ]\n}}\n')
        return path


def load(path: Path) -> dict:
    """A results file as {name: figure}, with `runs` kept beside under the key None."""
    document = json.loads(path.read_text())
    figures = {f["name"]: f for f in document["figures"]}
    figures[None] = document["runs"]
    return figures
