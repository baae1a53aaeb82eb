"""Renderers for the contributors' pages: the translations' status and the latest benchmark figures.

Neither is a KB fact: the first comes from the git history of docs/ (handbook.pages.translations), the
second from the committed record that ``nox -s bench`` writes (benchmarks/latest.json).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from handbook.core.messages import LANG_KEYS
from handbook.core.text import LANGS
from handbook.pages.headings import source_headings
from handbook.pages.translations import translation_status as status_of
from handbook.render.configurator import benchmark_rows
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import admonition, table
from handbook.render.markers import RenderError, renderer

_COMMENT = re.compile(r"<!--.*?-->")

# Why the build could not read the git history (handbook.pages.translations' ``unavailable``).
NO_HISTORY_KEYS = {
    "git-missing": "translations-no-history-git-missing",
    "not-a-checkout": "translations-no-history-not-a-checkout",
    "no-commits": "translations-no-history-no-commits",
    "shallow": "translations-no-history-shallow",
    "git-failed": "translations-no-history-git-failed",
}


def _title(docs_dir: Path, lang: str, page: str) -> str:
    """A page's h1 as written (markers dropped), or its file name when it has none."""
    headings = source_headings((docs_dir / lang / page).read_text(encoding="utf-8"))
    h1 = next((h.text for h in headings if h.level == 1), "")
    return _COMMENT.sub("", h1).strip() or page


@renderer("translation-status")
def translation_status(ctx: RenderContext) -> str:
    """Every page's last committed change in each language, and which translation is stale."""
    docs_dir = ctx.docs_dir
    status = status_of(docs_dir)
    status.pages.sort(key=lambda p: (p.page != "index.md", p.page))  # the home page first, as in the nav
    rows = []
    for page in status.pages:
        link = f'<a href="{attr(ctx.href(page.page))}">{esc(_title(docs_dir, ctx.lang, page.page))}</a>'
        changes = [
            f"{change.date} · <code>{change.commit}</code>" if change else "—"
            for change in (page.last[lang] for lang in LANGS)
        ]
        if status.unavailable:
            verdict = "—"
        elif page.stale:
            verdict = ctx.msg("translations-stale", lang=ctx.msg(LANG_KEYS[page.stale]), behind=page.behind)
        elif not page.committed:
            verdict = ctx.msg("translations-uncommitted")
        else:
            verdict = ctx.msg("translations-in-sync")
        rows.append([link, *changes, verdict])
    if not rows:
        raise RenderError("no page exists in both languages")
    headers = [ctx.msg("translations-col-page")]
    headers += [ctx.msg("translations-col-last-change", lang=ctx.msg(LANG_KEYS[lang])) for lang in LANGS]
    headers.append(ctx.msg("translations-col-status"))
    parts = [ctx.msg("translations-summary", pages=len(status.pages), stale=len(status.stale))]
    if status.unavailable:
        reason = ctx.msg(NO_HISTORY_KEYS[status.unavailable])
        parts.append(
            admonition(
                "info",
                ctx.msg("translations-no-history-title"),
                ctx.msg("translations-no-history", reason=reason),
            )
        )
    parts.append(table(headers, rows))
    return "\n\n".join(parts)


def _seconds(x: float) -> str:
    return f"{x:.2f} s"


def _kb(n: int) -> str:
    return f"{n / 1000:,.1f} kB"


@renderer("benchmarks")
def benchmarks(ctx: RenderContext) -> str:
    """The latest figures of ``nox -s bench``, with the machine and date they were taken on."""
    path = ctx.bench_record
    if not path.is_file():  # the bench needs a built site, so a first build must work without it
        return admonition("info", ctx.msg("bench-none-title"), ctx.msg("bench-none"))
    record = json.loads(path.read_text(encoding="utf-8"))
    f, targets, met, m = record["figures"], record["targets"], record["targets_met"], record["machine"]
    verdict = {True: ctx.msg("bench-met"), False: ctx.msg("bench-missed"), None: "—"}
    rows = [
        [ctx.msg("bench-cold-build"), _seconds(f["cold_build_s"]), "", ""],
    ]
    if "floor_build_s" in f:  # records before the floor was measured have none
        rows += [
            [ctx.msg("bench-floor-build", runs=f["build_pairs"]), _seconds(f["floor_build_s"]), "", ""],
            [
                ctx.msg("bench-build-floor-ratio"),
                f"{f['build_floor_ratio']:.2f}×",
                f"≤ {targets['build_floor_ratio']:g}×",
                verdict[met["build_floor_ratio"]],
            ],
        ]
    rows += [
        [
            ctx.msg("bench-warm-rebuild"),
            _seconds(f["warm_rebuild_s"]),
            f"≤ {targets['warm_rebuild_s']:g} s",
            verdict[met["warm_rebuild_s"]],
        ],
        [
            ctx.msg("bench-hooks", hooks=_seconds(f["hooks_s"]), build=_seconds(f["in_process_build_s"])),
            f"{f['hooks_share']:.1%}",
            f"≤ {targets['hooks_share']:.0%}",
            verdict[met["hooks_share"]],
        ],
        [
            ctx.msg("bench-hooks-import", seconds=_seconds(f["hooks_import_s"])),
            f"{f['hooks_share_with_import']:.1%}",
            "",
            "",
        ],
    ]
    if "no_caches_hooks_share" in f:  # records before it was measured have none
        empty = {"hooks": _seconds(f["no_caches_hooks_s"]), "build": _seconds(f["no_caches_build_s"])}
        rows.append([ctx.msg("bench-hooks-no-caches", **empty), f"{f['no_caches_hooks_share']:.1%}", "", ""])
    if "tests_s" in f:
        rows.append(
            [ctx.msg("bench-tests"), _seconds(f["tests_s"]), "", f"<code>{esc(f['tests_summary'])}</code>"]
        )
    rows.append(
        [ctx.msg("bench-site-size", files=f["site_files"]), f"{f['site_bytes'] / 1e6:.2f} MB", "", ""]
    )
    for prefix, key, of, target in (
        ("heaviest_chapter_page", "bench-heaviest-chapter", "chapter_pages_measured", True),
        ("heaviest_page", "bench-heaviest-page", "pages_measured", False),
    ):
        if f"{prefix}_gzip_bytes" not in f:
            continue
        parts = ", ".join(
            f"{ctx.msg('bench-kind-other') if kind == 'other' else esc(kind)} {_kb(n)}"
            for kind, n in f[f"{prefix}_gzip_by_kind"].items()
        )
        rows.append(
            [
                ctx.msg(key, page=esc(f[prefix]), pages=f[of], parts=parts),
                _kb(f[f"{prefix}_gzip_bytes"]),
                f"≤ {_kb(targets['page_gzip_bytes'])}" if target else "",
                verdict[met["page_gzip_bytes"]] if target else "",
            ]
        )
    rows.append([ctx.msg("bench-search-index"), _kb(f["search_index_gzip_bytes"]), "", ""])
    rows += benchmark_rows(ctx, record, verdict)  # the configurator and the command doctor
    headers = [
        ctx.msg("bench-col-measure"),
        ctx.msg("bench-col-value"),
        ctx.msg("bench-col-target"),
        ctx.msg("bench-col-result"),
    ]
    when = ctx.msg(
        "bench-taken",
        date=esc(record["date"]),
        commit=esc(record["commit"]),
        cpu=esc(m["cpu"]),
        cores=m["cores"],
        memory=m["memory_gib"],
        os=esc(m["os"]),
        python=esc(m["python"]),
        load=m.get("load_average", "—"),
        load_end=f.get("load_average_end", "—"),
    )
    return when + "\n\n" + table(headers, rows, numeric=(1,))
