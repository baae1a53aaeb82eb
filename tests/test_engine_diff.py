"""The snapshot diff on two small hand-written snapshots; every expectation below was worked out by hand
from tests/fixtures/engine/old.json and new.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handbook.engine.diff import (
    ChoicesChange,
    OptionRef,
    Renamed,
    ValueChange,
    diff_snapshots,
    main,
    render_markdown,
)
from handbook.engine.snapshot import load_snapshot

FIXTURES = Path(__file__).parent / "fixtures" / "engine"
OLD, NEW = FIXTURES / "old.json", FIXTURES / "new.json"


@pytest.fixture(scope="module")
def diff():
    return diff_snapshots(load_snapshot(path=OLD), load_snapshot(path=NEW))


def _parser(diff, name):
    return next(p for p in diff.parsers if p.parser == name)


def test_versions_and_parser_set(diff):
    assert (diff.old_version, diff.new_version) == ("0.0.1", "0.0.2")
    assert diff.old_router_version == diff.new_router_version == "0.0.1"
    assert [p.parser for p in diff.parsers] == ["launch_server", "launch_router", "bench_serving"]
    assert diff.parsers_added == [] and diff.parsers_removed == []
    assert not diff.is_empty


def test_server_added_and_removed(diff):
    server = _parser(diff, "launch_server")
    assert server.added == [OptionRef("--attn-dp-size", ("--attn-dp-size",), "attn_dp_size")]
    assert server.removed == [OptionRef("--removed-flag", ("--removed-flag",), "removed_flag")]


def test_server_renamed(diff):
    server = _parser(diff, "launch_server")
    # tp_size keeps both old spellings and gains --tp; keep_me loses --old-flag for --new-flag.
    assert server.renamed == [
        Renamed(
            "tp_size",
            ("--tp-size", "--tensor-parallel-size"),
            ("--tp-size", "--tensor-parallel-size", "--tp"),
        ),
        Renamed("keep_me", ("--old-flag",), ("--new-flag",)),
    ]
    alias, rename = server.renamed
    assert (
        alias.added == ("--tp",)
        and alias.dropped == ()
        and alias.kept == ("--tp-size", "--tensor-parallel-size")
    )
    assert rename.kept == () and rename.dropped == ("--old-flag",) and rename.added == ("--new-flag",)


def test_server_defaults_changed(diff):
    server = _parser(diff, "launch_server")
    # 16384 -> 16384.0 counts: an int default became a float one (== would have hidden it).
    assert server.defaults_changed == [
        ValueChange("--mem-fraction-static", None, 0.9),
        ValueChange("--max-prefill-tokens", 16384, 16384.0),
        ValueChange("--log-level", "info", "warning"),
    ]


def test_server_choices_and_types(diff):
    server = _parser(diff, "launch_server")
    assert server.choices_changed == [
        ChoicesChange(
            "--attention-backend",
            added=("fa4",),
            removed=("flashinfer",),
            old=("triton", "flashinfer", "fa3"),
            new=("triton", "fa3", "fa4"),
        )
    ]
    assert server.types_changed == [ValueChange("--chunked-prefill-size", "int", "human_readable_int")]
    assert [r.name for r in server.newly_deprecated] == ["--enable-dp-attention"]


def test_router_order_only_change_is_not_a_change(diff):
    router = _parser(diff, "launch_router")
    assert router.added == [OptionRef("--mini-lb", ("--mini-lb",), "mini_lb")]
    assert router.choices_changed == []  # --policy choices only changed order
    assert router.removed == router.renamed == router.defaults_changed == router.types_changed == []


def test_bench_unchanged(diff):
    assert _parser(diff, "bench_serving").is_empty


def test_environ(diff):
    env = diff.environ
    assert env.added == ["SGLANG_E"]
    assert env.removed == ["SGLANG_D"]
    # SGLANG_C only moved (line, doc): not a change.
    assert env.defaults_changed == [ValueChange("SGLANG_A", False, True), ValueChange("SGLANG_B", 1, 1.0)]
    assert env.types_changed == [ValueChange("SGLANG_B", "int", "float")]


def test_same_snapshot_is_empty():
    snapshot = load_snapshot(path=OLD)
    same = diff_snapshots(snapshot, snapshot)
    assert same.is_empty
    assert "No differences" in render_markdown(same)


def test_markdown_has_a_section_per_parser(diff):
    text = render_markdown(diff)
    assert text.startswith("# SGLang 0.0.1 → 0.0.2\n")
    for heading in ("## launch_server", "## launch_router", "## bench_serving", "## Environment variables"):
        assert f"\n{heading}\n" in text
    assert "- `--attention-backend`: added `fa4`; removed `flashinfer`" in text
    assert "- dest `keep_me`: `--old-flag` → `--new-flag`" in text
    assert "- dest `tp_size`: new spelling `--tp`" in text
    assert '- `--log-level`: `"info"` → `"warning"`' in text
    assert "- `--mem-fraction-static`: `null` → `0.9`" in text
    bench = text.split("## bench_serving\n", 1)[1].split("\n## ", 1)[0]
    assert bench.strip() == "No changes."


def test_main_markdown_and_json(capsys, tmp_path):
    assert main([str(OLD), str(NEW)]) == 0
    assert "### Options removed (1)" in capsys.readouterr().out
    out = tmp_path / "diff.json"
    assert main([str(OLD), str(NEW), "--json", "--output", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["environ"]["removed"] == ["SGLANG_D"]
    assert data["parsers"][0]["renamed"][1] == {
        "dest": "keep_me",
        "old_spellings": ["--old-flag"],
        "new_spellings": ["--new-flag"],
    }


def test_main_reports_a_bad_file(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main([str(bad), str(NEW)]) == 2
    assert "not JSON" in capsys.readouterr().err
