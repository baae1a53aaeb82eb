"""Chapters 05–09's own renderers on the fixture KB (kb-mini plus the files in kb-pages-b), and the pages'
placement of every recipe in both languages."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import handbook.render.renderers  # noqa: F401 - registers the renderers
from handbook.core.paths import REPO_ROOT
from handbook.kb.loader import KB, load_kb
from handbook.render.context import RenderContext
from handbook.render.markers import MarkerErrors, render_page

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KB:
    """kb-mini with two quick-reference models (moe-d, moe-e) and a documentation source (docs-ep) added."""
    root = tmp_path_factory.mktemp("kb") / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    shutil.copytree(FIXTURES / "kb-pages-b", root, dirs_exist_ok=True)
    return load_kb(root)


def render(kb: KB, markdown: str, lang: str, page: str) -> str:
    return render_page(markdown + "\n", RenderContext(kb, lang, page), f"docs/{lang}/{page}").strip()


def errors(kb: KB, markdown: str, page: str = "05-parallelism.md") -> list[str]:
    with pytest.raises(MarkerErrors) as caught:
        render(kb, markdown, "zh", page)
    return [str(p) for p in caught.value.problems]


# ------------------------------------------------------------------------------------ kb:topologies
def test_topologies_render_intro_each_layout_and_the_basis_in_english(kb):
    assert render(kb, "<!-- kb:topologies basis=docs-ep -->", "en", "05-parallelism.md") == (
        "> Example\n\n"
        "### SGLang · A · Attention TP4 + routed TP4 { #topology-a }\n\n"
        "Key settings: <code>--tp-size 4</code> (illustrates the mechanism; "
        "the model's and hardware's constraints must still be met).\n\n"
        '<figure class="kb-figure" id="figure-sglang-a" markdown="span">\n'
        "[![SGLang · A · Attention TP4 + routed TP4&#58; 4 GPUs. Each GPU holds H/4 query heads and 2 KV heads "
        "(of every request), and a 1/4 slice of each of the E routed experts. all-reduce Premise]"
        "(../assets/topologies/sglang/en/topology-1.svg){ loading=lazy }](../assets/topologies/sglang/en/topology-1.svg)\n"
        "<figcaption>SGLang · A · Attention TP4 + routed TP4</figcaption>\n"
        "</figure>\n\n"
        "Caption Premise\n\n"
        'Official source: <a href="https://docs.example.org/ep?a=1&amp;b=2">SGLang</a>.'
    )


def test_topologies_in_chinese_join_caption_and_premise_without_a_space(kb):
    assert render(kb, "<!-- kb:topologies basis=docs-ep -->", "zh", "05-parallelism.md") == (
        "> 示例\n\n"
        "### SGLang · A · Attention TP4 + routed TP4 { #topology-a }\n\n"
        "配置要点：<code>--tp-size 4</code>（机制示例，须满足模型与硬件约束）。\n\n"
        '<figure class="kb-figure" id="figure-sglang-a" markdown="span">\n'
        "[![SGLang · A · Attention TP4 + routed TP4：4 张 GPU。每张 GPU 保存 H/4 个 query head 和 2 个 KV head（所有请求的），以及 全部 E 个路由专家各自的 1/4 切片。all-reduce前提](../assets/topologies/sglang/topology-1.svg){ loading=lazy }](../assets/topologies/sglang/topology-1.svg)\n"
        "<figcaption>SGLang · A · Attention TP4 + routed TP4</figcaption>\n"
        "</figure>\n\n"
        "图注前提\n\n"
        '官方依据：<a href="https://docs.example.org/ep?a=1&amp;b=2">SGLang</a>。'
    )


def test_topologies_need_a_known_basis_with_a_url(kb):
    assert errors(kb, "<!-- kb:topologies basis=nope -->") == [
        "docs/zh/05-parallelism.md:1: kb:topologies: 'nope' is not a source id (kb/sources/<id>.yaml)"
    ]
    assert errors(kb, "<!-- kb:topologies basis=handbook -->") == [
        "docs/zh/05-parallelism.md:1: kb:topologies: source handbook has no url to link to"
    ]
    assert errors(kb, "<!-- kb:topologies -->") == [
        "docs/zh/05-parallelism.md:1: kb:topologies: missing argument(s) basis (accepts: basis)"
    ]


# ------------------------------------------------------------------------------------ kb:quick-reference
def test_quick_reference_rows_link_models_and_flags_and_show_image_and_branch(kb):
    out = render(kb, "<!-- kb:quick-reference models=moe-d,moe-e highlight=moe-d -->", "en", "06-models.md")
    assert out == (
        "<table>\n"
        "<thead><tr><th>Model</th><th>Recommended TP/EP</th><th>Key parameters</th><th>Image</th></tr></thead>\n"
        "<tbody>\n"
        '<tr><td><strong><a href="../01-landscape/#moe-d">MoE-D</a></strong></td><td>tp4 + ep4 (one node)</td>'
        '<td><a href="../04-parameters/#tp-size"><code>--tp-size 4</code></a>, '
        '<a href="../04-parameters/#attention-backend"><code>--attention-backend fa3</code></a>'
        "<br><small>fa3 on Hopper</small></td>"
        "<td><code>example/serve&#58;1.0</code><br><small>source branch <code>day-0</code></small></td></tr>\n"
        # a reference model's entry is its KV-table row on 02; an image without a tag shows the source's words
        '<tr><td><a href="../02-memory/#kv-moe-e">MoE-E</a></td><td>tp2</td>'
        '<td><a href="../04-parameters/#tp-size"><code>--tp 2</code></a></td>'
        "<td>nightly build &#60;b&#62;</td></tr>\n"
        "</tbody></table>"
    )


def test_quick_reference_in_chinese_joins_flags_with_the_enumeration_comma(kb):
    out = render(kb, "<!-- kb:quick-reference models=moe-d -->", "zh", "06-models.md")
    assert "<th>模型</th><th>推荐 TP/EP</th><th>关键参数</th><th>镜像</th>" in out
    assert "<code>--tp-size 4</code></a>、<a " in out
    assert "<br><small>源码分支 <code>day-0</code></small>" in out
    assert "<strong>" not in out  # nothing highlighted


def test_quick_reference_without_models_lists_every_model_with_a_row_in_kb_order(kb):
    out = render(kb, "<!-- kb:quick-reference -->", "en", "06-models.md")
    assert re.findall(r'<tr><td><a href="[^"]+">([^<]+)</a>', out) == ["MoE-D", "MoE-E"]


def test_quick_reference_rejects_models_without_a_row_and_stray_highlights(kb):
    assert errors(kb, "<!-- kb:quick-reference models=dense-a -->", "06-models.md") == [
        "docs/zh/06-models.md:1: kb:quick-reference: dense-a has no `recommended` entry in kb/models/dense-a.yaml"
    ]
    assert errors(kb, "<!-- kb:quick-reference models=nope -->", "06-models.md") == [
        "docs/zh/06-models.md:1: kb:quick-reference: 'nope' is not a model id"
    ]
    assert errors(kb, "<!-- kb:quick-reference models=moe-d highlight=moe-e -->", "06-models.md") == [
        "docs/zh/06-models.md:1: kb:quick-reference: highlight=moe-e: not one of the table's models"
    ]


def test_quick_reference_with_no_model_having_a_row_is_an_error():
    bare = load_kb(FIXTURES / "kb-mini")
    assert errors(bare, "<!-- kb:quick-reference -->", "06-models.md") == [
        "docs/zh/06-models.md:1: kb:quick-reference: no model has a `recommended` entry"
    ]


# ------------------------------------------------------------------------------------ kb:param-default
def test_param_default_shows_a_value_or_the_word_for_its_kind(kb):
    assert (
        render(kb, "默认 **<!-- kb:param-default flag=--tp-size -->**。", "zh", "06-models.md")
        == "默认 **1**。"
    )
    assert render(kb, "<!-- kb:param-default flag=--tp -->", "en", "06-models.md") == "1"  # an alias
    assert (
        render(kb, "<!-- kb:param-default flag=--mem-fraction-static -->", "en", "06-models.md")
        == "automatic"
    )
    assert render(kb, "<!-- kb:param-default flag=--mem-fraction-static -->", "zh", "06-models.md") == "自动"
    router = "<!-- kb:param-default flag=--pd-disaggregation program=launch_router -->"
    assert render(kb, router, "zh", "06-models.md") == "关闭"


def test_param_default_of_an_unknown_flag_names_the_program(kb):
    assert errors(kb, "<!-- kb:param-default flag=--pd-disaggregation -->", "06-models.md") == [
        "docs/zh/06-models.md:1: kb:param-default: --pd-disaggregation is not a launch_server parameter "
        "in kb/parameters/"
    ]


# ------------------------------------------------------------------------------------ the pages
RECIPE_MARKER = re.compile(r"<!--\s*kb:recipe(?:-tabs)?\s+ids?=(\S+)")


def _placements(lang: str) -> dict[str, list[str]]:
    placed: dict[str, list[str]] = {}
    for page in sorted((REPO_ROOT / "docs" / lang).glob("*.md")):
        for match in RECIPE_MARKER.finditer(page.read_text(encoding="utf-8")):
            for rid in match.group(1).split(","):
                placed.setdefault(rid, []).append(page.name)
    return placed


def test_every_recipe_is_placed_once_on_the_same_page_in_both_languages():
    recipes = sorted(p.stem for p in (REPO_ROOT / "kb" / "recipes").glob("*.yaml"))
    zh, en = _placements("zh"), _placements("en")
    assert sorted(zh) == recipes
    assert all(len(pages) == 1 for pages in zh.values()), {r: p for r, p in zh.items() if len(p) > 1}
    assert en == zh
