"""KB texts that say what the engine does name the rule that holds its verdict; a listed exception needs a
reason and fails once it is no longer needed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from handbook.engine import load_snapshot
from handbook.kb.loader import load_kb
from handbook.validation.wording import engine_wording_counts, engine_wording_problems, flagged

pytestmark = pytest.mark.slow  # out of nox -s unit: each test validates a copied KB

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot()


def kb_copy(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(REPO / "kb", root)
    return root


def edit(path: Path, old: str, new: str) -> int:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1


def test_every_flagged_text_is_held_by_a_rule_or_excepted(snapshot):
    kb = load_kb()
    assert engine_wording_problems(kb, snapshot) == []
    counts = engine_wording_counts(kb, snapshot)
    assert counts.flagged == counts.linked + counts.excepted
    assert counts.linked > counts.excepted > 0


def test_a_claim_without_a_rule_fails_at_its_line(tmp_path, snapshot):
    root = kb_copy(tmp_path)
    line = edit(
        root / "parameters" / "scheduling.yaml",
        "      zh: 单次 prefill 的最大 token 数；",
        "      zh: 超过上限时引擎会拒绝请求；单次 prefill 的最大 token 数；",
    )
    (problem,) = [str(p) for p in engine_wording_problems(load_kb(root), snapshot)]
    assert problem.startswith(f"kb/parameters/scheduling.yaml:{line}: parameters[2].meaning.zh: got '拒绝'")
    assert "rules: [id]" in problem and "wording_exceptions" in problem


def test_a_rule_reference_holds_it(tmp_path, snapshot):
    root = kb_copy(tmp_path)
    path = root / "parameters" / "scheduling.yaml"
    edit(
        path,
        "      zh: 单次 prefill 的最大 token 数；",
        "      zh: 开注意力 DP 时引擎会改写它；单次 prefill 的最大 token 数；",
    )
    edit(
        path,
        "  - flag: --chunked-prefill-size\n",
        "  - flag: --chunked-prefill-size\n    rules: [attn-dp-divides-chunked-prefill]\n",
    )
    assert engine_wording_problems(load_kb(root), snapshot) == []


def test_an_exception_holds_it_and_fails_once_unnecessary(tmp_path, snapshot):
    root = kb_copy(tmp_path)
    rules = root / "rules.yaml"
    # the exception's text no longer says it: the exception is reported, not silently kept
    edit(root / "hardware" / "ascend.yaml", "因此无法确定架构", "因此架构未知")
    problems = [str(p) for p in engine_wording_problems(load_kb(root), snapshot)]
    assert len(problems) == 1 and "got an unnecessary exception" in problems[0]
    assert problems[0].startswith("kb/rules.yaml:")
    assert "hardware/ascend.yaml unknown.architecture" in problems[0]
    # and with the exception removed, all is well again
    edit(
        rules,
        "  - check: engine-behaviour\n    file: hardware/ascend.yaml\n",
        "  - check: handbook\n    file: hardware/ascend.yaml\n",
    )
    problems = [str(p) for p in engine_wording_problems(load_kb(root), snapshot)]
    assert problems == []


def test_flag_names_quotations_and_snapshot_deprecations_are_not_claims(snapshot):
    kb = load_kb()
    paths = {(f.file, f.full_path): f for f in flagged(kb, snapshot=snapshot)}
    # --disable-radix-cache as a name states nothing; "关闭" in its summary is held by its rule
    assert paths[("parameters/cache.yaml", "parameters[0].summary.zh")].linked
    # the startup tip quotes the source's claim ⟦首次请求会触发捕获⟧: not read
    assert ("tuning.yaml", "startup[3].explanation.zh") not in paths
    # a deprecation of a flag the snapshot deprecates is the snapshot's to hold
    assert paths[("parameters/kernels.yaml", "parameters[1].summary.en")].linked


def test_the_source_is_the_source_not_the_handbook(tmp_path):
    from handbook.validation.wording import handbook_wording_problems

    assert handbook_wording_problems(load_kb()) == []
    root = kb_copy(tmp_path)
    line = edit(root / "hardware" / "h100.yaml", "显存取自源稿第 06 章", "显存取自手册第 06 章")
    (problem,) = [str(p) for p in handbook_wording_problems(load_kb(root))]
    assert problem.startswith(
        f"kb/hardware/h100.yaml:{line}: notes.zh: got '手册', expected 源稿 / the source"
    )


def test_advice_says_whose_it_is(snapshot):
    from handbook.checker import check_command

    kb = load_kb()
    source = "python -m sglang.launch_server --model-path m --trust-remote-code"  # rule source: the source
    site = "python -m sglang_router.launch_router --pd-disaggregation"  # rule source: the router wheel
    (advice,) = [f for f in check_command(source, snapshot, kb) if f.rule == "trust-remote-code"]
    # what the engine does first, then whose advice it is: not checking is never read as the advice
    assert "sglang 0.5.23 does not check this; the advice is the source's, adopted here" in advice.message.en
    assert "sglang 0.5.23 不检查这一点；这条建议出自源稿，本站沿用" in advice.message.zh
    (router,) = [f for f in check_command(site, snapshot, kb) if f.rule == "router-public-host"]
    assert "sglang 0.5.23 does not check this; the advice is this site's" in router.message.en
