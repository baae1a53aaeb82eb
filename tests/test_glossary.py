"""kb/glossary.yaml: one spelling per term. The check finds an avoided English variant in the English pages'
prose (not in code), in the KB's English texts and in the site's own wording, with its file and line; the
appendix lists the terms in both languages."""

from __future__ import annotations

import shutil
from pathlib import Path

from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.ops import glossary
from handbook.validation.glossary import glossary_problems, page_lines

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


def test_an_avoided_variant_in_english_prose_is_found_at_its_line(tmp_path):
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "en" / "02-memory.md").write_text(PAGE, encoding="utf-8")
    (docs / "zh").mkdir()
    (docs / "zh" / "02-memory.md").write_text(
        "# 显存 { #memory }\n\nKV-cache 在中文页上不查。\n", encoding="utf-8"
    )
    assert [str(p) for p in glossary_problems(_kb(tmp_path), docs)] == [
        "docs/en/02-memory.md:3: got 'KV-cache', expected 'KV cache' (kb/glossary.yaml)",
        "docs/en/02-memory.md:10: got 'KV Cache', expected 'KV cache' (kb/glossary.yaml)",
    ]
    lines = dict(((file, line), text) for file, line, text in page_lines(docs))
    assert ("docs/en/02-memory.md", 6) not in lines  # inside the fence


def test_an_avoided_variant_in_the_kbs_english_is_found_at_its_field(tmp_path):
    kb = _kb(tmp_path, pitfall="the KV-cache fills up")
    assert [str(p) for p in glossary_problems(kb, None)] == [
        "kb/pitfalls.yaml:3: pitfalls[0].symptom.en: got 'KV-cache', expected 'KV cache' (kb/glossary.yaml)",
    ]
    assert glossary_problems(_kb(tmp_path / "clean"), None) == []


def test_the_real_site_uses_one_spelling_per_term():
    kb = load_kb()
    assert {t.id for t in kb.glossary.values()} >= {
        "startup",
        "cuda-graph",
        "router",
        "benchmark-implementation",
    }
    assert glossary_problems(kb, Path(__file__).parents[1] / "docs") == []


def test_the_appendix_lists_each_term_in_both_languages():
    kb = load_kb()
    zh = glossary(RenderContext(kb, "zh", "09-appendix.md"))
    en = glossary(RenderContext(kb, "en", "09-appendix.md"))
    assert '<tr id="term-startup"><td>启动</td><td><strong>startup</strong></td><td><s>start-up</s>' in zh
    assert "<td><strong>benchmark</strong></td><td><s>reference implementation</s></td>" in en
