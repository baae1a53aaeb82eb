"""``python -m handbook diagrams [ID …] [--check]``: re-render the committed SVGs, or check they are fresh."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from handbook.core.paths import KB_ROOT, REPO_ROOT


def _run(args: argparse.Namespace) -> int:
    from handbook.cli import report
    from handbook.diagrams import files
    from handbook.diagrams.catalogue import catalogue
    from handbook.diagrams.dot import DiagramError
    from handbook.kb.loader import KBInvalid, load_kb

    try:
        kb = load_kb(Path(args.kb))
    except KBInvalid as exc:
        return report(exc.problems)
    try:
        figures = catalogue(kb)
    except DiagramError as exc:
        return report(exc.problems, "in the diagrams' data")
    unknown = [fid for fid in args.ids if fid not in figures]
    if unknown:
        print(f"✖ unknown figure id(s) {', '.join(unknown)}; figures: {', '.join(figures)}", file=sys.stderr)
        return 2
    only = args.ids or None
    root = Path(args.root)
    dot = files.dot_binary()
    if args.check:
        stale = files.stale(figures, root, only)
        if not stale:
            count = sum(len(figures[fid].drawings) for fid in (only or figures))
            print(f"✔ {count} diagram SVGs match the data")
            return 0
        for item in stale:
            print(item, file=sys.stderr)
        if dot is None:
            print(f"graphviz's dot is not installed here; first: {files.INSTALL_HINT}", file=sys.stderr)
        print(f"✖ {len(stale)} diagram SVG(s) out of date.", file=sys.stderr)
        return 1
    if dot is None:
        print(f"✖ graphviz's dot is not installed: {files.INSTALL_HINT}", file=sys.stderr)
        return 1
    try:
        changed = files.write(figures, root, dot, only)
    except DiagramError as exc:
        return report(exc.problems, "rendering the diagrams")
    for path in changed:
        print(f"wrote {path}" if (root / path).exists() else f"removed {path} (no figure renders it)")
    count = sum(len(figures[fid].drawings) for fid in (only or figures))
    print(f"✔ rendered {count} diagram SVGs ({len(changed)} changed)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    diagrams = sub.add_parser(
        "diagrams",
        help="re-render the diagrams' SVGs from kb/ with graphviz (--check: verify they match the data)",
    )
    diagrams.add_argument("ids", nargs="*", metavar="ID", help="only these figures (default: all)")
    diagrams.add_argument(
        "--check", action="store_true", help="write nothing; fail listing each stale SVG and its fix"
    )
    diagrams.add_argument("--kb", default=str(KB_ROOT), help="the KB folder (default: %(default)s)")
    diagrams.add_argument("--root", default=str(REPO_ROOT), help="where assets/ lives (default: %(default)s)")
    diagrams.set_defaults(run=_run)
