"""Check every internal link and anchor of the built site, in both languages; list external links
(``--external``) or fetch them (``--check-external``, needs the network)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from handbook.cli import report
from handbook.core.arguments import file, folder
from handbook.core.paths import DOCS_DIR
from handbook.site.links import check_external, check_site, site_url_of


def run(args: argparse.Namespace) -> int:
    site_dir = Path(args.site_dir)
    if not (site_dir / "index.html").is_file():
        print(f"✖ {site_dir} holds no built site: run `python -m handbook build` first.", file=sys.stderr)
        return 2
    result = check_site(site_dir, site_url_of(Path(args.config)), Path(args.docs))
    if args.external or args.check_external:
        for url, links in sorted(result.external.items()):
            pages = sorted({link.page for link in links})
            print(f"{url}\t{', '.join(pages)}")
        print(f"{len(result.external)} external link(s).", file=sys.stderr)
    if args.check_external:
        failures = check_external(result.external)
        for url, why in failures:
            pages = sorted({link.page for link in result.external[url]})
            print(f"✖ {url} → {why} (on {', '.join(pages)})", file=sys.stderr)
        if failures:
            print(
                f"✖ {len(failures)} of {len(result.external)} external links do not answer.", file=sys.stderr
            )
            return 1
        print(f"✔ all {len(result.external)} external links answer.", file=sys.stderr)
    if result.broken:
        return report([str(b) for b in result.broken], "in the built site's internal links")
    pages = ", ".join(f"{n} {lang}" for lang, n in sorted(result.pages.items()))
    print(
        f"✔ {result.checked} internal links and anchors resolve ({pages} pages, "
        f"{result.switcher} language-switcher links).",
        file=sys.stderr,
    )
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--site-dir", default="site", type=folder, help="the built site (default: %(default)s)"
    )
    parser.add_argument(
        "--config", default="mkdocs.yml", type=file, help="for site_url (default: %(default)s)"
    )
    parser.add_argument(
        "--docs", default=str(DOCS_DIR), type=folder, help="to name each page's source (default: %(default)s)"
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--external", action="store_true", help="print the external links (url, pages)")
    what.add_argument(
        "--check-external", action="store_true", help="fetch every external link (needs the network)"
    )
