"""Renderers of handbook/render/facts.py on the mini KB: exact output, and exact errors for bad markers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from handbook.kb.loader import load_kb
from handbook.render import renderers  # noqa: F401 - registers every kb: renderer
from handbook.render.context import RenderContext
from handbook.render.markers import MarkerErrors, render_page

MINI = Path(__file__).parent / "fixtures" / "kb-mini"


@pytest.fixture(scope="module")
def kb():
    return load_kb(MINI)


def render(kb, markdown: str, lang: str = "zh", page: str = "02-memory.md") -> str:
    return render_page(markdown, RenderContext(kb, lang, page), f"docs/{lang}/{page}")


def errors(kb, markdown: str, lang: str = "zh") -> list[str]:
    with pytest.raises(MarkerErrors) as caught:
        render(kb, markdown, lang)
    return [str(p) for p in caught.value.problems]


# ------------------------------------------------------------------------------------ handbook-fact
@pytest.mark.parametrize(
    ("field", "lang", "expected"),
    [
        ("engine_released", "zh", "2026-10-30"),
        ("verified", "en", "2026-11-06"),
        ("engine", "zh", "SGLang"),
        ("engine_version", "en", "0.5.23"),
        ("title", "zh", "迷你手册"),
        ("title", "en", "Mini handbook"),
    ],
)
def test_handbook_fact_shows_one_value_of_handbook_yaml(kb, field, lang, expected):
    assert render(kb, f"Checked <!-- kb:handbook-fact field={field} -->.", lang) == f"Checked {expected}."


def test_handbook_fact_rejects_an_unknown_field(kb):
    assert errors(kb, "<!-- kb:handbook-fact field=baseline -->") == [
        "docs/zh/02-memory.md:1: kb:handbook-fact: field 'baseline': expected one of title, engine, "
        "engine_version, engine_released, verified"
    ]


# ------------------------------------------------------------------------------------ common-fact
def test_common_fact_shows_the_value_all_models_share(kb):
    line = "<!-- kb:common-fact models=dense-a,latent-b,secret-c field=vendor -->"
    assert render(kb, f"All by {line}.") == "All by Example."
    assert render(kb, "<!-- kb:common-fact models=latent-b,secret-c field=role format=code -->") == (
        "<code>frontier</code>"
    )


def test_common_fact_refuses_models_that_differ(kb):
    line = "<!-- kb:common-fact models=dense-a,latent-b field=context.native format=thousands -->"
    assert errors(kb, f"x\n{line}") == [
        "docs/zh/02-memory.md:2: kb:common-fact: the models do not share context.native: "
        "dense-a 131,072, latent-b 163,840"
    ]


def test_common_fact_refuses_a_model_without_the_value(kb):
    line = "<!-- kb:common-fact models=latent-b,secret-c field=context.native -->"
    assert errors(kb, line) == [
        "docs/zh/02-memory.md:1: kb:common-fact: secret-c: field 'context.native' has no value"
    ]


def test_common_fact_needs_two_models_and_known_ids(kb):
    assert errors(kb, "<!-- kb:common-fact models=dense-a field=vendor -->") == [
        "docs/zh/02-memory.md:1: kb:common-fact: common-fact needs at least two model ids "
        "(one model: use kb:fact)"
    ]
    assert errors(kb, "<!-- kb:common-fact models=dense-a,dense-z field=vendor -->") == [
        "docs/zh/02-memory.md:1: kb:common-fact: 'dense-z' is not a model id"
    ]


# ------------------------------------------------------------------------------------ claim-value
def test_claim_value_is_the_computed_number_without_its_unit(kb):
    # dense-a: 2 × 80 layers × 8 KV heads × 128 × 2 bytes = 327,680 B = 320 KiB
    assert render(kb, "(<!-- kb:claim-value id=dense-a-kv --> KiB)") == "(320 KiB)"
    # 327,680 B × 8,192 tokens = 2,684,354,560 B = 2.68 GB, shown to three significant digits
    assert render(kb, "<!-- kb:claim-value id=dense-a-8k -->", "en") == "2.68"


def test_claim_value_rejects_an_unknown_claim(kb):
    assert errors(kb, "g=<!-- kb:claim-value id=dense-a-group -->") == [
        "docs/zh/02-memory.md:1: kb:claim-value: 'dense-a-group' is not a claim id in kb/claims.yaml"
    ]


# ------------------------------------------------------------------------------------ kv-heads
GQA_ROW = "<tr><td><strong>GQA</strong></td><td><code>= n&#95;heads / g</code></td><td>1/g</td><td>Dense-A</td></tr>"


def test_kv_heads_table_in_both_languages(kb):
    body = f"<tbody>\n{GQA_ROW}\n</tbody></table>"
    assert render(kb, "<!-- kb:kv-heads families=gqa -->") == (
        "\n<table>\n<thead><tr><th>架构</th><th><code>n&#95;kv&#95;heads</code></th>"
        f"<th>相对 MHA 的 KV 量</th><th>例</th></tr></thead>\n{body}\n"
    )
    assert render(kb, "<!-- kb:kv-heads families=gqa -->", "en") == (
        "\n<table>\n<thead><tr><th>Architecture</th><th><code>n&#95;kv&#95;heads</code></th>"
        f"<th>KV size relative to MHA</th><th>Examples</th></tr></thead>\n{body}\n"
    )


def test_kv_heads_escapes_the_examples_and_keeps_the_order_given(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    families = root / "attention.yaml"
    families.write_text(
        families.read_text(encoding="utf-8")
        + "  - {id: mqa, name: MQA, label: {zh: 多查询, en: multi-query}, "
        + "representatives: {zh: 'PaLM <b>*', en: 'PaLM <b>*'}, models: [], source: handbook}\n",
        encoding="utf-8",
    )
    kb = load_kb(root)
    out = render(kb, "<!-- kb:kv-heads families=mqa,gqa -->")
    rows = [line for line in out.splitlines() if line.startswith("<tr><td>")]
    assert rows == [
        "<tr><td><strong>MQA</strong></td><td><code>= 1</code></td><td>1/n&#95;heads</td>"
        "<td>PaLM &#60;b&#62;&#42;</td></tr>",
        GQA_ROW,
    ]


def test_kv_heads_refuses_families_it_cannot_describe(kb):
    assert errors(kb, "<!-- kb:kv-heads -->") == [
        "docs/zh/02-memory.md:1: kb:kv-heads: 'mha' is not an attention family id (kb/attention.yaml)"
    ]
    assert errors(kb, "<!-- kb:kv-heads families=gqa,mla -->") == [
        "docs/zh/02-memory.md:1: kb:kv-heads: 'mla' has no n_kv_heads form: this table covers mha, gqa, mqa"
    ]
    assert errors(kb, "<!-- kb:kv-heads families=, -->") == [
        "docs/zh/02-memory.md:1: kb:kv-heads: families= names no family"
    ]


def test_kv_heads_is_a_block_marker(kb):
    assert errors(kb, "Table: <!-- kb:kv-heads families=gqa -->") == [
        "docs/zh/02-memory.md:1: kb:kv-heads renders a block: put it on a line of its own"
    ]
