"""Chapter 05's topology section (handbook/render/topologies.py) on kb-mini plus the files in kb-mini-plus."""

from __future__ import annotations

import pytest
from page_rendering import errors, render

from handbook.kb.loader import KB


@pytest.fixture
def kb(kb_mini_plus: KB) -> KB:
    return kb_mini_plus


# ------------------------------------------------------------------------------------ kb:topologies
def test_topologies_render_intro_each_layout_and_the_basis_in_english(kb):
    assert render(kb, "<!-- kb:topologies basis=docs-ep -->", "en", "05-parallelism.md") == (
        "> Example\n\n"
        "### SGLang · A · Attention TP4 + routed TP4 { #topology-a }\n\n"
        "Key settings: <code>--tp-size 4</code>.\n\n"
        '<figure class="kb-figure" id="figure-sglang-a" markdown="span">\n'
        "[![SGLang · A · Attention TP4 + routed TP4&#58; 4 GPUs. Each GPU holds H/4 query heads and 2 KV heads "
        "(of every request), and a 1/4 slice of each of the E routed experts. all-reduce Premise]"
        '(../assets/topologies/sglang/en/topology-1.svg){ .diagram loading=lazy width="755" height="427" }]'
        '(../assets/topologies/sglang/en/topology-1.svg){ .figure-open title="Open the figure full size" }\n'
        "<figcaption>SGLang · A · Attention TP4 + routed TP4</figcaption>\n"
        "</figure>\n"
        '<details class="figure-text"><summary>The figure as text</summary><p>SGLang · A · Attention TP4 + routed '
        "TP4&#58; 4 GPUs. Each GPU holds H/4 query heads and 2 KV heads (of every request), and a 1/4 slice of "
        "each of the E routed experts. all-reduce Premise</p></details>\n\n"
        "Caption Premise These settings only illustrate the mechanism; a deployment must still meet the model's "
        "and the hardware's constraints.\n\n"
        'Official source: <a href="https://docs.example.org/ep?a=1&amp;b=2">Example docs&#58; expert parallelism</a>.'
    )


def test_topologies_in_chinese_join_caption_and_premise_without_a_space(kb):
    assert render(kb, "<!-- kb:topologies basis=docs-ep -->", "zh", "05-parallelism.md") == (
        "> 示例\n\n"
        "### SGLang · A · Attention TP4 + routed TP4 { #topology-a }\n\n"
        "配置要点：<code>--tp-size 4</code>。\n\n"
        '<figure class="kb-figure" id="figure-sglang-a" markdown="span">\n'
        "[![SGLang · A · Attention TP4 + routed TP4：4 张 GPU。每张 GPU 保存 H/4 个 query head 和 2 个 KV head（所有请求的），以及 全部 E 个路由专家各自的 1/4 切片。all-reduce前提](../assets/topologies/sglang/topology-1.svg)"
        '{ .diagram loading=lazy width="747" height="407" }](../assets/topologies/sglang/topology-1.svg)'
        '{ .figure-open title="点开看原尺寸的图" }\n'
        "<figcaption>SGLang · A · Attention TP4 + routed TP4</figcaption>\n"
        "</figure>\n"
        '<details class="figure-text"><summary>图的文字版</summary><p>SGLang · A · Attention TP4 + routed TP4：'
        "4 张 GPU。每张 GPU 保存 H/4 个 query head 和 2 个 KV head（所有请求的），以及 全部 E 个路由专家各自的 1/4 "
        "切片。all-reduce前提</p></details>\n\n"
        "图注前提以上配置只是机制示例，仍须满足模型与硬件的约束。\n\n"
        '官方依据：<a href="https://docs.example.org/ep?a=1&amp;b=2">示例文档：专家并行</a>。'
    )


def test_topologies_need_a_known_basis_with_a_url(kb):
    assert errors(kb, "<!-- kb:topologies basis=nope -->", "05-parallelism.md") == [
        "docs/zh/05-parallelism.md:1: kb:topologies: 'nope' is not a source id (kb/sources/<id>.yaml)"
    ]
    assert errors(kb, "<!-- kb:topologies basis=handbook -->", "05-parallelism.md") == [
        "docs/zh/05-parallelism.md:1: kb:topologies: source handbook has no url to link to"
    ]
    assert errors(kb, "<!-- kb:topologies -->", "05-parallelism.md") == [
        "docs/zh/05-parallelism.md:1: kb:topologies: missing argument(s) basis (accepts: basis)"
    ]
