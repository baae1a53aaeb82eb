"""Parameter counts by the reference implementation: the golden values of the architecture formulas
(handbook.calc.params), written independently of them (``nox -s engine-sizing``).

Runs INSIDE the engine virtualenv (torch and transformers as the SGLang wheel pins them). For each model it
takes the config.json the engine would read (a public config file as it is; a KB model's built by the
sizing oracle from the KB alone, plus its expert counts under every name configs give them), has
transformers read it into the config class its model_type names (filling what the file leaves out, as
from_pretrained does), builds the model class the file names on torch's ``meta`` device (no memory, no
weights) and counts the tensors a checkpoint holds for it: the parameters (``named_parameters`` yields a
tied tensor once, so a tied LM head is not counted twice) and the persistent buffers. Nothing here computes
a count from config fields; the figure is the model class's own.

What SGLang does not load is not in these classes either: the multi-token-prediction layers (DeepSeek's
``num_nextn_predict_layers``, Qwen3-Next's ``mtp_*``) are not modules of transformers' causal-LM classes,
and SGLang loads them only for speculative decoding (models/deepseek_nextn.py, models/qwen3_next_mtp.py).

Then it builds SGLang's own class for the same file (``EngineCount``): what the engine holds resident, which
differs from the checkpoint's count where the engine pads a tensor (Qwen2.5-VL's vision MLP), by dtype.

A mixed-precision model (its KB quantization config lists unquantized modules: gpt-oss) is counted twice more:
transformers' tensors by module (``by_module``: the names with each layer's index written ``*``, which the
config's unquantized-module patterns match), and the engine's class built with the checkpoint's
quantization config (``engine_quantized``), as its loader builds it (model_loader/loader.py:837-840), so that
its quantized tensors are held packed, with their scales, by dtype.

Each record: the model, the transformers class built, its total and its total by top-level component (the
parameter names' first part below ``model``), the engine's class, total and total by dtype (or why it could
not be built), with the digest of the config.json read so that a changed KB entry or file fails the unit
tests with the command that regenerates the golden file.

Usage (inside the engine venv, from the repository root):
    python -m handbook.oracles.params --out tests/golden/params.json
    python -m handbook.oracles.params --model mixtral-8x7b        # printed
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from handbook.calc import params as formulas
from handbook.core.files import write_text
from handbook.kb.loader import load_kb
from handbook.oracles import sizing as sizing_oracle

# expert counts, under every key the config classes read them by (handbook.kb.from_config reads the same)
ROUTED_KEYS = ("n_routed_experts", "num_experts", "num_local_experts")
SHARED_KEYS = ("n_shared_experts",)
PER_TOKEN_KEYS = ("num_experts_per_tok",)


def counted_models(kb: Any, extras: list[str]) -> list[str]:
    """The public configs, and every KB model with an architecture that a formula covers."""
    covered = [
        mid
        for mid, model in kb.models.items()
        if mid not in extras and model.config.architectures and formulas.formula_family(model) is not None
    ]
    return sorted(covered) + sorted(extras)


def config_for(kb: Any, model_id: str) -> dict:
    """The config.json the class is built from: the public file as it is, else the sizing oracle's (the KB's
    config block) with the expert counts the KB keeps beside it."""
    config = sizing_oracle.build_config(kb, model_id)
    if model_id in sizing_oracle.RAW_CONFIGS:
        return config
    experts = kb.models[model_id].experts
    if experts is not None:
        config = dict(config)
        for keys, value in (
            (ROUTED_KEYS, experts.routed),
            (SHARED_KEYS, experts.shared),
            (PER_TOKEN_KEYS, experts.per_token),
        ):
            for key in keys:
                if value is not None:
                    config[key] = value
    return config


# config.json's key for the modules a method leaves unquantized (transformers' Mxfp4Config for MXFP4)
UNQUANTIZED_FIELD = {"mxfp4": "modules_to_not_convert"}


def quantized_config(kb: Any, model_id: str) -> dict | None:
    """The config.json with its quantization config as the checkpoint writes it, for a KB model whose
    quantization config lists unquantized modules (None: any other)."""
    if model_id not in kb.models or model_id in sizing_oracle.RAW_CONFIGS:
        return None
    quantization = kb.models[model_id].config.quantization_config
    if quantization is None or not quantization.unquantized_modules:
        return None
    key = UNQUANTIZED_FIELD[quantization.quant_method]
    block = {"quant_method": quantization.quant_method, key: list(quantization.unquantized_modules)}
    return {**config_for(kb, model_id), "quantization_config": block}


def digest_of(config: dict) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def component(name: str) -> str:
    """``layers``, ``embed_tokens``, ``lm_head``, ``visual``…: below ``model`` and a multimodal wrapper's
    ``language_model``."""
    parts = name.split(".")
    while len(parts) > 1 and parts[0] in ("model", "language_model"):
        parts = parts[1:]
    return parts[0]


def checkpoint_tensors(model: Any) -> list[tuple[str, Any]]:
    """The parameters (a tied tensor once) and the persistent buffers (DeepSeek-V3's score-correction bias
    is one in transformers and a checkpoint tensor SGLang loads); rotary tables are not persistent."""
    tensors = list(model.named_parameters())
    for module_name, module in model.named_modules():
        for name, buffer in module.named_buffers(recurse=False):
            if buffer is not None and name not in module._non_persistent_buffers_set:
                tensors.append((f"{module_name}.{name}" if module_name else name, buffer))
    return tensors


def count(config: dict, *, by_module: bool = False) -> dict:
    """Build the config's class on the meta device and count what it holds (``by_module``: also by tensor
    name, each layer's index written ``*``)."""
    import torch
    import transformers

    hf_config = transformers.CONFIG_MAPPING[config["model_type"]].from_dict(config)  # as from_pretrained
    architecture = config["architectures"][0]
    cls = getattr(transformers, architecture)
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = cls._from_config(hf_config)
    by_component: dict[str, int] = {}
    modules: dict[str, int] = {}
    total = 0
    for name, tensor in checkpoint_tensors(model):
        total += tensor.numel()
        key = component(name)
        by_component[key] = by_component.get(key, 0) + tensor.numel()
        pattern = re.sub(r"\.\d+\.", ".*.", name)
        modules[pattern] = modules.get(pattern, 0) + tensor.numel()
    counted = {
        "class": f"transformers.{cls.__name__}",
        "total": total,
        "by_component": dict(sorted(by_component.items())),
    }
    if by_module:
        counted["by_module"] = dict(sorted(modules.items()))
    return counted


class EngineCount:
    """SGLang's own model class for the config, built the way its layered loader builds one (on the meta
    device, model_loader/loader.py:LayeredModelLoader) under the sizing oracle's emulated H100 at TP 1: what
    the engine holds resident, padding included, by dtype (the loader's default dtype is the config's).

    Building it on the CPU needs what a GPU run has: a one-rank process group (gloo), CUDA streams, the
    current device and the device query (answered by stand-ins: nothing runs), and every tensor constructor
    sent to the meta device, including those that name a device themselves."""

    def __init__(self) -> None:
        import importlib

        import torch
        from torch.overrides import TorchFunctionMode
        from torch.utils._device import _device_constructors

        # the modules whose import-time platform probes the emulation patches must be loaded before it
        for module in (
            "sglang.srt.model_loader.loader",
            "sglang.srt.models.registry",
            "sglang.srt.layers.rotary_embedding.base",
            "sglang.srt.layers.rotary_embedding.factory",
        ):
            importlib.import_module(module)
        from sglang.srt.models.registry import ModelRegistry

        for architecture in ModelRegistry.get_supported_archs():  # each model's module, imported now
            with contextlib.suppress(Exception):
                ModelRegistry._try_load_model_cls(architecture)
        from sglang.srt.layers.quantization import QUANTIZATION_METHODS
        from sglang.srt.layers.quantization.mxfp4 import Mxfp4Config

        # registered by the import on CUDA (layers/quantization/__init__.py:99-105), not on this CPU
        QUANTIZATION_METHODS.setdefault("mxfp4", Mxfp4Config)
        self.engine = sizing_oracle.Engine()
        self.torch = torch
        constructors = _device_constructors()

        class AllMeta(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = dict(kwargs or {})
                if func in constructors:
                    kwargs["device"] = "meta"
                return func(*args, **kwargs)

        self.all_meta = AllMeta
        self.distributed = False

    def count(self, kb: Any, model_id: str, config: dict, *, quantized: bool = False) -> dict:
        """``quantized``: built with the config's quantization config, as the loader builds it."""
        torch = self.torch
        case = sizing_oracle.make_case(kb, model_id, "h100", 1, "bf16", "engine-default")
        saved = torch.cuda.Stream, torch.cuda.current_device
        env_before = dict(os.environ)  # argument resolution sets environment variables; undo them per model
        from sglang.srt.utils.common import get_device

        probes = [m for m in list(sys.modules.values()) if getattr(m, "get_device", None) is get_device]
        with tempfile.TemporaryDirectory(prefix="params-model-") as tmp, self.engine.emulate(case, 70.0):
            write_text(Path(tmp) / "config.json", json.dumps(config), root=Path(tmp))
            try:
                from sglang.srt import runtime_context as rc
                from sglang.srt.configs.load_config import LoadConfig
                from sglang.srt.configs.model_config import ModelConfig
                from sglang.srt.distributed import parallel_state
                from sglang.srt.model_loader.loader import _get_quantization_config, _initialize_model
                from sglang.srt.model_loader.utils import set_default_torch_dtype

                argv = ["--model-path", tmp, "--device", "cuda", "--tp-size", "1", "--trust-remote-code"]
                server_args = self.engine.prepare_server_args([*argv, "--context-length", "4096"])
                server_args.resolve_once()
                rc.publish(server_args, role="scheduler", ranks=rc.SpawnRanks(world_rank=0, gpu_id=0))
                model_config = ModelConfig.from_server_args(server_args)
                if not self.distributed:
                    port = 29500 + os.getpid() % 1000
                    parallel_state.init_distributed_environment(
                        world_size=1,
                        rank=0,
                        local_rank=0,
                        distributed_init_method=f"tcp://127.0.0.1:{port}",
                        backend="gloo",
                    )
                    parallel_state.initialize_model_parallel(backend="gloo")
                    self.distributed = True
                torch.cuda.Stream = lambda *args, **kwargs: None
                torch.cuda.current_device = lambda: 0
                for module in probes:
                    module.get_device = lambda *args, **kwargs: "cuda"
                quant_config = _get_quantization_config(model_config, LoadConfig()) if quantized else None
                with set_default_torch_dtype(model_config.dtype), self.all_meta():
                    model = _initialize_model(model_config, LoadConfig(), quant_config)
            except Exception as exc:  # a class that cannot be built on the CPU: said so, not counted
                return {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
            finally:
                torch.cuda.Stream, torch.cuda.current_device = saved
                os.environ.clear()
                os.environ.update(env_before)
                for module in probes:
                    module.get_device = get_device
        by_dtype: dict[str, int] = {}
        for _name, tensor in checkpoint_tensors(model):
            key = str(tensor.dtype).removeprefix("torch.")
            by_dtype[key] = by_dtype.get(key, 0) + tensor.numel()
        return {
            "class": f"{type(model).__module__}.{type(model).__name__}",
            "total": sum(by_dtype.values()),
            "by_dtype": dict(sorted(by_dtype.items())),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--model", action="append")
    parser.add_argument(
        "--extra-configs",
        type=Path,
        default=sizing_oracle.EXTRA_CONFIGS,
        help="a folder of public <id>.config.json files",
    )
    args = parser.parse_args(argv)
    import torch
    import transformers

    base = load_kb()
    kb = sizing_oracle.with_extras(base, args.extra_configs)
    extras = [m for m in kb.models if m not in base.models]
    records = []
    engine = EngineCount()
    for model_id in args.model or counted_models(kb, extras):
        config = config_for(kb, model_id)
        record = {"model": model_id, "architecture": config["architectures"][0], "digest": digest_of(config)}
        mixed = quantized_config(kb, model_id)
        record.update(count(config, by_module=mixed is not None))
        record["engine"] = engine.count(kb, model_id, config)
        if mixed is not None:
            record["quantization_config"] = mixed["quantization_config"]
            record["engine_quantized"] = engine.count(kb, model_id, mixed, quantized=True)
        records.append(record)
        resident = record["engine"].get("total", record["engine"].get("error"))
        print(f"{model_id}: {record['total']:,} ({record['class']}); engine: {resident}", file=sys.stderr)
    doc = {
        "generated_by": "nox -s engine-sizing (python -m handbook.oracles.params)",
        "reference": f"transformers {transformers.__version__} (total), sglang {engine.engine.version}"
        f" (engine), torch {torch.__version__}, meta device",
        "records": records,
    }
    text = sizing_oracle.dump(doc)  # the same layout: one record per line
    if args.out:
        write_text(args.out, text, root=args.out.parent)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
