"""`icetable bench [NAME ...]`: run the benchmarks of bench/ and print their figures."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from icetable.cli import UserError

ROOT = Path(__file__).resolve().parents[2]         # the source checkout, or site-packages
INSTALLED = Path(__file__).resolve().parents[1] / "bench"      # `icetable.bench`, from setup.py
BENCH_DIR = INSTALLED if INSTALLED.is_dir() else ROOT / "bench"


def register(sub) -> None:
    p = sub.add_parser("bench", help="run the benchmarks in bench/ (the vision one reads sample_images/ of a source checkout)")
    p.add_argument("names", nargs="*", help="benchmarks to run (default: all); e.g. referee_icehouse")
    p.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    p.add_argument("--all-cores", action="store_true",
                   help="let benchmarks use every core (default: pinned to one core)")
    p.set_defaults(run=run)


def available() -> dict[str, Path]:
    return {p.stem: p for p in sorted(BENCH_DIR.glob("*.py")) if not p.stem.startswith("_")}


def run(args) -> int:
    scripts = available()
    if not scripts:
        raise UserError(f"no benchmarks found in {BENCH_DIR}")
    if args.list:
        print("\n".join(scripts))
        return 0
    unknown = [n for n in args.names if n not in scripts]
    if unknown:
        raise UserError(f"unknown benchmark {unknown[0]!r} (one of {', '.join(scripts)})")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    pin = None if args.all_cores else _one_core
    print(f"machine: {os.cpu_count()} cores; benchmarks on {'all cores' if pin is None else 'one core'}")
    failed = 0
    for name in args.names or scripts:
        print(f"== {name}", flush=True)
        failed += subprocess.run([sys.executable, str(scripts[name])], env=env,
                                 preexec_fn=pin).returncode != 0
    return 1 if failed else 0


def _one_core() -> None:
    """Pin the benchmark process to the first core it may use."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
