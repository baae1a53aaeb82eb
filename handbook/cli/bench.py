"""The performance budget: cold and warm build, the KB hooks' share, the test suite, site and page weight,
search index. Prints pass/fail per target (a missed target never fails it) and records the figures."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from handbook.core.arguments import output_or_dash
from handbook.core.files import WriteRefused, write_text
from handbook.site.bench import (
    RECORD,
    TARGETS,
    current_commit,
    long_command_figures,
    long_command_lines,
    machine,
    report_lines,
    run_bench,
    verdicts,
)
from handbook.site.build import build_site


def long_commands_only() -> int:
    """The hostile 100k pastes alone (Python, and the doctor page in chromium): printed, not recorded."""
    with tempfile.TemporaryDirectory(prefix="handbook-bench-") as work:
        site = Path(work) / "site"
        if build_site(site) != 0:
            raise SystemExit("✖ the site does not build; nothing to measure.")
        figures = long_command_figures(site)
    record = {"figures": figures, "targets": TARGETS, "targets_met": verdicts(figures)}

    def row(label: str, value: str, target: str = "", verdict: str = "") -> str:
        return f"{label:<54}{value:>10}   {target:<14}{verdict}".rstrip()

    mark = {True: "✔ pass", False: "✖ MISSED", None: "– not measured"}
    print("\n".join([f"machine: {machine()}", *long_command_lines(record, row, mark)]))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.long_commands:
        return long_commands_only()
    started = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "commit": current_commit(),
        "machine": machine(),
    }
    with tempfile.TemporaryDirectory(prefix="handbook-bench-") as work:
        figures = run_bench(Path(work), run_tests=not args.no_tests, pairs=args.pairs)
    record = {
        **started,
        "figures": figures,
        "targets": TARGETS,
    }
    record["targets_met"] = verdicts(figures)
    print("\n".join(report_lines(record)))
    if args.record != "-":
        path = Path(args.record)
        text = json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        try:
            write_text(path, text, root=path.absolute().parent)
        except WriteRefused as exc:
            print(f"✖ {exc}", file=sys.stderr)
            return 2
        print(f"\nrecorded in {path} (the benchmarks page renders it; commit it with the change it measures)")
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--record",
        default=str(RECORD),
        type=output_or_dash,
        help="where the figures go, in an existing folder; '-' for nowhere (default: %(default)s)",
    )
    parser.add_argument("--no-tests", action="store_true", help="skip timing the test suite")
    parser.add_argument(
        "--pairs",
        type=int,
        default=3,
        choices=range(1, 10),
        metavar="N",
        help="build the floor site and the handbook N times each, one after the other (default: %(default)s)",
    )
    parser.add_argument(
        "--long-commands",
        action="store_true",
        help="only the checker on hostile 100k-character pastes (Python, the doctor page); records nothing",
    )
