"""The checker's wording lives in the catalogue's checker domains (handbook/core/messages/checker.py and the
domains the browser's checker reads beside it: deployment, releases, doctor), named by literal keys."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from handbook.checker.export import MESSAGE_DOMAINS
from handbook.core.messages import DOMAINS

PACKAGE = Path(__file__).resolve().parents[1] / "handbook"
CATALOGUE_FILES = {PACKAGE / "core" / "messages" / f"{domain}.py" for domain in MESSAGE_DOMAINS}
KEY = re.compile(r'"((?:check|deploy|sizing)-[a-z0-9-]*[a-z0-9])"')
MESSAGES = {key: pair for domain in MESSAGE_DOMAINS for key, pair in DOMAINS[domain].items()}


def sources() -> dict[Path, str]:
    return {
        path: path.read_text(encoding="utf-8")
        for path in PACKAGE.rglob("*.py")
        if path not in CATALOGUE_FILES
    }


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_every_key_is_used_and_every_used_key_exists():
    used = {key for text in sources().values() for key in KEY.findall(text)}
    assert sorted(set(MESSAGES) - used) == []  # unused entries
    assert sorted(used - set(MESSAGES)) == []  # keys with no entry


def test_the_checker_never_builds_a_key_at_run_time():
    built = re.compile(r'\b(?:msg|message)\(\s*f["\']')
    checker_files = [*(PACKAGE / "checker").glob("*.py"), PACKAGE / "cli" / "check.py"]
    offenders = [str(path) for path in checker_files if built.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_both_languages_quote_the_same_values(key):
    zh, en = MESSAGES[key]
    assert zh.strip() and en.strip()
    assert fields(zh) == fields(en)
    assert not re.search(r"[\u3400-\u9fff]", en), "Chinese in the English text"
