"""SGLang's own KV-pool sizing, run on the CPU: the planner's golden values (``nox -s engine-sizing``).

Runs INSIDE a virtualenv holding the real ``sglang`` wheel and what importing its sizing code needs (the
session builds it like ``engine-snapshot`` does) together with this package. Nothing here re-implements the
engine's arithmetic: every figure it writes is what the wheel's own functions return.

For one case (model, accelerator, TP, KV dtype, context, free memory before loading, resident weights per
GPU, optional --mem-fraction-static) it does what ``launch_server`` does before touching a GPU, then what the
model runner does to size the KV pool:

1. writes a ``config.json`` built only from the KB (the model's ``config`` block, ``context.native`` as
   max_position_embeddings, ``layer_types`` laid out from ``layer_types_count``; a multimodal checkpoint's
   language fields under ``text_config``), plus ``ACCEPTANCE_FIELDS``: fields the engine checks before it
   accepts a config but never reads to size anything, each with its KB source;
2. emulates the accelerator: the engine's platform override (``runtime_context.override_platform``) with the
   card's facts, the in-tree CUDA/ROCm platform, torch's device capability, the capacity query answering
   the device-reported MiB (kb/hardware ``memory_mib_reported``) and the free-memory query answering the
   free memory after the weights are resident;
3. ``prepare_server_args`` + ``resolve_once`` (every argument-resolution hook: the default
   --mem-fraction-static, aiter's × 0.85, attention and DSA backends, page size, mamba defaults);
4. ``ModelConfig.from_server_args``, ``resolve_layer_indices``, ``configure_kv_cache_dtype`` and a real
   ``KVCacheConfigurator`` (as ModelRunner builds it) whose ``_resolve_memory_pool_config`` gives the
   budget, the state pool, the cell, the token pool and max_running_requests.

Inputs that are not the engine's to compute come from the package: the resident weights per GPU
(``handbook.calc.memory.weights``: the published count, a mixed-precision checkpoint's split, or the
architecture formula) and, where the KB has no device-reported memory, the planner's upper bound for it (the
vendor's GB read as GiB). A case whose inputs need a field the KB lacks is run with the engine's own default
for it where the engine has one and is recorded as ``needs-field`` with what it needed; its figures are then
not golden, only what the planner's upper bound must not fall below. A case whose arguments a model hook
refuses (an assertion in the argument resolution, where launch_server stops) is recorded as
``refuses-arguments`` with the engine's message.

Every record carries ``digest``: the SHA-256 of its inputs (the config.json written, the case). The unit
tests rebuild the inputs from the current KB without the engine and compare (``digest_of``), so a golden
file that no longer matches the KB fails with the command that regenerates it.

Usage (inside the engine venv, from the repository root):
    python -m handbook.oracles.sizing --out tests/golden/sizing-0.5.23.json       # the full case matrix
    python -m handbook.oracles.sizing --model llama-3.1-8b --hw h100 --tp 1 --kv bf16  # cases, printed
    python -m handbook.oracles.sizing --replay-logs tests/golden/held-out-logs.json \\
        --out tests/golden/sizing-logs-0.5.23.json
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import logging
import os
import sys
import tempfile
import time
import traceback
import types
from pathlib import Path
from typing import Any

from handbook.calc import memory, sizing
from handbook.calc.planner_data import weight_dtypes
from handbook.checker.replays import NOT_CONFIG_FIELDS
from handbook.core.files import write_text
from handbook.kb.loader import load_kb

GIB = 1 << 30
MIB = 1 << 20

HW_IDS = ("h100", "h200", "b200", "b300", "mi300x", "mi355x")
# Public configs the KB does not ship, imported as `new model --from-config` would: a smaller matrix
EXTRA_CONFIGS = Path("tests/fixtures/extra-configs")
EXTRA_HW_IDS = ("h100", "b200", "mi300x")
EXTRA_TPS = (1, 2, 8)
TPS = (1, 2, 4, 8)
KV_IDS = ("bf16", "fp8")
# engine-default: what a user gets (the engine's default fraction, the device-reported memory free);
# given: --mem-fraction-static 0.85 and the vendor's nominal GB × 10^9 free (the planner's old inputs,
# which isolate the mechanisms from the memory basis).
VARIANTS = ("engine-default", "given")
GIVEN_FRACTION = 0.85

# Compute capability (and AMD gfx name) by the KB's architecture: what the emulated device answers.
CAPABILITY = {
    ("nvidia", "Hopper"): ((9, 0), ""),
    ("nvidia", "Blackwell"): ((10, 0), ""),
    ("nvidia", "Blackwell Ultra"): ((10, 3), ""),
    ("amd", "CDNA 3"): ((9, 4), "gfx942"),
    ("amd", "CDNA 4"): ((9, 5), "gfx950"),
}

# Fields the engine validates before it accepts a checkpoint's config but never reads to size the pool,
# by model: (value, the KB source that states it). Qwen4-Exp checks its per-layer embedding and n-gram
# fields when it builds its config (configs/qwen4_exp.py).
ACCEPTANCE_FIELDS: dict[str, dict[str, tuple[Any, str]]] = {
    "qwen3.8-flash-next": {
        "text.dtype": ("bfloat16", "qwen3.8-flash-next-fp8-config-transcription"),
        "text.eos_token_id": (248044, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.bos_token_id": (248044, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.ple_layer_ids": ([2], "qwen3.8-flash-next-fp8-config-transcription"),
        "text.ple_embed_dim": (2560, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.ple_conv_kernel_size": (4, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.hc_count": (4, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.hc_lowrank": (320, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.ngram_size": (3, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.heads_per_ngram": (8, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.ngram_vocab_size_base": (20000000, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.split_ngram_parts": (128, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.make_ngram_vocab_size_divisible_by": (128, "qwen3.8-flash-next-fp8-config-transcription"),
        "text.model_type": ("qwen4_exp_text", "qwen3.8-flash-next-fp8-config-transcription"),
    },
}


# ---------------------------------------------------------------------------------------------- inputs
def layer_types(counts: dict[str, int], n_layers: int | None, interval: int | None) -> list[str] | None:
    """config.json's layer_types from the KB's counts. Only the counts reach a figure (the pools count
    layers by kind: pool_configurator.py:230-236, 665-667); the order follows the checkpoints' own."""
    if not counts or n_layers is None:
        return None
    if interval and "linear_attention" in counts:  # full attention closes each block of `interval`
        return ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(n_layers)]
    if set(counts) == {"sliding_attention", "full_attention"} and len(set(counts.values())) == 1:
        return ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n_layers)]
    return None


RAW_CONFIGS: dict[str, dict] = {}


def with_extras(kb: Any, folder: Path = EXTRA_CONFIGS) -> Any:
    """The KB with the folder's public configs added as models (handbook.kb.from_config.extra_models)."""
    import dataclasses

    from handbook.kb.from_config import extra_models

    extras = extra_models(folder) if folder.is_dir() else {}
    for mid in extras:  # the engine reads the file itself, not the KB's copy of it
        RAW_CONFIGS[mid] = json.loads((folder / f"{mid}.config.json").read_text(encoding="utf-8"))
    clash = set(extras) & set(kb.models)
    if clash:
        raise ValueError(f"extra configs named like KB models: {sorted(clash)}")
    return dataclasses.replace(kb, models={**kb.models, **extras})


def build_config(kb: Any, model_id: str) -> dict | None:
    """The config.json the engine reads, from the KB only (None: no architecture, nothing to load)."""

    if model_id in RAW_CONFIGS:
        return RAW_CONFIGS[model_id]
    model = kb.models[model_id]
    c = model.config
    if not c.architectures:
        return None
    text: dict[str, Any] = {}
    for name in type(c).model_fields:
        value = getattr(c, name)
        if name in NOT_CONFIG_FIELDS or value is None:
            continue
        text[name] = value.model_dump(exclude_none=True) if hasattr(value, "model_dump") else value
    types_ = layer_types(dict(c.layer_types_count), c.num_hidden_layers, c.full_attention_interval)
    if types_ is not None:
        text["layer_types"] = types_
    if model.context and c.max_position_embeddings is None:
        text["max_position_embeddings"] = model.context.native
    top: dict[str, Any] = {"architectures": list(c.architectures)}
    if c.model_type:
        top["model_type"] = c.model_type
    for key, (value, _source) in ACCEPTANCE_FIELDS.get(model_id, {}).items():
        text[key.removeprefix("text.")] = value
    if sizing.is_multimodal(model):
        vision = text.pop("vision_config", None)
        config = {**top, "text_config": text}
        if vision is not None:
            config["vision_config"] = vision
        return config
    return {**top, **text}


def default_weights_dtype(kb: Any, model_id: str) -> str:
    """The planner's default weights dtype: the model's first published precision, else BF16."""

    return weight_dtypes(kb, kb.models[model_id])[0]


def make_case(kb: Any, model_id: str, hw_id: str, tp: int, kv: str, variant: str) -> dict:
    """One case's inputs, all from the KB (and the planner's weight model and memory bound)."""

    model, hw = kb.models[model_id], kb.hardware[hw_id]
    weights_dtype = default_weights_dtype(kb, model_id)
    try:
        w = memory.weights(model, kb.dtypes[weights_dtype])
        weights_per_gpu, weights_basis = w.total_bytes / tp, w.basis
    except memory.NotPublished:
        weights_per_gpu, weights_basis = None, None
    device = memory.device_memory(hw)
    capability, gcn = CAPABILITY[(hw.vendor, hw.architecture)]
    if variant == "engine-default":
        free_gib, fraction = device.mib * MIB / GIB, None
    else:
        free_gib, fraction = hw.memory_gb * 1e9 / GIB, GIVEN_FRACTION
    return {
        "variant": variant,
        "model": model_id,
        "hw": hw_id,
        "tp": tp,
        "kv": kv,
        "kv_engine": sizing.kv_cache_dtype_flag(model, kb.dtypes[kv]),  # as the planner's command spells it
        "context": memory.resolve_context(model, None),
        "weights_dtype": weights_dtype,
        "weights_per_gpu_bytes": weights_per_gpu,
        "weights_basis": weights_basis,
        "vendor": hw.vendor,
        "capability": list(capability),
        "gcn": gcn,
        "device_name": hw.name,
        "total_mib": device.mib,
        "total_mib_basis": device.basis,
        "free_before_load_gib": free_gib,
        "mem_fraction_static": fraction,
    }


def needs(kb: Any, case: dict) -> list[str]:
    """The KB fields a case's figures depend on and the KB lacks (where the engine ran with its own
    default or the planner's bound instead)."""

    model, hw = kb.models[case["model"]], kb.hardware[case["hw"]]
    c = model.config
    out = []
    if not c.architectures:
        out.append("config.architectures")
    if case["weights_per_gpu_bytes"] is None:
        out.append("params.total_b")
    if case["total_mib_basis"] != "reported" and case["mem_fraction_static"] is None:
        out.append(f"hardware.{hw.id}.memory_mib_reported")
    if sizing.is_multimodal(model) and c.vision_config is None and case["mem_fraction_static"] is None:
        out.append("config.vision_config")
    if memory.has_linear_attention(model):
        out += [f"config.{n}" for n in sizing.LINEAR_FIELDS if getattr(c, n) is None]
        if sizing.state_dtype(model) is None:
            out.append("config.mamba_ssm_dtype")
    if sizing.is_dsa(model):
        for name in ("index_head_dim", "index_topk_freq", "index_skip_topk_offset"):
            if getattr(c, name) is None and name not in c.absent:
                out.append(f"config.{name}")
    return out


def digest_of(config: dict | None, case: dict) -> str:
    """What a record's figures follow from, hashed: the config.json and the case's inputs."""
    text = json.dumps({"config": config, "case": case}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cases(kb: Any, models=None, hws=HW_IDS, tps=TPS, kvs=KV_IDS, variants=VARIANTS) -> list[dict]:
    return [
        make_case(kb, model_id, hw_id, tp, kv, variant)
        for model_id in (models or list(kb.models))
        for hw_id in hws
        for tp in tps
        for kv in kvs
        for variant in variants
    ]


# ---------------------------------------------------------------------------------------------- engine
class Engine:
    """Imports the wheel once; ``run`` sizes one case under an emulated accelerator."""

    def __init__(self) -> None:
        import sglang
        import sglang.srt.arg_groups.memory_hook as memory_hook
        import sglang.srt.mem_cache.kv_cache_configurator as kcc
        import torch
        from sglang.srt import runtime_context as rc
        from sglang.srt.server_args import prepare_server_args

        self.torch, self.memory_hook, self.kcc, self.rc = torch, memory_hook, kcc, rc
        self.prepare_server_args = prepare_server_args
        self.version = sglang.__version__

    @contextlib.contextmanager
    def emulate(self, case: dict, free_after_load_gib: float):
        import sglang.srt.platforms as platforms
        from sglang.srt.platforms.cuda import CudaSRTPlatform
        from sglang.srt.platforms.rocm import RocmSRTPlatform
        from sglang.srt.runtime_context import override_platform

        torch = self.torch
        nvidia = case["vendor"] == "nvidia"
        major, minor = case["capability"]
        saved: list[tuple[Any, str, Any]] = []

        def patch(obj: Any, name: str, value: Any) -> None:
            saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, value)

        patch(torch.cuda, "get_device_capability", lambda *a, **k: (major, minor))
        props = types.SimpleNamespace(
            name=case["device_name"],
            total_memory=int(case["total_mib"] * MIB),
            is_integrated=False,
            gcnArchName=case["gcn"],
            multi_processor_count=0,
            major=major,
            minor=minor,
        )
        patch(torch.cuda, "get_device_properties", lambda *a, **k: props)
        patch(torch.version, "hip", None if nvidia else "7.0.0")

        def capacity(device: Any = None) -> float:
            return float(case["total_mib"])

        def free(*args: Any, **kwargs: Any) -> float:
            return float(free_after_load_gib)

        patch(self.memory_hook, "get_device_memory_capacity", capacity)
        patch(self.kcc, "get_device_memory_capacity", capacity)
        patch(self.kcc, "get_available_gpu_memory", free)
        # import-time probes the sizing modules cached as module globals
        for module in list(sys.modules.values()):
            name = getattr(module, "__name__", "") or ""
            if not name.startswith("sglang.srt"):
                continue
            namespace = getattr(module, "__dict__", {})
            for flag, value in (("_is_hip", not nvidia), ("_is_cuda", nvidia)):
                if isinstance(namespace.get(flag), bool):
                    patch(module, flag, value)
        patch(platforms, "_current_platform", CudaSRTPlatform() if nvidia else RocmSRTPlatform())
        facts = {
            "is_cuda": nvidia,
            "is_hip": not nvidia,
            "is_npu": False,
            "is_xpu": False,
            "is_musa": False,
            "is_mps": False,
            "is_sm90": nvidia and major == 9,
            "is_sm100": nvidia and major == 10,
            "is_sm100_or_sm110": nvidia and major in (10, 11),
            "is_sm110": nvidia and major == 11,
            "is_sm120": nvidia and major == 12,
            "is_blackwell": nvidia and major in (10, 11, 12),
            "is_hopper_with_cuda_12_3": nvidia and major == 9,
            "has_amx": False,
            "has_flashinfer": nvidia,  # a CUDA install of sglang depends on flashinfer-python
            "device_sm": major * 10 + minor,
            "device_capability": (major, minor),
        }
        try:
            with override_platform(**facts):
                yield
        finally:
            for obj, name, value in reversed(saved):
                setattr(obj, name, value)

    def run(self, case: dict, config: dict) -> dict:
        """One case, as launch_server and the model runner size it: the arguments resolved, the pool's
        configurator built, the pool sized (each step records what it learns in the returned dict)."""
        out: dict[str, Any] = {}
        env_before = dict(os.environ)  # resolution hooks set environment variables; undo them per case
        weights_gib = (case["weights_per_gpu_bytes"] or 0.0) / GIB
        after_gib = case["free_before_load_gib"] - weights_gib
        root = logging.getLogger()
        handler = logging.StreamHandler(io.StringIO())
        with tempfile.TemporaryDirectory(prefix="sizing-model-") as tmp, self.emulate(case, after_gib):
            (Path(tmp) / "config.json").write_text(json.dumps(config), encoding="utf-8")
            root.addHandler(handler)
            try:
                server_args = self.resolved_arguments(case_argv(case, tmp), out)
                if server_args is None:
                    return out
                configurator = self.pool_configurator(server_args, out)
                if case["weights_per_gpu_bytes"] is not None:
                    self.sized_pool(configurator, case, out)
            finally:
                root.removeHandler(handler)
                os.environ.clear()
                os.environ.update(env_before)
        return out

    def resolved_arguments(self, argv: list[str], out: dict[str, Any]) -> Any:
        """prepare_server_args + resolve_once, published as the scheduler sees them; None (and why, in
        ``out``) where a model hook refuses the arguments, as launch_server stops there."""
        from sglang.srt.arg_groups.overrides import resolved_view

        rc = self.rc
        server_args = self.prepare_server_args(argv)
        try:
            server_args.resolve_once()
        except AssertionError as exc:  # a model hook refusing the arguments: launch_server stops here
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            out["refuses_arguments"] = f"{type(exc).__name__}: {exc}"[:300]
            out["where"] = f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno}:{frame.name}"
            return None
        rc.publish(server_args, role="scheduler", ranks=rc.SpawnRanks(world_rank=0, gpu_id=0))
        schedule, view = rc.get_schedule(), resolved_view(server_args)
        out["mem_fraction_static"] = schedule.mem_fraction_static
        out["page_size"] = schedule.page_size
        out["attention_backend"] = view.attention_backend
        out["dsa_backends"] = [view.dsa_prefill_backend, view.dsa_decode_backend]
        return server_args

    def pool_configurator(self, server_args: Any, out: dict[str, Any]) -> Any:
        """A real KVCacheConfigurator as ModelRunner builds it (a stand-in module for the loaded model), and
        the cell and state sizes its pool configurator reports."""
        from sglang.srt.configs.model_config import AttentionArch, ModelConfig
        from sglang.srt.mem_cache.kv_cache_dtype import configure_kv_cache_dtype
        from sglang.srt.model_executor.model_runner_components.layer_setup import resolve_layer_indices
        from sglang.srt.model_executor.model_runner_components.load_model_utils import (
            resolve_sliding_window_size,
        )
        from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import (
            resolve_spec_aux_hidden_state_config,
        )
        from sglang.srt.model_executor.pool_configurator import (
            DSV4PoolConfigurator,
            create_memory_pool_configurator,
        )
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        torch, rc, kcc = self.torch, self.rc, self.kcc
        schedule, model_bag = rc.get_schedule(), rc.get_model()
        model_config = ModelConfig.from_server_args(server_args)
        model = torch.nn.Module()  # stands for the loaded model: no weights, no PP range
        layer_info = resolve_layer_indices(model=model, model_config=model_config, is_draft_worker=False)
        kv_str, kv_dtype = configure_kv_cache_dtype(
            server_args_kv_cache_dtype=model_bag.kv_cache_dtype,
            model=model,
            model_dtype=model_config.dtype,
            is_draft_worker=False,
            is_dflash=False,
            speculative_draft_attention_backend=None,
            speculative_draft_kv_cache_dtype=rc.get_spec().speculative_draft_kv_cache_dtype,
        )
        spec = SpeculativeAlgorithm.from_string(rc.get_spec().speculative_algorithm)
        aux = resolve_spec_aux_hidden_state_config(
            server_args=server_args,
            model_config=model_config,
            spec_algorithm=spec,
            is_draft_worker=False,
        )
        rc.get_parallel().override_permanently(world_group=types.SimpleNamespace(cpu_group=None))
        configurator = kcc.KVCacheConfigurator(
            device="cuda",
            gpu_id=0,
            attn_dp_size=rc.get_parallel().attn_dp_size,
            pp_size=1,
            pp_group=None,
            model=model,
            model_config=model_config,
            server_args=server_args,
            kv_cache_dtype=kv_dtype,
            kv_cache_dtype_str=kv_str if kv_str is not None else model_bag.kv_cache_dtype,
            model_dtype=model_config.dtype,
            page_size=schedule.page_size,
            sliding_window_size=resolve_sliding_window_size(model, model_config),
            spec_algorithm=spec,
            is_draft_worker=False,
            post_capture_kv_active=False,
            spec_aux_config=aux,
            draft_parallel_layout=None,
            is_hybrid_swa=model_config.is_hybrid_swa,
            is_hybrid_swa_compress=model_config.is_hybrid_swa_compress,
            use_mla_backend=model_config.attention_arch == AttentionArch.MLA,
            layer_info=layer_info,
            forward_stream=None,
            req_to_token_pool=None,
            token_to_kv_pool_allocator=None,
            memory_pool_config=None,
        )
        pool = create_memory_pool_configurator(configurator)
        out["cell_bytes_per_token"] = getattr(pool, "_cell_size", None)
        if isinstance(pool, DSV4PoolConfigurator):
            # DeepSeek-V4's pool: bytes per full-pool token (compressed KV + indexer), bytes per SWA slot, and
            # the SWA slots its request cap reserves up front (None: ratio sizing)
            out["cell_bytes_per_token"] = pool.bytes_per_full_token
            out["swa_bytes_per_token"] = pool.bytes_per_swa_token
            out["swa_cap_tokens"] = pool.swa_cap_tokens
        if configurator.mambaish_config is not None:
            out["state_bytes_per_request"] = int(
                configurator.mambaish_config.mamba2_cache_params.mamba_cache_per_req
            )
        return configurator

    def sized_pool(self, configurator: Any, case: dict, out: dict[str, Any]) -> None:
        """The pool sized from the free memory before loading (the weights resident per the emulation), or
        the engine's refusal."""
        try:
            sized = configurator._resolve_memory_pool_config(case["free_before_load_gib"])
        except (RuntimeError, ValueError) as exc:
            out["refuses"] = f"{type(exc).__name__}: {exc}"[:300]
            return
        out["max_total_num_tokens"] = sized.max_total_num_tokens
        out["max_running_requests"] = sized.max_running_requests
        out["swa_max_total_num_tokens"] = sized.swa_max_total_num_tokens
        if configurator.mambaish_config is not None:
            out["max_mamba_cache_size"] = self.rc.get_schedule().max_mamba_cache_size


def case_argv(case: dict, model_dir: str) -> list[str]:
    """launch_server's arguments for one case."""
    argv = ["--model-path", model_dir, "--device", "cuda", "--tp-size", str(case["tp"])]
    argv += [
        "--kv-cache-dtype",
        case["kv_engine"],
        "--context-length",
        str(case["context"]),
        "--trust-remote-code",
    ]
    if case["mem_fraction_static"] is not None:
        argv += ["--mem-fraction-static", str(case["mem_fraction_static"])]
    return argv


def run_cases(kb: Any, case_list: list[dict], engine: Engine) -> list[dict]:
    records, configs = [], {}
    for case in case_list:
        model_id = case["model"]
        if model_id not in configs:
            configs[model_id] = build_config(kb, model_id)
        config = configs[model_id]
        record: dict[str, Any] = {"inputs": case, "digest": digest_of(config, case)}
        missing = needs(kb, case)
        if config is None:
            record["status"], record["needs"] = "needs-field", missing
            records.append(record)
            continue
        try:
            record["engine"] = engine.run(case, config)
        except Exception as exc:  # an engine failure on a case is a result to look at, not a crash
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            record["engine"] = {
                "error": f"{type(exc).__name__}: {str(exc)[:300]}",
                "where": f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno}:{frame.name}",
            }
        engine_out = record["engine"]
        if "error" in engine_out:
            record["status"] = "engine-error"
        elif "refuses_arguments" in engine_out:
            record["status"] = "refuses-arguments"
        elif missing:
            record["status"] = "needs-field"
        elif "refuses" in engine_out:
            record["status"] = "does-not-fit"
        else:
            record["status"] = "exact"
        if missing:
            record["needs"] = missing
        records.append(record)
    return records


# ---------------------------------------------------------------------------------------------- logs
def replay_logs(kb: Any, path: Path, engine: Engine) -> list[dict]:
    """Public startup logs: the engine's sizing with the log's own free memory before and after loading and
    its flags, set beside the figure the log prints."""
    rows = []
    for entry in json.loads(path.read_text(encoding="utf-8")):
        config = build_config(kb, entry["model"])
        case = make_case(kb, entry["model"], entry["hw"], entry["tp"], entry["kv"], "engine-default")
        case.update(
            context=entry["context"],
            mem_fraction_static=entry["mem_fraction_static"],
            free_before_load_gib=entry["free_before_load_gib"],
            weights_per_gpu_bytes=(entry["free_before_load_gib"] - entry["free_after_load_gib"]) * GIB,
        )
        out = engine.run(case, config)
        row = {"id": entry["id"], "inputs": case, "engine": out}
        if "logged_max_total_num_tokens" in entry and out.get("max_total_num_tokens"):
            row["logged_max_total_num_tokens"] = entry["logged_max_total_num_tokens"]
            row["relative_difference"] = (
                out["max_total_num_tokens"] / entry["logged_max_total_num_tokens"] - 1
            )
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------- main
def dump(doc: dict) -> str:
    """One record per line: reviewable diffs, stable bytes."""
    head = {key: value for key, value in doc.items() if key != "records"}
    lines = [json.dumps(record, sort_keys=True) for record in doc["records"]]
    text = json.dumps(head, indent=1, sort_keys=True)[:-2]
    return text + ',\n "records": [\n' + ",\n".join(lines) + "\n ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    # The context is a planner input; the engine compares it with max_position_embeddings, which the KB
    # does not always hold (configs/model_config.py:_derive_context_length). Allow it.
    os.environ.setdefault("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "1")
    logging.basicConfig(level=logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--model", action="append")
    parser.add_argument("--hw", action="append", choices=HW_IDS)
    parser.add_argument("--tp", type=int, action="append")
    parser.add_argument("--kv", action="append", choices=KV_IDS)
    parser.add_argument("--variant", action="append", choices=VARIANTS)
    parser.add_argument("--replay-logs", type=Path, help="public startup logs to replay (JSON)")
    parser.add_argument(
        "--extra-configs", type=Path, default=EXTRA_CONFIGS, help="a folder of public <id>.config.json files"
    )
    args = parser.parse_args(argv)

    base = load_kb()
    kb = with_extras(base, args.extra_configs)
    extras = [m for m in kb.models if m not in base.models]
    started = time.perf_counter()
    engine = Engine()
    if args.replay_logs:
        doc = {"engine": f"sglang {engine.version}", "records": replay_logs(kb, args.replay_logs, engine)}
    else:
        case_list = cases(
            kb,
            args.model or list(base.models),
            tuple(args.hw or HW_IDS),
            tuple(args.tp or TPS),
            tuple(args.kv or KV_IDS),
            tuple(args.variant or VARIANTS),
        )
        if not args.model:  # the public configs the KB does not ship, on a smaller matrix
            case_list += cases(
                kb,
                extras,
                tuple(h for h in EXTRA_HW_IDS if h in (args.hw or HW_IDS)),
                tuple(t for t in EXTRA_TPS if t in (args.tp or TPS)),
                tuple(args.kv or KV_IDS),
                tuple(args.variant or VARIANTS),
            )
        records = run_cases(kb, case_list, engine)
        doc = {
            "engine": f"sglang {engine.version}",
            "generated_by": "nox -s engine-sizing (python -m handbook.oracles.sizing)",
            "variants": {
                "engine-default": "the engine's default --mem-fraction-static; free before loading = the "
                "device-reported memory (kb/hardware memory_mib_reported, else the planner's bound)",
                "given": f"--mem-fraction-static {GIVEN_FRACTION}; free before loading = the vendor's "
                "memory_gb × 10^9 bytes",
            },
            "records": records,
        }
    text = dump(doc)
    if args.out:
        write_text(args.out, text, root=args.out.parent)
        counts: dict[str, int] = {}
        for record in doc["records"]:
            status = record.get("status", "replayed")
            counts[status] = counts.get(status, 0) + 1
        print(f"{len(doc['records'])} records in {time.perf_counter() - started:.0f} s: {counts}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
