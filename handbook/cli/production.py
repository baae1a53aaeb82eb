"""Write the production pack for one recipe: its set's Kubernetes manifests (multi-node and PD recipes),
a prometheus.yml that scrapes them, the alert rules with their promtool tests, and the Grafana dashboards
in both languages. ``--check`` then runs promtool and kubernetes-validate over what was written."""

from __future__ import annotations

import argparse
import sys

from handbook.core.arguments import folder, text
from handbook.core.files import WriteRefused, write_text


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--recipe", required=True, type=text, help="a recipe id of kb/recipes/")
    parser.add_argument(
        "--out",
        required=True,
        type=folder,
        help="the folder to write in (it must exist)",
    )
    parser.add_argument(
        "--site-url",
        help="where the alerts' runbook links point (default: mkdocs.yml's site_url, which is "
        "HANDBOOK_SITE_URL, else the local preview)",
    )
    parser.add_argument(
        "--check", action="store_true", help="run promtool and kubernetes-validate afterwards"
    )


def run(args: argparse.Namespace) -> int:
    from handbook.engine.snapshot import load_snapshot
    from handbook.kb.loader import KBInvalid, load_kb
    from handbook.production.pack import MANIFESTS, UnknownRecipe, recipe_files

    try:
        kb = load_kb()
    except KBInvalid as exc:
        from handbook.cli import report

        return report(exc.problems)
    from handbook.site.config import site_url as configured_site_url

    given = args.site_url or configured_site_url()
    site_url = given if given.endswith("/") else given + "/"
    try:
        files = recipe_files(kb, load_snapshot(kb.handbook.engine_version), args.recipe, site_url)
    except UnknownRecipe as exc:
        print(f"✖ {exc}", file=sys.stderr)
        return 2
    for name, content in files.items():
        try:
            write_text(args.out / name, content, root=args.out)
        except WriteRefused as exc:
            print(f"✖ {exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.out / name}")
    if MANIFESTS not in files:
        print(
            f"{args.recipe} is neither a multi-node nor a PD recipe: alerts and dashboards only, no manifests"
        )
    if not args.check:
        return 0
    from handbook.production.tools import run_promtool, validate_manifests

    failed = False
    for done in run_promtool(args.out):
        print(f"$ {done.command}\n{done.output}")
        failed |= not done.ok
    if MANIFESTS in files:
        from handbook.production.pack import KUBERNETES_VERSION

        print(f"$ kubernetes-validate (Kubernetes {KUBERNETES_VERSION}, strict) {MANIFESTS}")
        for line in validate_manifests(args.out):
            print(line)
            failed |= not line.endswith(": ok")
    return 1 if failed else 0
