"""The engine's notes beside texts that state what the engine does: sentences a reader keeps, the rule's id in
a link's title and never in the words, one note per text, and no note that repeats the text beside it."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from html import unescape
from pathlib import Path

import pytest

import handbook.render.renderers  # noqa: F401 - registers every kb: renderer
from handbook.core.quotes import without_quotes
from handbook.kb.loader import KINDS, load_kb
from handbook.kb.texts import leaves
from handbook.render.context import RenderContext
from handbook.render.markers import render_page
from handbook.render.verdicts import engine_note, note_sentence, verdicts
from handbook.validation.values import owner_rules

KB = load_kb()
DOCS = Path(__file__).resolve().parents[1] / "docs"


def ctx(lang: str) -> RenderContext:
    return RenderContext(KB, lang, "05-parallelism.md")


def words(html: str) -> str:
    """What a reader reads: the text without tags (a link's title is not read)."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_a_rule_the_source_overstates_gets_the_rules_own_explanation_as_a_sentence():
    note = engine_note(ctx("en"), ["a2a-ep-size-follows-tp"])
    assert words(note) == (
        "0.5.23 does not raise: for these backends (and flashinfer, megamoe, deepep_v2, ascend_fuseep, "
        "flashinfer_megamoe) resolution simply sets ep_size = tp_size, and a different --ep-size is "
        "overwritten with one INFO log line. That ep < tp needs the none backend agrees with the engine. "
        "engine check"
    )
    assert 'title="rule a2a-ep-size-follows-tp, on the engine-drift page"' in note
    assert 'href="../engine-drift/#drift-a2a-ep-size-follows-tp"' in note
    assert 'data-verdict="overstates"' in note and 'data-rules="a2a-ep-size-follows-tp"' in note


@pytest.mark.parametrize(
    ("rule", "lang", "said"),
    [
        (
            "tp-divisible-by-attn-dp",
            "en",
            "Where this does not hold, SGLang 0.5.23 refuses to start (AssertionError).",
        ),
        ("tp-divisible-by-attn-dp", "zh", "不满足时，SGLang 0.5.23 拒绝启动（AssertionError）。"),
        (
            "spec-max-running-requests-48",
            "en",
            "SGLang 0.5.23 accepts it and sets max_running_requests to 48.",
        ),
        ("trust-remote-code", "en", "SGLang 0.5.23 does not check this: it is advice, not an engine rule."),
    ],
)
def test_a_rule_without_a_disagreement_says_what_the_engine_does(rule, lang, said):
    assert words(note_sentence(ctx(lang), rule)) == said


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_note_names_its_rule_in_its_words(lang):
    for rid in KB.rules:
        assert rid not in words(engine_note(ctx(lang), [rid]))


def test_several_rules_make_one_note_and_the_link_form_is_the_links_alone():
    both = verdicts(ctx("en"), ["pplx-needs-attn-dp", "a2a-ep-size-follows-tp", "pplx-needs-attn-dp"])
    assert both.startswith("<br>") and both.count('class="engine-note"') == 1
    assert both.count("engine-note-link") == 2
    link = render_page("<!-- kb:rule-verdict id=a2a-ep-size-follows-tp form=link -->\n", ctx("en"), "x")
    assert words(link).strip() == "engine check" and 'data-rule="a2a-ep-size-follows-tp"' in link


def _texts_with_rules():
    for kind in KINDS:
        if kind.name in ("rules", "resolved_defaults", "wording_exceptions", "claims", "edits", "sources"):
            continue
        for entity in kind.entities(getattr(KB, kind.name)):
            for leaf in leaves(entity):
                if leaf.lang is not None:
                    for rid in owner_rules(leaf.owners):
                        yield KB.origin(entity).doc.file, leaf, rid


_FLAG = re.compile(r"--[\w-]+(?: [\w.:/=-]+)?")
_NAMES = {"en": _FLAG, "zh": re.compile(r"[\x00-\x7f]+")}  # Chinese prose compared by its Chinese words


def test_no_text_repeats_the_note_beside_it():
    # flags and their values taken out, a shared run this long is a repeated clause, not a shared term
    longest = {"en": 40, "zh": 10}
    repeated = []
    for file, leaf, rid in _texts_with_rules():
        names = _NAMES[leaf.lang]
        text = names.sub(" ", without_quotes(leaf.text))
        note = names.sub(" ", words(note_sentence(ctx(leaf.lang), rid)))
        match = SequenceMatcher(None, text, note, autojunk=False).find_longest_match(
            0, len(text), 0, len(note)
        )
        if match.size >= longest[leaf.lang]:
            repeated.append(f"{file} {leaf.path} ({rid}): {text[match.a : match.a + match.size]!r}")
    assert repeated == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_prose_that_says_what_the_engine_does_carries_only_the_link(lang):
    for page in (DOCS / lang).glob("*.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            if "kb:rule-verdict" in line and "form=link" not in line:
                prose = re.sub(r"<!--.*?-->", "", line)
                assert KB.handbook.engine_version not in prose, f"{page.name}: {line[:80]}"


@pytest.mark.site
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_built_pages_carry_no_templated_verdict(built_site, lang):
    root = built_site if lang == "zh" else built_site / "en"
    for html_file in root.glob("*/index.html"):
        html = html_file.read_text(encoding="utf-8")
        assert "rule-verdict" not in html and "⚙" not in html, html_file
        for note in re.findall(r'<span class="engine-note".*?</span>', html, re.S):
            assert not re.search(r"\b(rule|规则) [a-z0-9-]+\b", words(note)), note
