"""kb/glossary.yaml: one spelling per term, in both languages. The check finds an avoided variant in a
language's pages (prose, not code), in the KB's texts and in the site's own wording (the tools' labels among
it), with its file and line; the appendix lists the terms and their variants in both languages; the real site
has none left, and the planner, the configurator and the doctor give one concept one label."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from handbook.core.messages import CATALOGUE as MESSAGES
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.ops import glossary
from handbook.validation.glossary import avoided, glossary_problems, page_lines

FIXTURES = Path(__file__).parent / "fixtures"
PAGE = """# Memory { #memory }

The KV cache holds every token; the KV-cache pool is sized at startup.

```text
KV-cache in a code block is code, not prose
```

`KV-cache` as inline code, and [a link](02-memory.md#KV-cache) target, are not prose either.
A KV Cache written with a capital C is the other variant. A KV-caches word is another word.
"""


def _kb(tmp_path: Path, pitfall: str = "OOM at start-up"):
    root = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    pitfalls = root / "pitfalls.yaml"
    pitfalls.write_text(pitfalls.read_text().replace("OOM at start-up", pitfall), encoding="utf-8")
    return load_kb(root)


ZH_PAGE = """# 显存 { #memory }

KV-cache 在中文页上不查（那是英文的变体）；KV 缓存与 KV Cache 池才是中文的变体。

`KV 缓存` 是代码，“KV 缓存”是引号里别人的话，⟦KV 缓存⟧ 是源稿的原话，都不查。
"""


def _docs(tmp_path):
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "en" / "02-memory.md").write_text(PAGE, encoding="utf-8")
    (docs / "zh").mkdir()
    (docs / "zh" / "02-memory.md").write_text(ZH_PAGE, encoding="utf-8")
    return docs


def _kb_with_zh(tmp_path, pitfall="OOM at start-up"):
    kb = _kb(tmp_path, pitfall)
    root = tmp_path / "kb"
    glossary = root / "glossary.yaml"
    glossary.write_text(
        glossary.read_text(encoding="utf-8").replace(
            "avoid: [KV Cache, KV-cache]", "avoid: [KV Cache, KV-cache]\n    avoid_zh: [KV 缓存, KV Cache 池]"
        ),
        encoding="utf-8",
    )
    return load_kb(root) if kb else kb


def test_an_avoided_variant_in_either_languages_prose_is_found_at_its_line(tmp_path):
    docs = _docs(tmp_path)
    assert [str(p) for p in glossary_problems(_kb_with_zh(tmp_path), docs)] == [
        "docs/zh/02-memory.md:3: got 'KV 缓存', expected 'KV Cache' (kb/glossary.yaml)",
        "docs/zh/02-memory.md:3: got 'KV Cache 池', expected 'KV Cache' (kb/glossary.yaml)",
        "docs/en/02-memory.md:3: got 'KV-cache', expected 'KV cache' (kb/glossary.yaml)",
        "docs/en/02-memory.md:10: got 'KV Cache', expected 'KV cache' (kb/glossary.yaml)",
    ]
    lines = dict(((file, line), text) for file, line, text in page_lines(docs))
    assert ("docs/en/02-memory.md", 6) not in lines  # inside the fence


def test_a_variant_inside_a_longer_word_or_a_flag_is_another_word():
    from handbook.core.words import whole

    assert whole("attn-dp").search("the attn-dp groups")
    assert not whole("attn-dp").search("--attn-dp-size 8")
    assert not whole("attention-DP").search("SGLang · C · attention-DP4 + routed TP4")
    assert whole("注意力数据并行").search("TP 组内的注意力数据并行组数")


def test_an_avoided_variant_in_the_kbs_english_is_found_at_its_field(tmp_path):
    kb = _kb(tmp_path, pitfall="the KV-cache fills up")
    assert [str(p) for p in glossary_problems(kb, None)] == [
        "kb/pitfalls.yaml:3: pitfalls[0].symptom.en: got 'KV-cache', expected 'KV cache' (kb/glossary.yaml)",
    ]
    assert glossary_problems(_kb(tmp_path / "clean"), None) == []


DOMAIN_TERMS = {
    "attention-dp",
    "expert-parallelism",
    "pd-disaggregation",
    "prefill-decode",
    "kv-pool",
    "state-pool",
    "cuda-graph",
    "page",
    "chunked-prefill",
    "speculative-decoding",
    "hicache",
    "accelerator",
}


def test_the_real_site_uses_one_spelling_per_term_in_both_languages():
    kb = load_kb()
    assert {t.id for t in kb.glossary.values()} >= DOMAIN_TERMS | {"startup", "router", "source-text"}
    for lang in ("zh", "en"):
        assert sum(len(avoided(t, lang)) for t in kb.glossary.values()) >= 25  # the check has words to find
        assert glossary_problems(kb, Path(__file__).parents[1] / "docs", langs=(lang,)) == [], lang


# One concept, one label: the planner's, the configurator's and the doctor's keys for the same thing.
SAME_LABEL = [
    ("planner-model", "cfg-model"),
    ("planner-gpu", "cfg-gpu"),
    ("planner-weights-dtype", "cfg-precision"),
    ("planner-cli-what-gpu", "cfg-cli-what-gpu"),
]


@pytest.mark.parametrize(("one", "other"), SAME_LABEL)
def test_the_tools_give_one_concept_one_label(one, other):
    assert MESSAGES[one] == MESSAGES[other]


def test_the_tools_name_the_accelerator_with_the_glossarys_term():
    term = load_kb().glossary["accelerator"].term
    assert MESSAGES["cfg-gpu"] == (term.zh, term.en.capitalize())


def test_the_appendix_lists_each_term_in_both_languages():
    kb = load_kb()
    zh = glossary(RenderContext(kb, "zh", "09-appendix.md"))
    en = glossary(RenderContext(kb, "en", "09-appendix.md"))
    assert (
        '<tr id="term-startup"><td>启动</td><td><strong>startup</strong></td><td>英文：<s>start-up</s>' in zh
    )
    assert "<td><strong>benchmark</strong></td><td>English: <s>reference implementation</s></td>" in en
    assert (
        "<td>Chinese: <s>attention-DP</s>, <s>attention DP</s>, <s>attn-dp</s>, <s>注意力数据并行</s><br>"
        "English: <s>attention-DP</s>" in en
    )
