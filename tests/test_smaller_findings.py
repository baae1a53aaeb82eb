"""Attributions and facts the audit of issue 12 found unsourced: variables the engine never reads, device
GPU counts no source gives, and Qwen3.8-Flash-Next's QSA attention."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import handbook.render.renderers  # noqa: F401 - registers every kb: renderer
from handbook.engine import load_snapshot
from handbook.kb.loader import load_kb
from handbook.kb.schema import Hardware
from handbook.render.context import RenderContext
from handbook.render.markers import render_page

KB = load_kb()


def test_variables_the_engine_does_not_read_say_so():
    snapshot = load_snapshot()
    assert KB.env_vars["VLLM_ROCM_USE_AITER"].read_by == "none"
    assert KB.env_vars["AITER_FLYDSL_FORCE"].read_by == "unknown"
    for name in ("VLLM_ROCM_USE_AITER", "AITER_FLYDSL_FORCE"):
        assert snapshot.environ.get(name) is None  # not in 0.5.23's registry either
    out = render_page("<!-- kb:env-vars -->\n", RenderContext(KB, "en", "09-appendix.md"), "x")
    assert "none (not read by SGLang 0.5.23)" in out and "<td>unknown</td>" in out


def test_a_device_gpu_count_is_known_or_explained():
    assert {h.id for h in KB.hardware.values() if h.gpus_per_device is None} == {"ascend"}
    for hid in ("ascend",):
        assert KB.hardware[hid].unknown["gpus_per_device"].en
    base = {
        "id": "x",
        "name": "X",
        "vendor": "nvidia",
        "form": "superchip",
        "architecture": "A",
        "memory_gb": 1,
    }
    with pytest.raises(ValidationError, match=r"unknown\.gpus_per_device"):
        Hardware.model_validate({**base, "gpus_per_device": None, "source": "handbook"})


def test_qwen38_flash_next_attention_is_qsa_and_the_kv_table_says_what_it_leaves_out():
    model = KB.models["qwen3.8-flash-next"]
    assert "qsa" in model.attention.families
    assert any("indexer_compress_ratio 4" in note.en and "--page-size 64" in note.en for note in model.notes)
    out = render_page("<!-- kb:kv-table -->\n", RenderContext(KB, "en", "02-memory.md"), "x")
    (row,) = [r for r in out.split("<tr") if 'id="kv-qwen3.8-flash-next"' in r]
    assert "on top, the QSA indexer keeps a compressed index key per token" in row
