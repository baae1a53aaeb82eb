"""The pages that set the site beside every stored SGLang release: option history on the option reference,
removed options, the upgrading page, the compatibility matrix, and ``check --engine``.

The changes asserted here were each read in both wheels' source (the release before and the one after):
``--attn-dp-size`` added in 0.5.22 (0.5.22 sglang/srt/arg_groups/fields/parallel.py:81; 0.5.21 has only the
derived field, parallel.py:285), ``--hicache-mem-layout``'s default layer_first → page_first in 0.5.14
(0.5.13 server_args.py:694; 0.5.14 server_args.py:1798-1810), ``--cuda-graph-max-bs`` a deprecated alias
of ``--cuda-graph-max-bs-decode`` from 0.5.14 (0.5.19 server_args.py:3929) and gone in 0.5.20.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys

import pytest

from handbook.checker import cache
from handbook.checker.cache import CheckCache
from handbook.core.text import LANGS
from handbook.kb.loader import load_kb
from handbook.render import versions
from handbook.render.context import RenderContext
from handbook.render.engine import engine_options


@pytest.fixture(scope="module")
def kb():
    return load_kb()


def ctx(kb, lang: str, page: str) -> RenderContext:
    return RenderContext(kb=kb, lang=lang, page=page)


def _row(table: str, row_id: str) -> str:
    match = re.search(rf'<tr id="{re.escape(row_id)}">(.*?)</tr>', table, re.S)
    assert match, f"no row {row_id}"
    return _plain(match.group(1))


def _plain(text: str) -> str:
    """The text of some HTML, tags and runs of spaces as one space."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


# ------------------------------------------------------------------------------------------ option reference
@pytest.mark.parametrize(
    ("lang", "since", "default_change"),
    [
        ("en", "since 0.5.22", "0.5.14: default layer_first → page_first"),
        ("zh", "0.5.22 起", "0.5.14：默认值 layer_first → page_first"),
    ],
)
def test_the_option_reference_shows_history(kb, lang, since, default_change):
    table = engine_options(ctx(kb, lang, "engine-options.md"), program="launch_server")
    assert since in _row(table, "opt-attn-dp-size")
    assert re.sub(r"\s+", " ", default_change) in re.sub(r"\s+", " ", _row(table, "opt-hicache-mem-layout"))
    # present and unchanged in every stored release: a dash
    assert _row(table, "opt-tp-size").split()[-1] != "0.5.10"
    assert "—" in _row(table, "opt-tp-size")


def test_the_option_reference_caption_names_the_compared_releases(kb):
    table = engine_options(ctx(kb, "en", "engine-options.md"), program="bench_serving")
    assert "compares the 14 stored releases (0.5.10–0.5.23)" in _plain(table)
    assert "0.5.14: default 1 → 42" in _row(table, "bench-opt-seed")


def test_removed_options(kb):
    table = versions.options_removed(ctx(kb, "en", "engine-options.md"), program="launch_server")
    row = re.sub(r"\s+", " ", _row(table, "opt-cuda-graph-max-bs"))
    assert "0.5.10–0.5.19" in row
    assert "0.5.14: deprecated; use --cuda-graph-max-bs-decode" in row
    assert 'id="opt-tp-size"' not in table and 'id="opt-attn-dp-size"' not in table
    router = versions.options_removed(ctx(kb, "zh", "engine-options.md"), program="launch_router")
    assert _plain(router) == "python -m sglang_router.launch_router：0.5.10 以来没有移除任何参数。"


# ------------------------------------------------------------------------------------------ upgrading
def _section(page: str, anchor: str) -> str:
    return next(part for part in re.split(r"(?m)^(?=## )", page) if f"{{ #{anchor} }}" in part)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_upgrading_page_has_one_section_per_pair_with_the_same_anchors(kb, lang):
    page = versions.engine_upgrading(ctx(kb, lang, "upgrading.md"))
    anchors = re.findall(r"\{ #(upgrade-[0-9-]+) \}", page)
    assert anchors == [f"upgrade-0-5-{n}" for n in range(23, 10, -1)]  # newest first, 13 pairs


def test_upgrading_lists_a_flag_the_site_uses(kb):
    page = versions.engine_upgrading(ctx(kb, "en", "upgrading.md"))
    added = _section(page, "upgrade-0-5-22")
    assert "From 0.5.21 to 0.5.22" in added
    row = _plain(re.search(r"<tr><td><a [^>]*><code>--attn-dp-size</code>.*?</tr>", added, re.S).group(0))
    assert "0.5.22: added" in row and "deepseek-v3-pd-decode" in row
    layout = _plain(_section(page, "upgrade-0-5-14"))
    assert "--hicache-mem-layout 0.5.14: default layer_first → page_first" in layout
    assert "glm-5.3-hicache" in layout  # the recipe that sets it


def test_a_flag_the_site_does_not_use_is_left_out(kb):
    page = versions.engine_upgrading(ctx(kb, "en", "upgrading.md"))
    uses = versions.site_uses(ctx(kb, "en", "upgrading.md"))
    assert ("launch_server", "--attn-dp-size") in uses
    assert ("launch_server", "--hybrid-kvcache-ratio") not in uses  # removed after 0.5.13, never used here
    assert "--hybrid-kvcache-ratio" not in page


def test_the_releases_table_says_how_the_router_was_paired(kb):
    out = _plain(versions.engine_releases(ctx(kb, "en", "upgrading.md")))
    assert "0.5.22 2026-10-16 522 / 99 / 87 684 0.3.2" in out
    assert "rests on upload dates only" in out
    assert "0.5.10.post1, 0.5.12.post1, 0.5.13.post1, 0.5.15.post1" in out


# ------------------------------------------------------------------------------------------ compatibility
def test_first_accepted():
    clean, bad = versions.Cell("clean", ()), versions.Cell("errors", ())
    warn = versions.Cell("warnings", ())
    assert versions.first_accepted({"a": bad, "b": clean, "c": warn}) == "b"
    assert versions.first_accepted({"a": clean, "b": bad, "c": clean}) == "c"  # from which every later one
    assert versions.first_accepted({"a": clean, "b": clean}) == "a"
    assert versions.first_accepted({"a": clean, "b": bad}) is None


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_matrix_covers_every_command_and_release(kb, lang):
    table = versions.engine_compatibility(ctx(kb, lang, "compatibility.md"))
    ids = re.findall(r'<tr id="compat-([^"]+)">', table)
    assert ids == [r.id for r in kb.recipes.values() if r.kind != "shell"]
    for row in re.findall(r'<tr id="compat-[^"]+">(.*?)</tr>', table, re.S):
        assert len(re.findall(r'class="compat-(clean|warnings|errors)"', row)) == 14


def test_both_languages_of_a_build_share_one_matrix(kb, monkeypatch, tmp_path):
    """The matrix is the same in zh and en, so a build checks the commands against every release once, and
    the next build reads the answers back from the check cache; a context without the build's store and
    cache (a renderer test) checks them itself."""
    calls = []
    real = cache.check_recipe
    monkeypatch.setattr(cache, "check_recipe", lambda *a: calls.append(a) or real(*a))

    def build() -> list:
        store: dict = {}
        checks = CheckCache(kb, tmp_path / ".cache" / "checks")
        pages = [
            RenderContext(kb, lang, "compatibility.md", build_store=store, checks=checks) for lang in LANGS
        ]
        zh, en = (versions.compatibility(page) for page in pages)
        assert zh is en
        return zh

    matrix = build()
    assert len(calls) == len(matrix) * 14
    assert build() == matrix and len(calls) == len(matrix) * 14  # the next build checks nothing
    versions.compatibility(ctx(kb, "en", "compatibility.md"))
    assert len(calls) == len(matrix) * 14 * 2


def test_the_matrix_gives_the_first_release_and_the_rejecting_finding(kb):
    table = versions.engine_compatibility(ctx(kb, "en", "compatibility.md"))
    row = _row(table, "compat-deepseek-v3-pd-decode")
    assert "0.5.22" in row
    assert "0.5.21: --attn-dp-size is not an option of python -m sglang.launch_server (sglang 0.5.21)" in row
    marks = re.findall(
        r'class="compat-(\w+)"',
        re.search(r'id="compat-deepseek-v3-pd-decode">(.*?)</tr>', table, re.S).group(1),
    )
    assert marks == ["errors"] * 12 + ["clean"] * 2
    assert "0.5.10 or earlier" in _row(table, "compat-glm-5.3-hicache")


@pytest.mark.slow
def test_the_matrix_agrees_with_the_command_line(kb):
    """The same checker behind both: a release the matrix marks rejected fails `check --engine` with 2."""
    rows = dict((r.id, cells) for r, cells in versions.compatibility(ctx(kb, "en", "compatibility.md")))
    assert rows["glm-5.3-nvidia-tp8-ep8"]["0.5.12"].status == "errors"
    assert rows["glm-5.3-nvidia-tp8-ep8"]["0.5.13"].status == "clean"
    from handbook.calc.recipe_text import command_text

    text = command_text(kb.recipes["glm-5.3-nvidia-tp8-ep8"])
    for version, status in (("0.5.12", 2), ("0.5.13", 0)):
        done = subprocess.run(
            [sys.executable, "-m", "handbook", "check", "--lang", "en", "--engine", version],
            input=text,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == status, done.stdout + done.stderr


# ------------------------------------------------------------------------------------------ check --engine
def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "handbook", "check", "--lang", "en", *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_check_against_an_older_release():
    done = _check("--engine", "0.5.20", "--", "python", "-m", "sglang.launch_server", "--model-path", "m",
                  "--tp-size", "8", "--attn-dp-size", "8")  # fmt: skip
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        "1: error[flag.unknown]: --attn-dp-size is not an option of python -m sglang.launch_server "
        "(sglang 0.5.20); the closest is --attn-cp-size",
        "    ↳ --attn-dp-size is in sglang 0.5.22–0.5.23",
        "✖ 1 error(s), 0 warning(s), 0 note(s) (sglang 0.5.20)",
    ]
    clean = _check("--engine", "0.5.22", "--", "python", "-m", "sglang.launch_server", "--model-path", "m",
                   "--tp-size", "8", "--attn-dp-size", "8")  # fmt: skip
    assert clean.returncode == 0
    assert clean.stdout.splitlines()[-1] == "✔ no problems found (checked against sglang 0.5.22)"


@pytest.mark.slow
def test_a_rule_names_the_release_checked_where_its_behaviour_holds():
    done = _check("--engine", "0.5.21", "--", "--enable-hierarchical-cache", "--disable-radix-cache")
    assert done.returncode == 2  # the rule holds from 0.5.10 (kb/rules.yaml releases)
    assert "sglang 0.5.21 refuses to start: ValueError in kv_cache_hook.py" in done.stdout
    assert done.stdout.splitlines()[-1] == "✖ 1 error(s), 0 warning(s), 0 note(s) (sglang 0.5.21)"
    elsewhere = _check("--engine", "0.5.21", "--", "--tp-size", "4", "--dcp-size", "2", "--enable-prefill-cp")
    assert elsewhere.returncode == 0  # dcp-excludes-prefill-cp holds from 0.5.22: a note, no verdict
    assert "established for sglang 0.5.22–0.5.23, not 0.5.21: not judged here" in elsewhere.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    "bad", ["0.5.9", "0.6.0", "kb/engine/sglang-0.5.23.json", "../sglang-0.5.23", "latest"]
)
def test_engine_takes_only_a_stored_release(bad):
    done = _check("--engine", bad, "--", "python", "-m", "sglang.launch_server", "--model-path", "m")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(
        f"✖ engine release: got {bad!r}, expected a release the site has a snapshot of: "
    )
    assert done.stderr.rstrip().endswith("0.5.22, 0.5.23")
    assert "Traceback" not in done.stderr
