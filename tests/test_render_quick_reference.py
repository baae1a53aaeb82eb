"""Chapter 06.8's quick reference (handbook/render/landscape.py) on kb-mini plus the files in kb-mini-plus."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_rendering import errors, render

from handbook.kb.loader import KB, load_kb


@pytest.fixture
def kb(kb_mini_plus: KB) -> KB:
    return kb_mini_plus


FIXTURES = Path(__file__).parent / "fixtures"


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
