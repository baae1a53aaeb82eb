"""The benchmark's pieces (its run is ``nox -s bench``; timings are never asserted): targets, the report,
the hook timer, page weight, and the page that shows the recorded figures."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from handbook.site.bench import (
    CHAPTER,
    TARGETS,
    _HookTimer,
    floor_site,
    page_weights,
    report_lines,
    verdicts,
)

REPO = Path(__file__).resolve().parents[1]
FIGURES = {
    "cold_build_s": 4.0,
    "warm_rebuild_s": 3.5,
    "hooks_s": 0.3,
    "hooks_import_s": 0.1,
    "in_process_build_s": 4.0,
    "hooks_share": 0.075,
    "hooks_share_with_import": 0.1,
    "tests_s": 60.0,
    "tests_passed": True,
    "tests_summary": "90 passed in 59.80s",
    "site_bytes": 3_600_000,
    "site_files": 71,
    "heaviest_page": "engine-options/",
    "heaviest_page_gzip_bytes": 160_000,
    "heaviest_page_gzip_by_kind": {"css": 26_000, "html": 74_000, "js": 60_000},
    "heaviest_chapter_page": "en/04-parameters/",
    "heaviest_chapter_page_gzip_bytes": 150_001,
    "heaviest_chapter_page_gzip_by_kind": {"css": 25_500, "html": 74_501, "js": 50_000},
    "pages_measured": 28,
    "chapter_pages_measured": 20,
    "load_average_end": 1.5,
    "search_index_gzip_bytes": 59_500,
    "configurator_page": "en/configurator/",
    "configurator_page_gzip_bytes": 190_000,
    "configurator_page_gzip_by_kind": {"css": 26_000, "html": 8_000, "js": 70_000, "other": 86_000},
    "doctor_page": "doctor/",
    "doctor_page_gzip_bytes": 250_001,
    "doctor_page_gzip_by_kind": {"css": 26_000, "html": 6_000, "js": 60_000, "other": 158_001},
    "doctor_check_ms": 12.5,
    "doctor_check_flags": 40,
    "configurator_update_ms": 50.0,
    "timing_runs": 20,
}
RECORD = {
    "date": "2026-11-30",
    "commit": "abc1234",
    "machine": {
        "cpu": "Test CPU",
        "cores": 2,
        "memory_gib": 24,
        "os": "Linux 6.1",
        "python": "3.11.7",
        "load_average": 0.42,
    },
    "figures": FIGURES,
    "targets": TARGETS,
    "targets_met": verdicts(FIGURES),
}


def test_each_target_is_judged_on_its_own_figure():
    assert TARGETS == {
        "build_floor_ratio": 2.0,
        "hooks_share": 0.10,
        "warm_rebuild_s": 3.0,
        "page_gzip_bytes": 150_000,
        "doctor_page_gzip_bytes": 250_000,
        "doctor_check_ms": 50.0,
        "configurator_update_ms": 50.0,
        "long_command_python_s": 2.0,
        "long_command_browser_s": 1.0,
    }
    assert verdicts(FIGURES) == {
        "build_floor_ratio": None,  # a record from before the floor site was measured
        "hooks_share": True,
        "warm_rebuild_s": False,
        "page_gzip_bytes": False,
        "doctor_page_gzip_bytes": False,  # the heavier of the two pages counts
        "doctor_check_ms": True,
        "configurator_update_ms": False,  # under 50 ms, not at it
        "long_command_python_s": None,  # a record from before the long pastes were measured
        "long_command_browser_s": None,
    }
    long = {**FIGURES, "long_command_python_s": 2.0, "long_command_browser_s": 1.01}
    assert (
        verdicts(long)["long_command_python_s"] is True and verdicts(long)["long_command_browser_s"] is False
    )
    unmeasured = {
        k: v for k, v in FIGURES.items() if not k.startswith(("heaviest_", "doctor_", "configurator_"))
    }
    assert verdicts(unmeasured)["page_gzip_bytes"] is None
    assert (
        verdicts(unmeasured)["doctor_page_gzip_bytes"] is None
        and verdicts(unmeasured)["doctor_check_ms"] is None
    )
    chapters = [
        p
        for p in ("02-memory/", "en/02-memory/", "engine-options/", "", "en/", "02-memory/x/")
        if CHAPTER.match(p)
    ]
    assert chapters == ["02-memory/", "en/02-memory/"]  # the target applies to chapter pages


def test_the_report_prints_every_figure_with_its_verdict():
    assert report_lines(RECORD) == [
        "Handbook benchmark, 2026-11-30, commit abc1234",
        "machine: Test CPU, 2 cores, 24 GiB, Linux 6.1, Python 3.11.7, load average 0.42 at the start, 1.5 at the end",
        "",
        "cold build (python -m handbook build)                     4.00 s",
        "warm rebuild after a KB edit (as serve does)              3.50 s   ≤ 3 s         ✖ MISSED",
        "KB hook functions in a cold build (0.30 s of 4.00 s)        7.5%   ≤ 10%         ✔ pass",
        "    with importing the package (+0.10 s)                   10.0%   (not a target)",
        "test suite (pytest)                                      60.00 s   passed: 90 passed in 59.80s",
        "site size (71 files)                                     3.60 MB",
        "heaviest chapter page (gzip, without search index)      150.0 kB   ≤ 150.0 kB    ✖ MISSED",
        "    en/04-parameters/ (of 20): css 25.5 kB, html 74.5 kB, js 50.0 kB",
        "heaviest page of all (gzip, without search index)       160.0 kB",
        "    engine-options/ (of 28): css 26.0 kB, html 74.0 kB, js 60.0 kB",
        "search index (gzip)                                      59.5 kB",
        "configurator page, all it loads (gzip)                  190.0 kB   ≤ 250.0 kB    ✔ pass",
        "    en/configurator/: css 26.0 kB, html 8.0 kB, js 70.0 kB, other 86.0 kB",
        "doctor page, all it loads (gzip)                        250.0 kB   ≤ 250.0 kB    ✖ MISSED",
        "    doctor/: css 26.0 kB, html 6.0 kB, js 60.0 kB, other 158.0 kB",
        "doctor: check a 40-flag command (median of 20)           12.5 ms   < 50 ms       ✔ pass",
        "configurator: update after a change (median of 20)       50.0 ms   < 50 ms       ✖ MISSED",
    ]
    with_breakdown = {
        **RECORD,
        "figures": {**FIGURES, "hooks_by_function_s": {"on_files": 0.1, "on_pre_build": 0.2}},
    }
    assert "    hook functions, cold build: on_files 0.10 s, on_pre_build 0.20 s" in report_lines(
        with_breakdown
    )


NO_CACHES = {"no_caches_hooks_s": 9.0, "no_caches_build_s": 12.0, "no_caches_hooks_share": 0.75}


def test_the_share_with_no_caches_is_printed_beside_the_target_share():
    record = {**RECORD, "figures": {**FIGURES, **NO_CACHES}}
    lines = report_lines(record)
    at = lines.index("    with importing the package (+0.10 s)                   10.0%   (not a target)")
    assert (
        lines[at + 1] == "    with no caches at all (9.00 s of 12.00 s)              75.0%   (not a target)"
    )


FLOOR = {
    "floor_build_s": 2.5,
    "floor_build_runs_s": [2.5, 2.4, 2.6],
    "cold_build_runs_s": [5.0, 4.0, 4.1],
    "build_floor_ratio": 4.1 / 2.5,
    "build_pairs": 3,
    "cold_build_s": 4.1,
}


def test_the_build_is_reported_against_the_floor_site_built_beside_it():
    figures = {**FIGURES, **FLOOR}
    assert verdicts(figures)["build_floor_ratio"] is True  # 1.64 ≤ 2.0
    assert verdicts({**figures, "build_floor_ratio": 2.01})["build_floor_ratio"] is False
    record = {**RECORD, "figures": figures, "targets_met": verdicts(figures)}
    assert report_lines(record)[3:6] == [
        "cold build (python -m handbook build)                     4.10 s",
        "floor site: 2 pages × 2 languages (median of 3)           2.50 s",
        "build / floor                                              1.64×   ≤ 2×          ✔ pass",
    ]


def test_the_floor_site_is_ours_without_the_hook_nav_and_assets(tmp_path):
    config = floor_site(REPO, tmp_path)
    text = config.read_text(encoding="utf-8")
    for kept in ("name: material", "- search:", "- i18n:", "locale: zh", "pymdownx.superfences"):
        assert kept in text
    for dropped in (
        "hooks:",
        "  - hooks/kb.py",
        "nav:",
        "extra_css:",
        "extra_javascript:",
        "docs_dir: docs\n",
    ):
        assert dropped not in text
    pages = sorted(p.relative_to(config.parent).as_posix() for p in config.parent.rglob("*.md"))
    assert pages == [
        f"floor-docs/{lang}/{page}" for lang in ("en", "zh") for page in ("guide.md", "index.md")
    ]


def test_the_report_prints_the_long_pastes_rows_per_shape():
    figures = {
        **FIGURES,
        "long_command_chars": 100_000,
        "long_command_shapes": 2,
        "long_command_python_s": 0.5,
        "long_command_python_by_shape_s": {"unknown flags": 0.5, "subshells": 0.25},
        "long_command_browser_s": 1.2,
        "long_command_browser_by_shape_s": {"unknown flags": 1.2, "subshells": 0.1},
        "long_command_main_thread_blocked_ms": 30.4,
    }
    record = {**RECORD, "figures": figures, "targets_met": verdicts(figures)}
    assert report_lines(record)[-5:] == [
        "checker, Python: slowest 100k-character paste (2 shapes)    0.50 s   ≤ 2 s         ✔ pass",
        "    unknown flags 0.50, subshells 0.25",
        "doctor page, chromium: slowest 100k-character paste       1.20 s   ≤ 1 s         ✖ MISSED",
        "    unknown flags 1.20, subshells 0.10",
        "    the page's main thread, longest without a turn         30 ms",
    ]


def test_the_hook_timer_wraps_the_hook_functions_only():
    from mkdocs.config import load_config

    config = load_config(str(REPO / "mkdocs.yml"))
    hooks = next(iter(config["hooks"].values()))
    before = {event: list(methods) for event, methods in config.plugins.events.items()}
    timer = _HookTimer()
    timer.install(config)
    for event, methods in config.plugins.events.items():
        for old, new in zip(before[event], methods, strict=True):
            is_hook = getattr(old, "__module__", None) == hooks.__name__
            assert (new is not old) == is_hook, (event, old)
    wrapped = [m for m in config.plugins.events["page_markdown"] if m not in before["page_markdown"]]
    assert len(wrapped) == 1  # on_page_markdown
    assert timer.seconds == 0.0


@pytest.mark.browser
def test_page_weight_counts_what_the_page_fetches_at_gzip_size(browser):
    site = Path(__file__).parent / "fixtures" / "links-site"
    weights = {w.page: w for w in page_weights(site, browser)}

    def gz(rel: str) -> int:
        return len(gzip.compress((site / rel).read_bytes(), compresslevel=6, mtime=0))

    # index.html loads its stylesheet; its script and image 404 and weigh nothing; the srcset's CSS counts once
    assert weights["/"].by_kind == {"html": gz("index.html"), "css": gz("assets/site.css")}
    assert weights["guide/"].by_kind == {"html": gz("guide/index.html")}
    assert sorted(weights) == ["/", "en/", "en/guide/", "guide/"]


def test_the_benchmarks_page_shows_the_recorded_figures_and_machine(tmp_path):
    from handbook.kb.loader import load_kb
    from handbook.render.context import RenderContext
    from handbook.render.markers import render_page

    record = tmp_path / "latest.json"
    figures = {**FIGURES, **FLOOR}
    record.write_text(json.dumps({**RECORD, "figures": figures, "targets_met": verdicts(figures)}), "utf-8")
    kb = load_kb(Path(__file__).parent / "fixtures" / "kb-mini")

    def render(lang: str, path: Path = record) -> str:
        ctx = RenderContext(kb, lang, "benchmarks.md", bench_record=path)
        return render_page("<!-- kb:benchmarks -->\n", ctx, f"docs/{lang}/benchmarks.md").strip()

    en = render("en")
    assert en.startswith(
        "Measured on 2026-11-30 (commit <code>abc1234</code>) on Test CPU, 2 cores, 24 GiB of memory, "
        "Linux 6.1, Python 3.11.7; the 1-minute load average was 0.42 at the start and 1.5 at the end."
        "\n\n<table>"
    )
    assert (
        "<tr><td>Floor site: two pages in each language with the same Material, i18n and jieba (median of 3)"
        '</td><td style="text-align: right">2.50 s</td><td></td><td></td></tr>\n'
        '<tr><td>Build time / floor site</td><td style="text-align: right">1.64×</td><td>≤ 2×</td>'
        "<td>✔ met</td></tr>"
    ) in en
    assert (
        "<tr><td>Warm rebuild after a KB edit (as <code>mkdocs serve</code> does it)</td>"
        '<td style="text-align: right">3.50 s</td><td>≤ 3 s</td><td>✖ missed</td></tr>'
    ) in en
    assert (
        "<tr><td>Heaviest chapter page <code>en/04-parameters/</code> (of 20 chapter pages; gzip, search index "
        'excluded: css 25.5 kB, html 74.5 kB, js 50.0 kB)</td><td style="text-align: right">150.0 kB</td>'
        "<td>≤ 150.0 kB</td><td>✖ missed</td></tr>"
    ) in en
    assert (
        "<tr><td>Heaviest page of all <code>engine-options/</code> (of 28; gzip, search index excluded: "
        'css 26.0 kB, html 74.0 kB, js 60.0 kB)</td><td style="text-align: right">160.0 kB</td><td></td><td></td></tr>'
    ) in en
    assert (
        "<tr><td>The command doctor checks a 40-flag command (median of 20, chromium)</td>"
        '<td style="text-align: right">12.5 ms</td><td>&#60; 50 ms</td><td>✔ met</td></tr>'
    ) in en
    assert "The <code>doctor/</code> page with everything it loads (gzip: css 26.0 kB" in en
    zh = render("zh")
    assert "冷构建（新进程，构建缓存与仓库中的一致）中知识库钩子函数所占比例（0.30 s / 4.00 s）" in zh
    assert "<td>✔ 达标</td>" in zh and "没有任何缓存" not in zh  # the record has no figure for it
    with_empty = tmp_path / "empty.json"
    with_empty.write_text(json.dumps({**RECORD, "figures": {**FIGURES, **NO_CACHES}}), encoding="utf-8")
    assert (
        "<tr><td>The same with no caches at all (a fresh clone's first build: every check, page and export "
        'computed; 9.00 s of 12.00 s)</td><td style="text-align: right">75.0%</td><td></td><td></td></tr>'
    ) in render("en", with_empty)
    assert render("en", tmp_path / "none.json") == (
        '!!! info "No measurement yet"\n\n'
        "    The repository holds no <code>benchmarks/latest.json</code> yet: run <code>nox -s bench</code> "
        "and commit it."
    )


def test_the_probe_copies_the_package_whole_and_leaves_out_the_builds():
    """handbook/site/ is the package's (copied: else the probe imports another checkout's), site/ at the root
    a build (left out), as are caches anywhere."""
    from handbook.core.paths import REPO_ROOT
    from handbook.site.bench import _copy_ignore

    assert _copy_ignore(str(REPO_ROOT), ["site", ".cache", ".git", "handbook", "kb", "__pycache__"]) == {
        "site",
        ".cache",
        ".git",
        "__pycache__",
    }
    assert _copy_ignore(str(REPO_ROOT / "handbook"), ["site", "kb", "__pycache__"]) == {"__pycache__"}
