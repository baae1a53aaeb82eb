"""The stored SGLang releases (kb/engine/sglang-history.json): freshness, round trip, and known changes.

Offline: everything is read from the repository. The known changes below were each read in both wheels'
unpacked source (the release before and the release after); the history must report them exactly.
"""

from __future__ import annotations

import json

import pytest

from handbook.core.paths import ENGINE_DIR
from handbook.engine import SnapshotError, load_history, load_snapshot, snapshot_path, snapshot_versions
from handbook.engine.history import (
    FORMAT,
    Change,
    History,
    build,
    dumps_history,
    dumps_snapshot,
    expand,
    version_key,
)
from handbook.engine.snapshot import pinned_version

HISTORY = ENGINE_DIR / "sglang-history.json"
RELEASES = json.loads((ENGINE_DIR / "releases.json").read_text(encoding="utf-8"))
# Every final release from 0.5.10 to 0.5.23 (PyPI's index lists these 14 and four post releases).
FINALS = tuple(f"0.5.{n}" for n in range(10, 24))


@pytest.fixture(scope="module")
def history() -> History:
    return load_history()


# ------------------------------------------------------------------------------------------ freshness
def test_the_history_holds_every_final_release(history):
    assert history.versions == FINALS
    assert tuple(r["version"] for r in RELEASES["releases"]) == FINALS
    assert snapshot_versions() == FINALS
    # post releases were dumped and found equal to their base: none is stored
    assert [p["version"] for p in RELEASES["post_releases"]] == [
        "0.5.10.post1",
        "0.5.12.post1",
        "0.5.13.post1",
        "0.5.15.post1",
    ]
    assert not any(p["parsers_changed"] for p in RELEASES["post_releases"])


def test_the_pinned_release_expands_byte_identical_to_its_own_file(history):
    pinned = pinned_version()
    assert pinned == history.newest
    assert dumps_snapshot(history.expand(pinned)) == snapshot_path(pinned).read_text(encoding="utf-8")


def test_the_committed_history_is_canonical():
    """What dumps_history writes: one record per line. A hand edit shows up here."""
    text = HISTORY.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["format"] == FORMAT
    assert dumps_history(data) == text
    assert len(text.splitlines()) > 1500  # records one per line, not one long line


def test_rebuilding_from_the_expanded_releases_gives_the_same_file(history):
    """The round trip: expand every release, combine them again, and get the committed bytes back."""
    rebuilt = build([history.expand(v) for v in reversed(history.versions)])  # any order in
    assert dumps_history(rebuilt) == HISTORY.read_text(encoding="utf-8")


def test_every_release_loads_through_the_closed_schema():
    counts = {}
    for version in FINALS:
        snap = load_snapshot(version)
        assert snap.sglang_version == version
        assert snap.sglang_router_version == RELEASES["router"]["version"] == "0.3.2"
        counts[version] = tuple(len(snap.parser(p).options) for p in ("launch_server", "bench_serving"))
        counts[version] += (len(snap.environ.variables),)
        assert len(snap.parser("launch_router").options) == 99  # one router wheel for all of them
    # option and variable counts of each release's dump (server, benchmark, env vars)
    assert counts["0.5.10"] == (355, 74, 232)
    assert counts["0.5.14"] == (421, 82, 406)
    assert counts["0.5.20"] == (495, 85, 623)
    assert counts["0.5.22"] == (522, 87, 684)
    assert counts["0.5.23"] == (532, 88, 770)


def test_all_snapshots_stay_under_4_mb():
    files = [HISTORY, snapshot_path(pinned_version())]
    assert sum(f.stat().st_size for f in files) < 4_000_000
    assert sorted(p.name for p in ENGINE_DIR.glob("*.json")) == [
        "releases.json",
        "replay-sglang-0.5.23.json",  # the recipes' replay (tests/test_replays.py), not a snapshot
        "sglang-0.5.23.json",
        "sglang-history.json",
    ]


# ------------------------------------------------------------------------------------------ known changes
def test_attn_dp_size_was_added_in_0_5_22(history):
    """0.5.21: attn_dp_size is only a derived field (arg_groups/fields/parallel.py:285); 0.5.22 declares the
    CLI field (parallel.py:81) with the --attention-data-parallel-size alias (:87)."""
    life = history.lifetime("launch_server", "--attn-dp-size")
    assert (life.first, life.last, life.removed_after) == ("0.5.22", "0.5.23", None)
    assert life.spellings == ("--attn-dp-size", "--attention-data-parallel-size")
    assert "--attn-dp-size" not in load_snapshot("0.5.21").parser("launch_server")
    assert "--attn-dp-size" in load_snapshot("0.5.22").parser("launch_server")


def test_hicache_mem_layout_default_changed_in_0_5_14(history):
    """0.5.13 server_args.py:694 ``= "layer_first"``; 0.5.14 server_args.py:1798-1810 ``= "page_first"``."""
    life = history.lifetime("launch_server", "--hicache-mem-layout")
    assert life.changed("default", "choices", "type") == [
        Change("0.5.14", "default", "layer_first", "page_first", "--hicache-mem-layout")
    ]
    assert load_snapshot("0.5.13").option("launch_server", "--hicache-mem-layout").default == "layer_first"


def test_a_choice_added_and_a_benchmark_default(history):
    """fields/exec_.py: 0.5.20:596 Literal["auto", "trtllm", "mnnvl"]; 0.5.21:646 adds "cutedsl".
    bench_serving --seed: 0.5.13 bench_serving.py:2210 default=1; 0.5.14 :2356 default=42."""
    fusion = history.lifetime("launch_server", "--flashinfer-allreduce-fusion-backend")
    assert fusion.first == "0.5.14"
    assert fusion.changed("choices") == [
        Change(
            "0.5.21",
            "choices",
            ["auto", "trtllm", "mnnvl"],
            ["auto", "trtllm", "mnnvl", "cutedsl"],
            "--flashinfer-allreduce-fusion-backend",
        )
    ]
    seed = history.lifetime("bench_serving", "--seed")
    assert [(c.version, c.before, c.after) for c in seed.changed("default")] == [("0.5.14", 1, 42)]


def test_a_removed_option_and_a_renamed_spelling_order(history):
    """--cuda-graph-max-bs: a deprecated alias from 0.5.14 (server_args.py:3929 in 0.5.19), gone in 0.5.20.
    --tp-size: 0.5.13 lists --tensor-parallel-size first; one record across the change."""
    old = history.lifetime("launch_server", "--cuda-graph-max-bs")
    assert (old.last, old.removed_after) == ("0.5.19", "0.5.19")
    assert [(c.version, c.field) for c in old.changed("action", "deprecated")] == [
        ("0.5.14", "action"),
        ("0.5.14", "deprecated"),
    ]
    tp = history.lifetime("launch_server", "--tensor-parallel-size")
    assert tp is history.lifetime("launch_server", "--tp-size") and tp.first == "0.5.10"
    dcp = history.lifetime("launch_server", "--dcp-size")
    assert dcp.first == "0.5.15"


def test_between_two_releases(history):
    changes = history.between("0.5.21", "0.5.22", keys={"--attn-dp-size", "--enable-dp-attention"})
    assert Change("0.5.22", "added", None, "--attn-dp-size", "--attn-dp-size") in changes
    actions = [c for c in changes if c.key == "--enable-dp-attention" and c.field == "action"]
    assert [(c.before, c.after) for c in actions] == [("store_true", "DeprecatedStoreTrueAction")]
    assert history.between("0.5.22", "0.5.23", keys={"--no-such-flag"}) == []


# ------------------------------------------------------------------------------------------ the loader
def test_a_version_that_names_no_snapshot_is_refused():
    with pytest.raises(
        SnapshotError, match=r"no snapshot of sglang 0\.5\.9 \(stored: 0\.5\.10, .*0\.5\.23\)"
    ):
        load_snapshot("0.5.9")
    for bad in ("../sglang-0.5.23", "kb/engine/sglang-0.5.23.json", "latest", "0.5.23; rm"):
        with pytest.raises(SnapshotError, match="is not an SGLang version"):
            load_snapshot(bad)


def test_releases_sort_numerically():
    assert sorted(["0.5.10", "0.5.9", "0.5.10.post1", "0.5.11"], key=version_key) == [
        "0.5.9",
        "0.5.10",
        "0.5.10.post1",
        "0.5.11",
    ]


# ------------------------------------------------------------------------------------------ the format
def _snap(version, options, env):
    return {
        "sglang_version": version,
        "generated": {"date": "2026-11-30"},
        "parsers": {
            name: {"prog": name, "options": options if name == "launch_server" else []}
            for name in ("launch_server", "launch_router", "bench_serving")
        },
        "environ": {"variables": env, "deprecated": []},
    }


def test_the_format_on_small_snapshots():
    tp = {"option_strings": ["--tp-size"], "dest": "tp_size", "default": 1, "help": "TP"}
    page = {"option_strings": ["--page-size"], "dest": "page_size", "default": None, "choices": None}
    old = {"option_strings": ["--old"], "dest": "old", "default": False}
    a = _snap("0.5.10", [tp, old], [{"name": "SGLANG_X", "default": 1}])
    b = _snap("0.5.10.post1", [tp, old], [{"name": "SGLANG_X", "default": 1}])
    c = _snap("0.5.11", [page, dict(tp, default=2, extra="x")], [{"name": "SGLANG_X", "default": 2}])
    d = _snap("0.5.12", [dict(tp, default=2), dict(page, choices=[1, 64]), old], [])
    data = build([d, b, c, a])
    assert data["versions"] == ["0.5.10", "0.5.10.post1", "0.5.11", "0.5.12"]
    for snap in (a, b, c, d):
        assert dumps_snapshot(expand(data, snap["sglang_version"])) == dumps_snapshot(snap)
    assert data["collections"]["launch_server"]["order"][1] is None  # the same order is not stored twice
    history = History(data)
    assert [
        (x.version, x.field, x.before, x.after)
        for x in history.lifetime("launch_server", "--tp-size").changes
    ] == [("0.5.11", "default", 1, 2)]
    assert history.lifetime("launch_server", "--old").gaps == (("0.5.11", "0.5.11"),)
    assert history.lifetime("env", "SGLANG_X").removed_after == "0.5.11"
    assert history.lifetime("launch_server", "--page-size").changed("choices")[0].version == "0.5.12"
    with pytest.raises(KeyError, match=r"no snapshot of sglang 0\.5\.9"):
        expand(data, "0.5.9")


def test_engine_diff_takes_stored_releases_by_version(capsys):
    from handbook.engine.diff import main

    assert main(["0.5.21", "0.5.22"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# SGLang 0.5.21 → 0.5.22\n")
    assert "- `--attn-dp-size` (also `--attention-data-parallel-size`) → dest `attn_dp_size`" in out
    assert main(["0.5.9", "0.5.22"]) == 2  # neither a stored release nor a file
