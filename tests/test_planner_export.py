"""The planner's KB export and its markup: shape, determinism, one file for both languages, the page's wording."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

import handbook.render.renderers  # noqa: F401 - registers the renderers
from handbook.calc import memory
from handbook.calc.planner_data import (
    PLANNER_DATA_PATH,
    SCHEMA_VERSION,
    planner_data,
    planner_json,
    write_planner_data,
)
from handbook.core.formatting import json_safe
from handbook.core.messages import CATALOGUE as STRINGS
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.markers import render_page
from handbook.render.planner import FIGURE_KEYS
from handbook.site.state import load_site

FIXTURES = Path(__file__).parent / "fixtures"

KB = load_kb()


def test_export_shape():
    data = json.loads(planner_json(KB))
    assert set(data) == {
        "schema_version",
        "engine",
        "defaults",
        "engine_defaults",
        "tp_choices",
        "tables",
        "dtypes",
        "hardware",
        "models",
    }
    assert data["schema_version"] == SCHEMA_VERSION == 3
    assert data["engine"] == {"name": "SGLang", "version": "0.5.23"}
    assert data["defaults"] == {
        # the first model and accelerator (KB order) whose automatic TP leaves room for a full request
        # with no figure an upper bound: DeepSeek-V3 (its weights by formula) on B200 at TP 16
        "model": "deepseek-v3",
        "hardware": "b200",
        "kv_dtype": "bf16",
        "context_when_unpublished": 8192,
        # the shortest published native context (gpt-oss-120b's and Llama-3.1-8B's): no model opens above it
        "context_common": 131072,
    }
    # the engine's own defaults, from its snapshot (tests/test_planner_engine_defaults.py ties each)
    assert data["engine_defaults"] == {
        "swa_full_tokens_ratio": 0.8,
        "mamba_full_memory_ratio": 0.9,
        "vlm_cache_mib": 100,
        "mamba_conv_dtype": "bfloat16",
        "use_aiter": False,
        "aiter_honors_explicit_fraction": False,
        "dsv4_kv_layout": "v4",
        "dsv4_compress_state_dtype": "float32",
    }
    assert data["tp_choices"] == [1, 2, 4, 8, 16, 32, 64]
    assert [d["id"] for d in data["dtypes"]] == list(KB.dtypes)
    assert data["dtypes"][0] == {
        "id": "bf16",
        "name": "BF16",
        "bits": 16.0,
        "weights": True,
        "kv": True,
        "engine_kv_value": "bf16",
    }
    hardware = {h["id"]: h for h in data["hardware"]}
    assert hardware["h200"] == {
        "id": "h200",
        "name": "NVIDIA H200",
        "vendor": "nvidia",
        "architecture": "Hopper",
        "memory_gb": 141,
        "memory_mib_reported": 143_771,
        "gpus_per_node": 8,
    }
    assert hardware["ascend"]["memory_gb"] is None and hardware["b300"]["memory_mib_reported"] is None
    models = {m["id"]: m for m in data["models"]}
    assert list(models) == list(KB.models)
    oss = models["gpt-oss-120b"]
    assert {key: value for key, value in oss["config"].items() if value is not None} == {
        "architectures": ["GptOssForCausalLM"],
        "num_hidden_layers": 36,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "hidden_size": 2880,
        "intermediate_size": 2880,
        "vocab_size": 201088,
        "tie_word_embeddings": False,
        "sliding_window": 128,
        "layer_types_count": {"full_attention": 18, "sliding_attention": 18},
    }
    assert {key: value for key, value in oss.items() if key != "config"} == {
        "id": "gpt-oss-120b",
        "name": "gpt-oss-120b",
        "kv_formula": "gqa",
        "params_total_b": 117,
        # the architecture formula, split by its quantization config (handbook.calc.params)
        "param_count": {
            "family": "gpt-oss",
            "total": 116_829_156_672,
            "formula": (
                "2 × 201088 × 2880 + 36 × (2880 × 64 × 64 + 2 × 2880 × 8 × 64 + 64 × 64 × 2880 + (64"
                " + 2 × 8) × 64 + 2880 + 64 + 128 × 2880 + 128 + 128 × 3 × 2880 × 2880 + 128 × (2 × 2880"
                " + 2880) + 2 × 2880) + 2880"
            ),
            "quantized": 36 * 128 * 3 * 2880 * 2880,
            "quantized_formula": "36 × 128 × 3 × 2880 × 2880",
        },
        "experts": {"routed": 128, "shared": None},
        "moe": True,
        # the engine's architecture rules, decided in Python: gpt-oss keeps a sliding-window pool
        "multimodal": False,
        "hybrid_swa": True,
        "vision_shape": None,
        "state_dtype": None,
        "dsa_indexer_layers": None,  # no DSA indexer
        "checkpoint_bytes": {"mxfp4": None},
        # MXFP4 experts + BF16 rest: the browser reads the figure as it is
        "mixed_weights": {
            "mxfp4": {
                "total_bytes": 114_661_785_600 * 4.25 / 8 + 2_167_371_072 * 2,
                "formula": "114,661,785,600 × 4.25/8 + 2,167,371,072 × 2",
                "params": 116_829_156_672,
            }
        },
        "context_native": 131072,
        "weights_dtypes": ["mxfp4"],
        "model_paths": {"mxfp4": {"path": "openai/gpt-oss-120b", "basis": "checkpoint"}},
        "rule_flags": [],
    }
    assert models["qwen3.8-flash-next"]["config"]["indexer_compress_ratio"] == 4
    # DeepSeek-V4-Pro's compression ratio per layer, as its config.json lists them (61 layers + 1 MTP)
    ratios = models["deepseek-v4-pro"]["config"]["compress_ratios"]
    assert ratios == [128, 128, *[4, 128] * 29, 4, 0]
    assert models["qwen3.5-397b-a17b"]["rule_flags"] == [
        {"flag": "--max-running-requests", "value": "64", "when": "single-gpu"}
    ]
    # models without published precisions are offered every weights dtype
    assert models["llama-3.3-70b"]["weights_dtypes"] == [
        "bf16",
        "fp8",
        "fp4",
        "nvfp4",
        "mxfp4",
        "mxfp8",
        "w4a8",
    ]


def test_export_holds_no_wording_of_either_language():
    def strings(value):
        if isinstance(value, dict):
            for key, item in value.items():
                yield key
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)
        elif isinstance(value, str):
            yield value

    assert not any(re.search(r"[\u4e00-\u9fff]", text) for text in strings(planner_data(KB)))


def test_export_is_canonical_and_deterministic(tmp_path):
    text = planner_json(KB)
    assert text == planner_json(load_kb())  # a fresh load gives the same bytes
    assert text.endswith("}\n") and "\r" not in text
    # sorted keys, two-space indent, UTF-8 as is; "<", ">" and "&" as \u escapes (the placeholder "<model>")
    canonical = json.dumps(json.loads(text), ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    assert json_safe(canonical) == text and "\\u003cmodel\\u003e" in text
    (tmp_path / "one").mkdir()  # a site root exists before anything is written into it
    (tmp_path / "two").mkdir()
    first = write_planner_data(KB, tmp_path / "one")
    second = write_planner_data(KB, tmp_path / "two")
    assert first == tmp_path / "one" / "assets" / "planner-data.json"
    assert first.read_bytes() == second.read_bytes() == text.encode("utf-8")


def test_the_site_writes_the_same_file_for_each_language_build(tmp_path):
    site = load_site()
    site.write_assets(tmp_path)  # the zh build
    zh = (tmp_path / PLANNER_DATA_PATH).read_bytes()
    site.write_assets(tmp_path)  # the en build (same site root: the languages share assets/)
    assert (tmp_path / PLANNER_DATA_PATH).read_bytes() == zh == planner_json(KB).encode("utf-8")


@pytest.mark.site
def test_the_built_site_carries_the_export_beside_planner_js(built_site):
    assert (built_site / PLANNER_DATA_PATH).read_text(encoding="utf-8") == planner_json(KB)
    assert (built_site / "assets" / "planner.js").is_file()
    assert not (built_site / "en" / PLANNER_DATA_PATH).exists()
    for page in (built_site / "planner" / "index.html", built_site / "en" / "planner" / "index.html"):
        html = page.read_text(encoding="utf-8")
        assert "assets/planner.js" in html and "assets/planner.css" in html
        # planner.js reads numbers.js's functions as it loads
        assert html.index("assets/numbers.js") < html.index("assets/planner.js")
        assert 'class="planner" data-planner' in html


def render(lang: str) -> str:
    return render_page(
        "<!-- kb:planner -->", RenderContext(KB, lang, "planner.md"), f"docs/{lang}/planner.md"
    )


def test_planner_markup_is_the_same_in_both_languages_but_the_wording():
    def skeleton(html: str) -> list[str]:
        return re.findall(r'(?:id|name|for|data-figure|class)="[^"]*"', html)

    zh, en = render("zh"), render("en")
    assert skeleton(zh) == skeleton(en)
    assert [f'data-figure="{key}"' for key in FIGURE_KEYS] == re.findall(r'data-figure="[^"]*"', zh)
    assert '<label for="planner-model">模型</label>' in zh
    assert '<label for="planner-model">Model</label>' in en
    assert "\n\n" not in zh.strip()  # one raw HTML block: Markdown leaves it alone


def test_planner_messages_are_the_page_language_and_script_safe():
    for lang, index in (("zh", 0), ("en", 1)):
        html = render(lang)
        raw = re.search(
            r'<script type="application/json" class="planner-messages">(.*?)</script>', html
        ).group(1)
        assert "<" not in raw and ">" not in raw  # "<model>" is escaped as \u003c…\u003e
        messages = json.loads(raw)
        page_keys = [k for k in STRINGS if k.startswith("planner-") and not k.startswith("planner-cli-")]
        assert messages == {k: STRINGS[k][index] for k in page_keys}
    notes = {k.removeprefix("planner-note-") for k in STRINGS if k.startswith("planner-note-")}
    from handbook.calc.memory import NOTE_CODES

    assert notes == set(NOTE_CODES)


# ------------------------------------------------------------------------------------------ opening context
def _opening(kb, lang: str, part: str) -> str:
    markdown = f"<!-- kb:planner-common-context part={part} -->\n"
    html = render_page(markdown, RenderContext(kb, lang, "planner.md"), f"docs/{lang}/planner.md")
    return unescape(html.strip())  # the text as read: escaped for Markdown and HTML on the page


def test_the_page_says_which_context_each_model_opens_on():
    """kb-mini: dense-a publishes 131,072 and latent-b 163,840, so no model opens above 131,072; secret-c
    publishes none and opens on the planner's default, 8,192, which the page says in both languages."""
    mini = load_kb(FIXTURES / "kb-mini")
    assert _opening(mini, "en", "tokens") == "131,072"
    assert _opening(mini, "en", "models") == mini.models["dense-a"].name
    secret = mini.models["secret-c"].name
    assert _opening(mini, "en", "unpublished") == (
        "A model whose native context is not in this KB (context.native or config.max_position_embeddings) "
        f"({secret}) opens on the planner's default of 8,192 tokens: change it to the context you serve."
    )
    assert _opening(mini, "zh", "unpublished") == (
        "本 KB 没有原生上下文（context.native 或 config.max_position_embeddings）的模型"
        f"（{secret}）以规划器的默认值 8,192 token 打开，请改成你实际服务的上下文。"
    )


def test_the_real_planner_page_names_the_models_that_open_on_the_default():
    # every KB model has a native context now, stated or derived from its config.json as the engine derives
    # it (DeepSeek-V3: max_position_embeddings 163,840, YaRN with the original length named): the sentence
    # on models that open on the planner's default is left out
    assert [m.id for m in KB.models.values() if memory.native_context(m) is None] == []
    assert memory.native_context(KB.models["deepseek-v3"]) == 163_840
    assert _opening(KB, "en", "unpublished") == ""
