"""The checker over the whole site: every KB recipe is error-free, recipe and KB problems are validation
problems at file:line, the docs' shell blocks and the rules' links are checked, and pages show each
command's status."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import pytest

from handbook.checker import check_recipe
from handbook.engine import load_snapshot
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.engine import default_verdict, recipe_findings
from handbook.render.recipes import check_block
from handbook.validation.pages import docs_command_problems, rule_link_problems, shell_blocks
from handbook.validation.registry import run_checks

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot()


def test_every_kb_recipe_is_free_of_errors(kb, snapshot):
    errors = {
        rid: [f.format("en") for f in check_recipe(recipe, snapshot, kb) if f.severity == "error"]
        for rid, recipe in kb.recipes.items()
    }
    assert {rid: e for rid, e in errors.items() if e} == {}


def test_corrected_recipes_record_what_the_source_said(kb):
    stated = {(rid, fix.stated) for rid, r in kb.recipes.items() for fix in r.corrections}
    assert {
        ("bench-serving-random", "python -m sglang.bench_serving"),
        ("bench-serving-random", "--random-input 8000"),
        ("gpt-oss-120b-tp4", "--tp 4"),
        ("qwen3.5-397b-fp8-b200-b300-tp4", "--enable-flashinfer-allreduce-fusion"),
        ("qwen3.8-flash-next-fp8-b300-tep4", "--dataset-name speed_bench"),
    } <= stated


def mini_copy(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    return root


def test_a_recipe_error_is_a_validation_problem_at_its_line(tmp_path):
    root = mini_copy(tmp_path)
    recipe = root / "recipes" / "dense-a-tp2.yaml"
    recipe.write_text(recipe.read_text().replace("--tp 2", "--tp two"), encoding="utf-8")
    assert [str(p) for p in run_checks(load_kb(root))] == [
        "kb/recipes/dense-a-tp2.yaml:10: flags[1]: value.type: --tp got two, expected an integer",
    ]


def test_aliases_must_be_real_spellings(tmp_path):
    root = mini_copy(tmp_path)
    params = root / "parameters" / "memory.yaml"
    params.write_text(
        params.read_text().replace("abbreviations: [--tp]", "aliases: [--tp]"), encoding="utf-8"
    )
    assert [str(p) for p in run_checks(load_kb(root))] == [
        "kb/parameters/memory.yaml:5: parameters[0].aliases[0]: got '--tp', expected a spelling of --tp-size in "
        "sglang 0.5.23 (--tp-size, --tensor-parallel-size); argparse only accepts it as an abbreviation of "
        "--tp-size: list it under abbreviations",
    ]


def test_kb_variables_against_the_registry(tmp_path):
    root = mini_copy(tmp_path)
    env = root / "env_vars.yaml"
    env.write_text(env.read_text().replace('example: "1"', "example: maybe"), encoding="utf-8")
    assert [str(p) for p in run_checks(load_kb(root))] == [
        "kb/env_vars.yaml:2: env_vars[0].example: got 'maybe', expected true/1/yes/y or false/0/no/n "
        "(SGLANG_USE_AITER is bool)",
    ]


PAGE = """# T { #t }

Some prose.

```bash
# a comment
python -m sglang.launch_server --model-path m \\
  --tp-size two
```

``` { .bash .notest }
--enable-metrics=true
```

```text
--not-checked
```
"""


def test_shell_blocks_of_a_page():
    assert shell_blocks(PAGE) == [
        (6, "# a comment\npython -m sglang.launch_server --model-path m \\\n  --tp-size two"),
        (12, "--enable-metrics=true"),
    ]


def test_docs_errors_are_located_at_the_page_line(tmp_path, kb, snapshot):
    (tmp_path / "zh").mkdir()
    (tmp_path / "zh" / "x.md").write_text(PAGE, encoding="utf-8")
    assert [str(p) for p in docs_command_problems(tmp_path, ("zh",), snapshot, kb)] == [
        "docs/zh/x.md:8: error[value.type]: --tp-size got two, expected an integer",
        "docs/zh/x.md:12: error[flag.takes-no-value]: --enable-metrics is a switch and takes no value; argparse "
        "fails with \"ignored explicit argument 'true'\"",
    ]


def test_rule_links_must_reach_an_anchor(tmp_path):
    kb = load_kb(FIXTURES / "kb-mini")
    for lang in ("zh", "en"):
        (tmp_path / lang).mkdir()
    (tmp_path / "zh" / "08-production.md").write_text("# 08 { #production }\n\n## 8.4 { #security }\n")
    (tmp_path / "en" / "08-production.md").write_text("# 08 { #production }\n\n## 8.4 { #safety }\n")
    assert [str(p) for p in rule_link_problems(tmp_path, ("zh", "en"), kb)] == [
        "tests/fixtures/kb-mini/rules.yaml:6: rules[0].explained_at: got '#security', expected an anchor that "
        "docs/en/08-production.md defines",
    ]


def test_a_parameter_links_the_sections_that_explain_it(tmp_path):
    from handbook.render.params import parameters

    root = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    memory = root / "parameters" / "memory.yaml"
    memory.write_text(
        memory.read_text().replace(
            "    related: [--tp-size]\n", "    related: [--tp-size]\n    explained_in: [02-memory.md#check]\n"
        )
    )
    kb = load_kb(root)
    docs = tmp_path / "docs"
    for lang, title, section in (("zh", "02 显存", "怎么判断"), ("en", "02 Memory", "How to tell")):
        (docs / lang).mkdir(parents=True)
        (docs / lang / "02-memory.md").write_text(f"# {title} {{ #memory }}\n\n## {section} {{ #check }}\n")
        (docs / lang / "08-production.md").write_text("# 08 { #production }\n\n## 8.4 { #security }\n")
    assert rule_link_problems(docs, ("zh", "en"), kb) == []
    ctx = RenderContext(kb, "en", "04-parameters.md", docs_dir=docs)
    assert 'More in <a href="../02-memory/#check">02 · How to tell</a>' in parameters(ctx, "memory")
    (docs / "en" / "02-memory.md").write_text("# 02 Memory { #memory }\n")
    assert [str(p) for p in rule_link_problems(docs, ("zh", "en"), kb)] == [
        "kb/parameters/memory.yaml:17: parameters[1].explained_in[0]: got '#check', expected an anchor that "
        "docs/en/02-memory.md defines",
    ]


def test_one_status_line_under_each_command_in_both_languages(kb, snapshot):
    zh = RenderContext(kb, "zh", "06-models.md", snapshot=snapshot, command_status=True)
    en = RenderContext(kb, "en", "06-models.md", snapshot=snapshot, command_status=True)
    fragment = kb.recipes["deepseek-v4-pro-spec-mtp-eagle"]  # flags only: nothing replayed, nothing found
    assert check_block(zh, fragment) == (
        '<p class="cmd-status ok"><a href="../engine-drift/">已对照 sglang 0.5.23 检查</a></p>'
    )
    assert check_block(en, fragment) == (
        '<p class="cmd-status ok"><a href="../engine-drift/">Checked against sglang 0.5.23</a></p>'
    )
    router = check_block(en, kb.recipes["pd-router-local"])
    summary, folded = router.split("</summary>")
    assert summary == (  # security advice that predicts no failure: a note, the command still checks clean
        '<details class="cmd-check ok"><summary><span class="cmd-mark"></span>'
        "1 note (checked against sglang 0.5.23)"
    )
    assert folded.startswith(
        '\n<p class="cmd-finding note"><strong>Note</strong>&#58; The router listens on '
    )
    assert 'href="../08-production/#security">why</a></p>' in folded
    assert check_block(en, kb.recipes["metrics-curl"]) == ""  # curl: nothing for the engine's parsers


def test_the_page_leaves_the_checkers_own_limits_to_the_cli(kb, snapshot):
    en = RenderContext(kb, "en", "06-models.md", snapshot=snapshot, command_status=True)
    router = kb.recipes["deepseek-v4-pro-mi355x-pd-router"]  # <prefill-ip>: a placeholder the CLI notes
    assert "value.placeholder" in {f.code for f in check_recipe(router, snapshot, kb)}
    assert [f.code for f in recipe_findings(en, router)] == ["rule.router-public-host"]
    assert "not type-checked" not in check_block(en, router)
    # a variable outside SGLang's registry is said by who reads it, not by what the checker skipped
    amd = html.unescape(check_block(en, kb.recipes["qwen3.5-397b-fp8-amd-tp4"]))
    assert "<strong>Note</strong>: AITER_FLYDSL_FORCE: reader unknown (SGLang 0.5.23 does not read it)" in amd
    assert "value not checked" not in amd and "1 note (checked against sglang 0.5.23)" in amd


def test_stated_defaults_against_the_parser(kb, snapshot):
    def verdict(flag, program="launch_server"):
        return default_verdict(kb.parameter(flag, program), snapshot.option(program, flag))

    assert verdict("--tp-size") == "agrees"  # 1 and 1
    assert verdict("--chunked-prefill-size") == "resolved"  # 8192 stated, None in the parser
    assert verdict("--mamba-radix-cache-strategy") == "differs"  # no_buffer stated, auto in the parser
    assert verdict("--model-path") == "agrees"  # required in both
    assert verdict("--watchdog-timeout") == "unstated"
    # the source's 1024 is not what the engine resolves by default (kb/rules.yaml resolved_defaults)
    resolved = {d.flag: d for d in kb.resolved_defaults}
    option = snapshot.option("launch_server", "--max-running-requests")
    parameter = kb.parameter("--max-running-requests")
    assert default_verdict(parameter, option) == "resolved"
    assert default_verdict(parameter, option, resolved["--max-running-requests"]) == "differs"
