"""The checker across the stored releases: rules judge only where their engine behaviour holds and name the
release checked; entry-point modules are what each release's wheel ships; ``sglang serve`` reads its argv
as the engine does; the compatibility matrix follows."""

from __future__ import annotations

import pytest

from handbook.checker import check_command
from handbook.checker.check import established
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

KB = load_kb()
# The official DeepSeek multi-node PD example (SGLang's docs, advanced_features/pd_disaggregation.md)
OFFICIAL_PREFILL = (
    "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 --disaggregation-ib-device mlx5_0 "
    "--disaggregation-mode prefill --host 10.0.0.1 --port 30000 --trust-remote-code --dist-init-addr 10.0.0.1:5000 "
    "--nnodes 2 --node-rank 0 --tp-size 16 --dp-size 8 --enable-dp-attention --moe-a2a-backend deepep "
    "--mem-fraction-static 0.8"
)


def check(text: str, version: str) -> list[tuple[str, str, str]]:
    return [(f.severity, f.code, f.message.en) for f in check_command(text, load_snapshot(version), KB)]


def test_a_rule_judges_only_the_releases_it_holds_in():
    rule = KB.rules["dp-replicas-single-node"]
    assert (rule.releases.first, rule.releases.last) == ("0.5.22", None)
    assert [established(rule, v, KB) for v in ("0.5.10", "0.5.21", "0.5.22", "0.5.23")] == [
        False, False, True, True
    ]  # fmt: skip


def test_the_official_pd_command_is_not_refused_in_a_release_that_accepts_it():
    older = check(OFFICIAL_PREFILL, "0.5.10")
    assert [f for f in older if f[0] in ("error", "warning")] == []
    # 0.5.10 reads --dp-size 8 --enable-dp-attention as 8 attention-DP groups, not 8 replicas
    assert {code for _, code, _ in older} == {"rule.trust-remote-code", "rule.public-host-without-api-key"}
    assert "refuses to start" not in " ".join(message for _, _, message in older)


def test_a_rule_not_established_for_the_release_checked_is_a_note():
    replicas = "python -m sglang.launch_server --model-path m --tp-size 2 --dp-size 2 --nnodes 2"
    (note,) = [f for f in check(replicas, "0.5.10") if f[1] == "rule.dp-replicas-single-node"]
    assert note[0] == "note"
    assert note[2].endswith(
        "What the engine does about it was established for sglang 0.5.22–0.5.23, not 0.5.10: not judged here."
    )
    (error,) = [f for f in check(replicas, "0.5.23") if f[1] == "rule.dp-replicas-single-node"]
    assert error[0] == "error" and "sglang 0.5.23 refuses to start" in error[2]


def test_a_rule_that_holds_says_the_release_checked():
    text = "python -m sglang.launch_server --model-path m --chunked-prefill-size 1000 --page-size 16"
    for version in ("0.5.10", "0.5.23"):
        (finding,) = [f for f in check(text, version) if f[1] == "rule.chunked-prefill-page-multiple"]
        assert finding[0] == "error"
        assert f"sglang {version} refuses to start: AssertionError" in finding[2]
        # the place in the wheel is the pinned release's, and another release's check says so
        assert finding[2].endswith("(where 0.5.23 has it).") == (version != "0.5.23")


@pytest.mark.parametrize(
    ("text", "version", "expected"),
    [
        ("python -m sglang.benchmark.serving --backend sglang", "0.5.10",
         ("error", "module.absent", "python -m sglang.benchmark.serving is not in sglang 0.5.10 (of the stored "
          "releases, 0.5.15–0.5.23 ship it), so Python stops with No module named sglang.benchmark.serving; run "
          "python -m sglang.bench_serving")),
        ("python -m sglang.bench_one_batch --model-path m", "0.5.23",
         ("error", "module.absent", "python -m sglang.bench_one_batch is not in sglang 0.5.23 (of the stored "
          "releases, 0.5.10–0.5.20 ship it), so Python stops with No module named sglang.bench_one_batch; run "
          "python -m sglang.benchmark.one_batch")),
        ("python -m sglang.bench_one_batch --model-path m", "0.5.20",
         ("warning", "module.unchecked", "python -m sglang.bench_one_batch exists in sglang 0.5.20, but the engine "
          "snapshot holds no parser of it: its flags were not checked; it is a deprecated alias of python -m "
          "sglang.benchmark.one_batch")),
        ("python -m sglang_router.launch_server --model-path m", "0.5.23",
         ("warning", "module.unchecked", "python -m sglang_router.launch_server exists in sglang 0.5.23, but the "
          "engine snapshot holds no parser of it: its flags were not checked")),
    ],
)  # fmt: skip
def test_modules_are_what_each_release_ships(text, version, expected):
    assert [f for f in check(text, version) if f[1].startswith("module.")] == [expected]


def test_sglang_serve_reads_its_argv_as_the_engine_does():
    positional = "sglang serve Qwen/Qwen3-8B --tp-size 2"
    assert check(positional, "0.5.23") == []  # a positional model path is --model-path (0.5.16 on)
    assert "args.unexpected" in {code for _, code, _ in check(positional, "0.5.10")}
    assert check("sglang serve --model-type llm --model-path m", "0.5.23") == []
    (bad,) = check("sglang serve --model-type bogus --model-path m", "0.5.23")
    assert bad[:2] == ("error", "serve.model-type")
    diffusion = check("sglang serve --model-path Qwen/Qwen-Image --num-gpus 2 --ulysses-degree 2", "0.5.23")
    assert diffusion == [
        ("warning", "serve.diffusion", "sglang serve sends Qwen/Qwen-Image to the diffusion server "
         "(sglang.multimodal_gen) (a model the diffusion registry of sglang 0.5.23 names); its flags are read by "
         "another parser, which the checker does not hold, so they were not checked"),
    ]  # fmt: skip
    assert [
        c for _, c, _ in check("sglang serve --model-type diffusion --model-path x/y --num-gpus 2", "0.5.23")
    ] == ["serve.diffusion"]


def test_the_compatibility_matrix_starts_a_module_where_its_wheel_has_it():
    recipe = KB.recipes["bench-serving-random"]  # python -m sglang.benchmark.serving
    from handbook.checker import check_recipe

    cells = {v: check_recipe(recipe, load_snapshot(v), KB) for v in ("0.5.14", "0.5.15")}
    assert [f.code for f in cells["0.5.14"] if f.severity == "error"] == ["module.absent"]
    assert [f for f in cells["0.5.15"] if f.severity == "error"] == []
