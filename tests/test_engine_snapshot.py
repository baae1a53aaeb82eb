"""The committed engine snapshot (kb/engine/sglang-0.5.23.json), its loader, and dump.py's pure parts.

Everything here is offline: the snapshot is read from the repository, and dump.py's helpers are exercised
on small argparse parsers built in the test (the real wheels are only needed by nox -s engine-snapshot).
"""

from __future__ import annotations

import argparse
import json
import re

import pytest

from handbook.core.paths import REPO_ROOT
from handbook.engine import (
    AmbiguousOption,
    EngineSnapshot,
    SnapshotError,
    UnknownOption,
    dump,
    load_snapshot,
    snapshot_path,
)
from handbook.engine.snapshot import parse_snapshot


@pytest.fixture(scope="module")
def snap() -> EngineSnapshot:
    return load_snapshot("0.5.23")


@pytest.fixture(scope="module")
def server(snap):
    return snap.parser("launch_server")


# --------------------------------------------------------------------------------------------------
# Provenance and shape
# --------------------------------------------------------------------------------------------------


def test_path_is_relative_to_the_repo_root():
    assert snapshot_path("0.5.23") == REPO_ROOT / "kb" / "engine" / "sglang-0.5.23.json"
    assert (REPO_ROOT / "handbook" / "engine" / "snapshot.py").is_file()


def test_provenance(snap):
    assert snap.schema_version == 1
    assert snap.sglang_version == "0.5.23"
    assert snap.sglang_router_version == "0.3.2"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", snap.generated.date)
    assert snap.generated.python.startswith("3.11.")
    names = [w.filename for w in snap.wheels]
    assert names == [
        "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl",
        "sglang_router-0.3.2-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    ]
    assert all(re.fullmatch(r"[0-9a-f]{64}", w.sha256) for w in snap.wheels)


def test_parsers_and_counts(snap):
    assert list(snap.parsers) == ["bench_serving", "launch_router", "launch_server"]  # sorted keys
    counts = {name: len(parser.options) for name, parser in snap.parsers.items()}
    # -h/--help included; 532 is the count the toolchain note measured for ServerArgs.add_cli_args.
    assert counts == {"launch_server": 532, "launch_router": 99, "bench_serving": 88}


def test_committed_file_is_canonical_json():
    """Sorted keys, indent 1, trailing newline: what dump.py writes. A hand edit shows up here."""
    text = snapshot_path("0.5.23").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_spellings_are_unique_within_each_parser(snap):
    for parser in snap.parsers.values():
        spellings = [s for o in parser.options for s in o.option_strings]
        assert len(spellings) == len(set(spellings)), parser.prog
        assert parser.all_spellings() == spellings


# --------------------------------------------------------------------------------------------------
# launch_server facts
# --------------------------------------------------------------------------------------------------


def test_mem_fraction_static(server):
    option = server.option("--mem-fraction-static")
    assert option.dest == "mem_fraction_static"
    assert option.type == "float"
    assert option.default is None  # decided at resolution time from the GPU's memory
    assert option.action == "store"
    assert option.engine_field is not None and option.engine_field.namespace == "schedule"


def test_tp_is_an_abbreviation_not_an_alias(server):
    """In 0.5.23 --tp-size's only alias is --tensor-parallel-size: --tp works by argparse prefix matching."""
    option = server.option("--tp-size")
    assert option.option_strings == ("--tp-size", "--tensor-parallel-size")
    assert server.option("--tensor-parallel-size") is option
    assert "--tp" not in server
    assert server.allow_abbrev
    assert server.resolve("--tp") is option
    assert server.resolve("--tp=8") is option
    with pytest.raises(UnknownOption):
        server.option("--tp")


def test_ep_is_a_real_alias_and_pp_is_ambiguous(server):
    assert server.option("--ep").dest == "ep_size"
    with pytest.raises(AmbiguousOption, match=r"--pp-size"):
        server.resolve("--pp")
    with pytest.raises(UnknownOption):
        server.resolve("--no-such-flag")


def test_model_alias_and_required(server):
    option = server.option("--model")
    assert option.name == "--model-path" and option.aliases == ("--model",)
    assert option.required


def test_attention_dp_flags(server):
    attn = server.option("--attn-dp-size")
    assert attn.dest == "attn_dp_size" and attn.type == "int" and attn.default == 1
    assert "--attention-data-parallel-size" in attn.option_strings
    legacy = server.option("--enable-dp-attention")
    assert legacy.deprecated and legacy.action == "DeprecatedStoreTrueAction"
    assert legacy.replacement == "--attn-dp-size <dp-size>"


def test_choices(server):
    assert "aiter" in server.option("--attention-backend").choices
    assert "fa4" in server.option("--attention-backend").choices
    assert server.option("--deepep-mode").choices == ("auto", "normal", "low_latency")
    assert server.option("--disaggregation-mode").choices == ("null", "prefill", "decode")
    assert server.option("--tool-call-parser").choices[0] == "auto"
    assert "qwen3_coder" in server.option("--tool-call-parser").choices
    assert "qwen3" in server.option("--reasoning-parser").choices
    assert "fastsafetensors" in server.option("--load-format").choices
    # a set in the engine: recorded sorted so the file is stable
    sampling = server.option("--sampling-backend")
    assert sampling.choices_sorted and list(sampling.choices) == sorted(sampling.choices)


def test_boolean_and_help_fields(server):
    option = server.option("--enable-hierarchical-cache")
    assert option.option_strings == ("--enable-hierarchical-cache", "--enable-hicache")
    assert option.action == "store_true" and option.default is False and not option.takes_value
    for parser_option in server.options:
        assert parser_option.help is None or "%(" not in parser_option.help
        assert parser_option.help is None or "  " not in parser_option.help


# --------------------------------------------------------------------------------------------------
# Router and benchmark
# --------------------------------------------------------------------------------------------------


def test_router(snap):
    router = snap.parser("launch_router")
    option = router.option("--pd-disaggregation")
    assert option.action == "store_true" and option.dest == "pd_disaggregation"
    assert router.option("--policy").choices == (
        "random",
        "round_robin",
        "cache_aware",
        "power_of_two",
        "manual",
    )
    assert router.option("--tool-call-parser").choices_sorted  # from the Rust extension's hash map


def test_bench_serving_and_its_deprecated_alias(snap):
    bench = snap.parser("bench_serving")
    assert "sglang" in bench.option("--backend").choices
    assert bench.option("--request-rate").default == {"repr": "inf"}
    modules = bench.modules
    assert modules["sglang.benchmark.serving"].exists
    assert modules["sglang.benchmark.serving"].deprecated_alias_of is None
    alias = modules["sglang.bench_serving"]
    assert alias.exists and alias.file == "sglang/bench_serving.py"
    assert alias.deprecated_alias_of == "sglang.benchmark.serving"
    assert alias.import_warnings[0].category == "FutureWarning"
    assert "`sglang.bench_serving` is deprecated" in alias.import_warnings[0].message


def test_all_spellings_across_parsers(snap):
    every = snap.all_spellings()
    assert len(every) == len(set(every))
    assert {"--model-path", "--pd-disaggregation", "--request-rate"} <= set(every)
    with pytest.raises(KeyError, match="no parser"):
        snap.parser("launch_everything")


# --------------------------------------------------------------------------------------------------
# Environment variables
# --------------------------------------------------------------------------------------------------


def test_environ(snap):
    env = snap.environ
    assert env.file == "sglang/srt/environ.py"
    assert len(env.variables) == 770
    variable = snap.env_var("SGLANG_OPT_RELEASE_PREFILL_SWA")
    assert variable.type == "bool" and variable.default is False
    assert variable.deprecated_aliases == ("SGLANG_OPT_SWA_RELEASE_LEAF_LOCK_AFTER_WINDOW",)
    renamed = env.deprecation("SGLANG_OPT_SWA_RELEASE_LEAF_LOCK_AFTER_WINDOW")
    assert renamed is not None and renamed.replacement == "SGLANG_OPT_RELEASE_PREFILL_SWA"
    retired = env.deprecation("SGLANG_ENABLE_CP_V2")
    assert retired is not None and retired.replacement is None and retired.note
    assert env.legacy_prefix_rewrite.from_ == "SGL_" and env.legacy_prefix_rewrite.to == "SGLANG_"
    assert "SGLANG_DG_CACHE_DIR" in env and snap.env_var("SGLANG_DG_CACHE_DIR").default == {
        "computed": 'lambda: _default_cache_subdir("deep_gemm")'
    }
    with pytest.raises(KeyError, match=r"not in sglang 0\.5\.23"):
        snap.env_var("SGLANG_NO_SUCH_THING")


# --------------------------------------------------------------------------------------------------
# Loader errors
# --------------------------------------------------------------------------------------------------


def test_missing_snapshot(tmp_path):
    with pytest.raises(SnapshotError, match="nox -s engine-snapshot"):
        load_snapshot(path=tmp_path / "sglang-9.9.9.json")


def test_unknown_keys_are_rejected():
    data = json.loads(snapshot_path("0.5.23").read_text(encoding="utf-8"))
    data["parsers"]["launch_router"]["options"][0]["surprise"] = 1
    with pytest.raises(SnapshotError, match="a key the schema does not have") as refused:
        parse_snapshot(data)
    assert "surprise" not in str(refused.value)  # the file's own keys and values are never echoed
    data = {"schema_version": 99}
    with pytest.raises(SnapshotError, match="schema_version 99"):
        parse_snapshot(data)


def test_models_are_read_only(snap):
    with pytest.raises(Exception, match="frozen"):
        snap.sglang_version = "0.0.0"


# --------------------------------------------------------------------------------------------------
# dump.py, on small parsers (no engine needed)
# --------------------------------------------------------------------------------------------------


def _toy_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toy")
    parser.add_argument("--size", "-s", type=int, default=4, help="Size  (default:\n %(default)s).")
    parser.add_argument("--mode", choices={"b", "a", "c"}, default="a", help="Mode, one of %(choices)s.")
    parser.add_argument("--flag", action=argparse.BooleanOptionalAction, default=True, help="Flag.")
    parser.add_argument("--hidden", help=argparse.SUPPRESS)
    parser.add_argument("--old", action="store_true", help="(Deprecated: use --new=1) old thing.")
    parser.add_argument("--rate", type=float, default=float("inf"), help="Rate.")
    parser.add_argument("--fn", type=dump.norm_ws, default=dump.norm_ws, help="Callable default.")
    parser.add_argument("--mention", action="store_true", help="Replaces the deprecated --old.")
    return parser


def test_describe_parser_records_argparse_faithfully():
    described = dump.describe_parser(_toy_parser())
    options = {o["dest"]: o for o in described["options"]}
    assert [o["dest"] for o in described["options"]][:3] == ["help", "size", "mode"]  # parser order
    size = options["size"]
    assert size["option_strings"] == ["--size", "-s"] and size["type"] == "int" and size["default"] == 4
    assert size["help"] == "Size (default: 4)."  # %(default)s expanded, whitespace normalised
    assert options["mode"]["choices"] == ["a", "b", "c"] and options["mode"]["choices_sorted"]
    assert options["mode"]["help"] == "Mode, one of a, b, c."  # a set's %(choices)s, expanded sorted
    assert options["flag"]["action"] == "BooleanOptionalAction"
    assert options["flag"]["option_strings"] == ["--flag", "--no-flag"]
    assert options["hidden"]["help_suppressed"] and options["hidden"]["help"] is None
    assert options["old"]["deprecated"] and options["old"]["replacement"] == "--new=1"
    assert not options["mention"]["deprecated"]
    assert options["rate"]["default"] == {"repr": "inf"}
    assert options["fn"]["type"] == "norm_ws"
    assert options["fn"]["default"] == {"repr": "<function handbook.engine.dump.norm_ws>"}
    assert options["help"]["action"] == "help"


def test_json_safe():
    assert dump.json_safe([1, "a", None, True, 2.5]) == [1, "a", None, True, 2.5]
    assert dump.json_safe({"k": [1]}) == {"k": [1]}
    assert dump.json_safe((1, 2)) == {"repr": "(1, 2)"}
    assert dump.json_safe({3: 4}) == {"repr": "{3: 4}"}
    assert dump.json_safe(float("nan")) == {"repr": "nan"}
    assert "0x" not in dump.json_safe(object())["repr"]


def test_capture_parser_stops_before_parsing():
    ran = []

    def cli_main():
        parser = argparse.ArgumentParser(description="inline")
        parser.add_argument("--x", type=int, default=1)
        parser.parse_args()
        ran.append("after parse")

    original = argparse.ArgumentParser.parse_args
    parser = dump.capture_parser(cli_main, argv0="/somewhere/serving.py")
    assert parser.prog == "serving.py" and parser.description == "inline"
    assert ran == []  # nothing after parse_args ran
    assert argparse.ArgumentParser.parse_args is original  # the patch is undone
    assert parser.parse_args(["--x", "3"]).x == 3


def test_dump_does_not_import_handbook():
    source = (REPO_ROOT / "handbook" / "engine" / "dump.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+handbook", source, re.MULTILINE)
