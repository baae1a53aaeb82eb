"""Build the site into ``site/``: strict (any warning fails), all-or-nothing (a failed build leaves the
previous site as it was)."""

from __future__ import annotations

import argparse
from pathlib import Path

from handbook.core.arguments import new_folder
from handbook.site.build import build_site


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--site-dir",
        default="site",
        type=new_folder,
        help="output folder: new, empty or a previous build, never anything else (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    return build_site(Path(args.site_dir))
