"""The engine checks kept by content (handbook/checker/cache.py): an answer read back is the answer checked,
and a change to the command, the release or the facts the checker reads checks again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from handbook.checker import cache
from handbook.checker.cache import CheckCache
from handbook.checker.check import check_recipe
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

REPO = Path(__file__).resolve().parents[1]
KB = load_kb()
PINNED = KB.handbook.engine_version
OLDEST = "0.5.10"


def _unloadable():
    raise AssertionError("the snapshot was loaded although every answer was stored")


@pytest.mark.parametrize("version", [PINNED, OLDEST])
def test_stored_findings_are_the_checked_findings_and_a_second_build_checks_nothing(tmp_path, version):
    recipes = dict(list(KB.recipes.items())[:12])
    snapshot = load_snapshot(version)
    first = CheckCache(KB, tmp_path / ".cache" / "checks").findings(recipes, version, snapshot)
    assert first == {rid: check_recipe(recipe, snapshot, KB) for rid, recipe in recipes.items()}
    assert any(first.values())  # findings with messages, edits and rules went through the file
    again = CheckCache(KB, tmp_path / ".cache" / "checks").findings(recipes, version, _unloadable)
    assert again == first
    assert len(list((tmp_path / ".cache" / "checks").glob(f"{version}-*.json"))) == 1


def test_an_old_release_holds_errors_the_pinned_one_does_not(tmp_path):
    """The matrix's cells differ by release: the key must hold the release, or one answer would serve all."""
    recipes = dict(KB.recipes)
    checks = CheckCache(KB, tmp_path / ".cache" / "checks")
    old = checks.findings(recipes, OLDEST, load_snapshot(OLDEST))
    new = checks.findings(recipes, PINNED, load_snapshot(PINNED))
    assert any(f.severity == "error" for fs in old.values() for f in fs)
    assert old != new


@pytest.mark.slow
def test_a_changed_fact_or_command_is_checked_again(tmp_path):
    kb_dir = tmp_path / "kb"
    shutil.copytree(REPO / "kb", kb_dir, ignore=shutil.ignore_patterns("engine"))
    shutil.copytree(REPO / "kb" / "engine", kb_dir / "engine")
    kb = load_kb(kb_dir)
    recipes = dict(list(kb.recipes.items())[:3])
    checks = CheckCache(kb)
    assert checks.folder == tmp_path / ".cache" / "checks"  # beside the KB's folder
    checks.findings(recipes, PINNED, load_snapshot(PINNED))
    (stored,) = checks.folder.glob("*.json")
    # a comment changes no fact: the same answers
    rules = kb_dir / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    assert CheckCache(load_kb(kb_dir)).findings(recipes, PINNED, _unloadable)
    # an accelerator's memory is a fact the checker reads (sizing): checked again
    h200 = kb_dir / "hardware" / "h200.yaml"
    h200.write_text(h200.read_text(encoding="utf-8").replace("memory_gb: 141", "memory_gb: 142"), "utf-8")
    edited = load_kb(kb_dir)
    assert cache.facts_digest(edited) != checks.facts
    with pytest.raises(AssertionError, match="the snapshot was loaded"):
        CheckCache(edited).findings(recipes, PINNED, _unloadable)
    # an answer stored under another command text is not this command's
    data = json.loads(stored.read_text(encoding="utf-8"))
    assert len(data) == len(recipes) and all("\0" in key for key in data)


def test_a_release_expanded_from_the_history_is_kept_and_read_back_the_same(tmp_path):
    from handbook.engine import snapshot

    history = tmp_path / "kb" / "engine" / "sglang-history.json"
    history.parent.mkdir(parents=True)
    shutil.copyfile(snapshot.history_path(), history)
    expected = snapshot.parse_snapshot(snapshot.load_history().expand(OLDEST))
    first = snapshot._expanded.__wrapped__(history, OLDEST)
    (kept,) = (tmp_path / ".cache" / "engine").glob(f"{OLDEST}-*.json")
    assert first == expected
    assert snapshot._expanded.__wrapped__(history, OLDEST) == expected  # read back
    kept.write_text("[]", encoding="utf-8")  # not an expansion: expanded again
    assert snapshot._expanded.__wrapped__(history, OLDEST) == expected
    history.write_bytes(history.read_bytes() + b" ")  # other bytes: another file
    snapshot._expanded.__wrapped__(history, OLDEST)
    assert len(list((tmp_path / ".cache" / "engine").glob(f"{OLDEST}-*.json"))) == 2
