"""The checker measured on SGLang's own docs and cookbook (handbook/oracles/corpus.py): every shell block of
sgl-project/sgl-docs and sgl-project/sgl-cookbook that runs an SGLang program, judged by the pinned release's
own parsers (``nox -s engine-corpus`` wrote the verdicts), and what the checker finds in each."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from handbook.kb.loader import load_kb
from handbook.oracles.corpus import EXPECTED, findings_by_command, load_corpus, measure

FOLDER = Path(__file__).parent / "fixtures" / "doc-corpus"
PINNED = load_kb().handbook.engine_version
CORPUS = load_corpus(FOLDER)
REGENERATE = "python -m handbook.oracles.corpus expect tests/fixtures/doc-corpus"


@pytest.fixture(scope="module")
def measured():
    return measure(FOLDER, PINNED)


def test_every_command_says_where_it_comes_from():
    assert len(CORPUS) >= 600
    assert Counter(item["repo"] for item in CORPUS).keys() == {
        "sgl-project/sgl-docs",
        "sgl-project/sgl-cookbook",
    }
    for item in CORPUS:
        assert re.fullmatch(r"[0-9a-f]{40}", item["commit"]), item["id"]
        assert item["path"].endswith((".md", ".mdx")) and item["line"] >= 1, item["id"]
        assert item["id"] == f"{item['repo'].split('/')[1]}:{item['path']}:{item['line']}"
    assert len({item["text"] for item in CORPUS}) == len(CORPUS)  # each block once


def test_the_release_judged_every_command():
    verdicts = json.loads((FOLDER / f"verdicts-{PINNED}.json").read_text(encoding="utf-8"))
    assert verdicts["sglang"] == PINNED
    assert set(verdicts["verdicts"]) == {item["id"] for item in CORPUS}


# Errors the release's parsers contradict, each with its cause. Both build the argv in a bash array,
# SERVER_ARGS=( … ) then sglang serve "${SERVER_ARGS[@]}": the shell reader takes the array's lines for flags
# of a launch_server command, and the diffusion server's flags (--num-gpus…) are unknown to it.
KNOWN_FALSE_ERRORS = [
    ("sgl-docs:docs/sglang-diffusion/api/cli.mdx:55", ["flag.unknown"]),
    ("sgl-docs:docs/sglang-diffusion/api/openai-api.mdx:17", ["flag.unknown"]),
]


def test_false_errors_are_the_known_ones_and_no_error_is_missed(measured):
    # an error the parsers of the release contradict, or a rejection the checker says nothing about
    assert measured.false_errors == KNOWN_FALSE_ERRORS
    assert measured.missed == []


def test_at_most_a_third_of_the_accepted_commands_get_a_warning(measured):
    assert measured.counts["accepted"] >= 300
    assert measured.warning_share <= 1 / 3, measured.warned


def test_the_checker_finds_what_it_found_when_the_corpus_was_recorded():
    expected = json.loads((FOLDER / EXPECTED).read_text(encoding="utf-8"))
    now = findings_by_command(FOLDER)
    changed = [
        f"{key}: {expected.get(key)} → {now[key]}" for key in sorted(now) if expected.get(key) != now[key]
    ]
    assert changed == [], f"{len(changed)} commands changed; if that is meant, run {REGENERATE}"
