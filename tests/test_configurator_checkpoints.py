"""Checkpoints know their hardware: a precision's accelerators, each with a source, against the engine's
quantization refusals and the KB's own commands (handbook.validation.checkpoints)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from handbook.calc.checkpoints import listed_hardware
from handbook.core.paths import KB_ROOT
from handbook.kb.loader import KBInvalid, load_kb
from handbook.validation.checkpoints import checkpoint_problems


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(KB_ROOT, root)
    return root


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_kb_claims_no_precision_where_the_engine_refuses_it():
    kb = load_kb(KB_ROOT)
    assert checkpoint_problems(kb, "0.5.23") == []


def test_a_quark_checkpoint_claimed_on_an_nvidia_gpu_is_refused_with_the_engines_words(tmp_path):
    root = _copy(tmp_path)
    model = root / "models" / "glm-5.3.yaml"
    _replace(model, "      - hardware: [mi355x]", "      - hardware: [mi355x, h200]")
    kb = load_kb(root)
    problems = checkpoint_problems(kb, "0.5.23")
    assert [(Path(p.file).name, p.path, p.message) for p in problems] == [
        (
            "glm-5.3.yaml",
            "precisions[3].runs_on[0].hardware[1]",
            "got h200, expected an accelerator SGLang 0.5.23 loads Quark MXFP4 (AMD's amd/*-MXFP4 checkpoints) "
            "on: it raises at sglang/srt/layers/quantization/quark/schemes/quark_w4a4_mxfp4_moe.py:1062 "
            "(“Quark MXFP4 MoE currently requires the AITER runner; got {moe_runner_backend.value!r}.”)",
        )
    ]
    line = model.read_text(encoding="utf-8").splitlines()[problems[0].line - 1]
    assert "hardware: [mi355x, h200]" in line


def test_a_command_on_an_accelerator_its_precision_does_not_list_is_a_problem(tmp_path):
    root = _copy(tmp_path)
    _replace(root / "recipes" / "minimax-m3-bf16-h200-tp8.yaml", "hardware: [h200]", "hardware: [h200, b200]")
    problems = checkpoint_problems(load_kb(root), "0.5.23")
    assert [(Path(p.file).name, p.path, p.message) for p in problems] == [
        (
            "minimax-m3-bf16-h200-tp8.yaml",
            "hardware[1]",
            "got b200, expected an accelerator that models/minimax-m3.yaml lists for bf16 (runs_on: h200), "
            "so that the configurator offers this command",
        )
    ]


def test_a_source_names_a_file_at_a_commit_or_no_file_at_all(tmp_path):
    root = _copy(tmp_path)
    source = root / "sources" / "sglang-cookbook.yaml"
    _replace(source, "checked:", "repository: sgl-project/sgl-cookbook\nchecked:")
    with pytest.raises(KBInvalid) as caught:
        load_kb(root)
    [problem] = caught.value.problems
    assert Path(problem.file).name == "sglang-cookbook.yaml"
    assert problem.path == "file"
    assert problem.message == "got repository alone, expected repository, file and commit"


def test_each_listed_accelerator_comes_with_its_source_and_where_it_says_so():
    kb = load_kb(KB_ROOT)
    qwen = kb.models["qwen3.8-flash-next"]
    fp8 = next(p for p in qwen.precisions if p.dtype == "fp8")
    assert listed_hardware(fp8) == ["b300", "h200", "b200", "gb300", "mi350x", "mi355x"]
    assert all(entry.source in kb.sources and entry.where.en for entry in fp8.runs_on)
    # what no source names is not listed: no source of this KB names a GLM-5.3 W4A8 checkpoint
    glm = kb.models["glm-5.3"]
    w4a8 = next(p for p in glm.precisions if p.dtype == "w4a8")
    assert (w4a8.checkpoint, listed_hardware(w4a8)) == (None, [])
    # a checkpoint the cookbook names, with the file and commit a reader opens
    fp8 = next(p for p in glm.precisions if p.dtype == "fp8")
    source = kb.sources[fp8.checkpoint_source]
    assert (fp8.checkpoint, source.repository, source.file, source.commit) == (
        "zai-org/GLM-5.3",
        "sgl-project/sglang",
        "docs/src/snippets/configs/zai-org/glm-5.3.jsx",
        "03d5035ae36860d9445bdf2ce42804640c76e567",
    )


def test_a_vendor_command_whose_precision_lists_none_of_that_vendors_accelerators_is_a_problem(tmp_path):
    root = _copy(tmp_path)
    _replace(root / "recipes" / "glm-5.3-nvidia-tp8-ep8.yaml", "vendor: nvidia", "vendor: intel")
    problems = checkpoint_problems(load_kb(root), "0.5.23")
    assert [(Path(p.file).name, p.path, p.message) for p in problems] == [
        (
            "glm-5.3-nvidia-tp8-ep8.yaml",
            "vendor",
            "got intel, expected a vendor of an accelerator that models/glm-5.3.yaml lists for fp8 "
            "(runs_on: h200, b200, b300, gb300, mi300x, mi325x, mi355x)",
        )
    ]
