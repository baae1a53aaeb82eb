"""Replay every launch recipe through SGLang's own start-up resolution: ``nox -s engine-replay``.

Runs INSIDE the virtualenv where the real ``sglang`` wheel of the pinned release is installed (``nox -s
engine-snapshot`` builds it and installs the pinned release last) together with this package. For each
launch recipe of a KB model (``handbook.checker.replays`` builds the inputs):

1. a ``config.json`` from the KB's sourced model fields only, in a folder named like the checkpoint;
   a recipe whose model does not publish ``architectures``/``model_type`` is "not replayable", never
   filled with a guess;
2. what ``launch_server`` runs before it touches a GPU: ``prepare_server_args(argv + ["--device", …])``,
   ``resolve_once()``, ``check_server_args()``, in a forked child per command (its env vars set,
   ``HF_HUB_OFFLINE=1``). On the CPU (``--device cpu``), or, when the recipe names an accelerator, on an
   emulated one (``--device cuda``; the engine's platform override, torch's device capability and the
   KB's device memory: see ``emulate``);
3. it records: accepted, or the exception with the innermost engine frame (file:line); every value
   resolution changed, with the function that declared it and the log line it wrote; the warnings it
   logged; the config fields the engine read that config.json lacked (the class defaults it used). A
   field the KB marks unknown that the engine reads makes the recipe not replayable after all.

A recipe with a correction is replayed twice: the source's command and the published one. Where the
model is not replayable, both are replayed on the rule replay's small stand-in model instead, which
exercises the model-independent checks only (and is labelled so).

    python -m handbook.oracles.recipes [--stale | RECIPE …]     # writes kb/engine/replay-sglang-<v>.json

``--stale`` replays only the recipes whose inputs changed since the stored replay (and new ones).
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import sys
import tempfile
import time
import traceback
import types
from pathlib import Path
from typing import Any

from handbook.checker.check import entry_points
from handbook.checker.replays import (
    FORMAT,
    PLACEHOLDERS,
    Accelerator,
    ReplayInput,
    dumps_replays,
    load_replays,
    replay_input,
    replay_path,
    replayed_recipes,
)
from handbook.checker.shell import parse_script
from handbook.core.files import write_text
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb
from handbook.oracles.replay import STAND_IN_CONFIG

# Values resolution declares that are not adjustments a reader acts on: bookkeeping, paths of the
# temporary model folder, a random seed.
QUIET_FIELDS = {"random_seed", "tokenizer_path", "served_model_name", "device", "model_path"}
MESSAGE_CHARS = 400


# ------------------------------------------------------------------------------------------ emulation
def emulate(accelerator: Accelerator) -> None:
    """Make this (forked) process look like a node of ``accelerator`` to argument resolution: the engine's
    own platform override (runtime_context.override_platform), the in-tree CUDA/ROCm platform object,
    torch.cuda's capability and properties, the import-time ``_is_hip``/``_is_cuda`` module flags, and the
    device memory (the KB's device-reported MiB where it has one, else its nominal GB × 1024: then the
    memory-derived defaults are approximate)."""
    import sglang.srt.platforms as platforms
    import torch
    from sglang.srt.platforms.cuda import CudaSRTPlatform
    from sglang.srt.platforms.rocm import RocmSRTPlatform
    from sglang.srt.runtime_context import override_platform
    from sglang.srt.utils import common

    nvidia = accelerator.vendor == "nvidia"
    major, minor = accelerator.capability
    total_mib = accelerator.memory_mib
    torch.cuda.get_device_capability = lambda *a, **k: (major, minor)
    props = types.SimpleNamespace(
        name=accelerator.id,
        total_memory=int((total_mib or 0) * 2**20),
        is_integrated=False,
        gcnArchName=accelerator.gcn_arch,
        multi_processor_count=0,
        major=major,
        minor=minor,
    )
    torch.cuda.get_device_properties = lambda *a, **k: props
    torch.version.hip = None if nvidia else "7.0.0"
    modules = [
        m for m in list(sys.modules.values()) if (getattr(m, "__name__", "") or "").startswith("sglang.srt")
    ]
    if total_mib:

        def capacity(device: Any = None) -> float:
            return total_mib

        common.get_device_memory_capacity = capacity
        for module in modules:
            if hasattr(module, "get_device_memory_capacity"):
                module.get_device_memory_capacity = capacity
    for module in modules:
        for flag, value in (("_is_hip", not nvidia), ("_is_cuda", nvidia)):
            if isinstance(getattr(module, "__dict__", {}).get(flag), bool):
                setattr(module, flag, value)
    platforms._current_platform = CudaSRTPlatform() if nvidia else RocmSRTPlatform()
    override_platform(
        is_cuda=nvidia,
        is_hip=not nvidia,
        is_npu=False,
        is_xpu=False,
        is_musa=False,
        is_mps=False,
        is_sm90=nvidia and major == 9,
        is_sm100=nvidia and major == 10,
        is_sm100_or_sm110=nvidia and major in (10, 11),
        is_sm110=nvidia and major == 11,
        is_sm120=nvidia and major == 12,
        is_blackwell=nvidia and major in (10, 11, 12),
        is_hopper_with_cuda_12_3=nvidia and major == 9,
        has_amx=False,
        has_flashinfer=nvidia,
        device_sm=major * 10 + minor,
        device_capability=(major, minor),
    ).install()


IB_SYSFS = "/sys/class/infiniband"


def emulate_ib_devices(argv: list[str]) -> None:
    """The engine checks --disaggregation-ib-device against /sys/class/infiniband on the host
    (validation_hook.validate_ib_devices): emulate a host with exactly the devices the command names, so
    the replay judges the command, not this machine."""
    devices: list[str] = []
    for i, word in enumerate(argv):
        value = argv[i + 1] if word == "--disaggregation-ib-device" and i + 1 < len(argv) else None
        if word.startswith("--disaggregation-ib-device="):
            value = word.split("=", 1)[1]
        if value:
            devices += [d.strip() for d in value.split(",") if d.strip()]
    if not devices:
        return
    real_isdir, real_listdir = os.path.isdir, os.listdir
    os.path.isdir = lambda path: str(path).rstrip("/") == IB_SYSFS or real_isdir(path)  # type: ignore[assignment]
    os.listdir = lambda path=".": list(devices) if str(path).rstrip("/") == IB_SYSFS else real_listdir(path)  # type: ignore[assignment]


# ------------------------------------------------------------------------------------------ one command
def _where(frame: Any, lineno: int | None = None, name: str | None = None) -> str:
    path = frame if isinstance(frame, str) else frame.filename
    return f"{path.split('site-packages/')[-1]}:{lineno or frame.lineno} ({name or frame.name})"


def _plain(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        text = repr(value)
        return {"repr": text if len(text) <= 160 else text[:157] + "…"}


def _argv_and_env(text: str, model_dir: Path) -> tuple[list[str], dict[str, str]]:

    for placeholder, value in PLACEHOLDERS.items():
        text = text.replace(placeholder, value)
    script = parse_script(text, *entry_points(load_snapshot()))
    (invocation,) = [i for i in script.invocations if i.program == "launch_server"]
    argv = [w.text for w in invocation.args]
    for i, word in enumerate(argv[:-1]):
        if word in ("--model-path", "--model", "--speculative-draft-model-path"):
            argv[i + 1] = str(model_dir)
    env = {a.name: a.value.text for a in [*script.assignments, *invocation.env] if a.value is not None}
    return argv, env


def run_engine(argv: list[str], env: dict[str, str], accelerator: Accelerator | None, scrub: str) -> dict:
    """One command through the engine's resolution, in this (forked) process."""
    import transformers
    from sglang.srt.server_args import ServerArgs, prepare_server_args

    device = "cpu"
    if accelerator is not None:
        emulate(accelerator)
        device = "cuda"
    emulate_ib_devices(argv)
    os.environ.update(env)

    reads: dict[int, tuple[Any, set[str]]] = {}
    original_get = transformers.PretrainedConfig.__getattribute__

    def tracing(self: Any, name: str) -> Any:
        # only reads made by the engine's own code (not transformers' serialisation of the config)
        if not name.startswith("_") and "/sglang/" in sys._getframe(1).f_code.co_filename:
            reads.setdefault(id(self), (self, set()))[1].add(name)
        return original_get(self, name)

    records: list[logging.LogRecord] = []
    original_enabled, original_handle = logging.Logger.isEnabledFor, logging.Logger.handle

    def enabled(self: logging.Logger, level: int) -> bool:
        return (level >= logging.INFO and self.name.startswith("sglang")) or original_enabled(self, level)

    def handle(self: logging.Logger, record: logging.LogRecord) -> None:
        if self.name.startswith("sglang"):
            records.append(record)
        if original_enabled(self, record.levelno):
            original_handle(self, record)

    transformers.PretrainedConfig.__getattribute__ = tracing  # type: ignore[method-assign]
    logging.Logger.isEnabledFor, logging.Logger.handle = enabled, handle  # type: ignore[method-assign]
    result: dict[str, Any] = {"accepted": True}
    server_args = None
    try:
        server_args = prepare_server_args([*argv, "--device", device])
        server_args.resolve_once()
        server_args.check_server_args()
    except BaseException as exc:  # the engine's failure is the result
        frames = traceback.extract_tb(exc.__traceback__)
        engine = [f for f in frames if "/sglang/" in f.filename]
        frame = engine[-1] if engine else (frames[-1] if frames else None)
        result = {
            "accepted": False,
            "raised": type(exc).__name__,
            "message": str(exc).replace(scrub, "<model>")[:MESSAGE_CHARS],
            "at": _where(frame) if frame is not None else None,
        }
    finally:
        transformers.PretrainedConfig.__getattribute__ = original_get  # type: ignore[method-assign]
        logging.Logger.isEnabledFor, logging.Logger.handle = original_enabled, original_handle  # type: ignore[method-assign]

    generic = set(vars(transformers.PretrainedConfig()))
    config_reads: dict[str, dict[str, Any]] = {}
    for config, names in reads.values():
        data = vars(config)
        label = getattr(config, "model_type", "") or type(config).__name__
        for name in names:
            if name in data and name not in generic:
                value = data[name]
                shown = "<config>" if isinstance(value, transformers.PretrainedConfig) else _plain(value)
                config_reads.setdefault(label, {})[name] = shown
    result["config_reads"] = config_reads

    logs = [
        {
            "level": r.levelname,
            "at": _where(r.pathname, r.lineno, r.funcName),
            "function": r.funcName,
            "message": r.getMessage().replace(scrub, "<model>")[:MESSAGE_CHARS],
        }
        for r in records
        if r.levelno >= logging.INFO
    ]
    result["adjusted"], result["warnings"] = _adjustments(server_args, argv, logs, ServerArgs, scrub)
    return result


def _explicit_dests(argv: list[str], server_args_class: Any) -> set[str]:
    parser = argparse.ArgumentParser()
    server_args_class.add_cli_args(parser)
    by_flag = {s: a.dest for a in parser._actions for s in a.option_strings}
    return {by_flag[w.split("=", 1)[0]] for w in argv if w.split("=", 1)[0] in by_flag}


def _log_score(name: str, value: Any, message: str) -> int:
    """How well a log line speaks of a field: its name's words, then its new value."""
    text = message.lower()
    words = [w for w in name.split("_") if len(w) > 2 and w not in ("size", "enable", "disable", "num")]
    score = 2 * sum(w in text for w in words)
    shown = str(value)
    if not isinstance(value, bool) and len(shown) > 1 and shown in message:
        score += 1
    return score


def _adjustments(
    server_args: Any, argv: list[str], logs: list[dict], server_args_class: Any, scrub: str
) -> tuple[list[dict], list[dict]]:
    """Every value resolution changed (from what the command or the parser gave it, or from an earlier
    step of resolution), each with the log line its function wrote about it. ``filled`` marks a default
    the engine chose where the command and the parser left none (``None``/``auto``) and logged nothing;
    the rest are adjustments. Then the warnings no change explains."""
    adjusted: list[dict] = []
    used: set[int] = set()
    functions: set[str] = set()
    if server_args is not None:
        raw = getattr(server_args, "_raw_input", {}) or {}
        explicit = _explicit_dests(argv, server_args_class)
        current: dict[str, Any] = {}
        for function, fields in getattr(server_args, "_resolved_overrides", ()) or ():
            for name, value in fields.items():
                before = current.get(name, raw.get(name))
                current[name] = value
                if name.startswith("_") or name in QUIET_FIELDS or _plain(before) == _plain(value):
                    continue
                if scrub in json.dumps(_plain(value), default=str):
                    continue
                functions.add(function.lstrip("_"))
                candidates = [
                    (_log_score(name, value, log["message"]), i)
                    for i, log in enumerate(logs)
                    if i not in used and log["function"].lstrip("_") == function.lstrip("_")
                ]
                best = max(candidates, default=(0, -1))
                log = None
                if best[0] > 0:
                    used.add(best[1])
                    log = {k: logs[best[1]][k] for k in ("level", "at", "message")}
                plain_before, plain_value = _plain(before), _plain(value)
                filled = (
                    name not in explicit
                    and log is None
                    and (before in (None, "auto", [], {}) or isinstance(plain_value, dict))
                )
                adjusted.append(
                    {
                        "field": name,
                        "from": plain_before,
                        "to": plain_value,
                        "by": function,
                        "explicit": name in explicit,
                        "filled": filled,
                        "log": log,
                    }
                )
    warnings = [
        {k: log[k] for k in ("level", "at", "message")}
        for i, log in enumerate(logs)
        if i not in used
        and (log["level"] in ("WARNING", "ERROR", "CRITICAL") or log["function"].lstrip("_") in functions)
    ]
    return adjusted, warnings


def _child(conn: Any, argv: list[str], env: dict, accelerator: Accelerator | None, scrub: str) -> None:
    try:
        conn.send(run_engine(argv, env, accelerator, scrub))
    except BaseException as exc:  # report, never hang the parent
        conn.send({"accepted": False, "raised": f"replay-harness:{type(exc).__name__}", "message": str(exc)})
    finally:
        conn.close()


def run_isolated(
    argv: list[str], env: dict, accelerator: Accelerator | None, scrub: str, timeout: float = 300
) -> dict:
    """One command in a forked child: env vars, platform overrides and resolution state stay there."""
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, argv, env, accelerator, scrub))
    process.start()
    child.close()
    if parent.poll(timeout):
        result = parent.recv()
    else:
        result = {"accepted": False, "raised": "replay-harness:timeout", "message": f"over {timeout} s"}
    process.join(10)
    if process.is_alive():
        process.kill()
    return result


# ------------------------------------------------------------------------------------------ one recipe
def _classify(config: dict, reads: dict[str, dict], unknown: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(KB-unknown fields the engine read, ``name=value`` of fields it read that config.json lacks)."""
    text = config.get("text_config", {})
    read_unknown, defaults = set(), set()
    for label, fields in reads.items():
        nested = label.endswith("_text") and "text_config" in config
        given = text if nested else config
        prefix = "text_config." if nested else ""
        for name, value in fields.items():
            if name in given or (not nested and name in text and value == text[name]):
                continue
            if name in unknown:
                read_unknown.add(prefix + name)
            elif value != "<config>":
                defaults.add(f"{prefix}{name}={json.dumps(value, ensure_ascii=False)[:60]}")
    return sorted(read_unknown), sorted(defaults)


def replay_one(inputs: ReplayInput, workdir: Path) -> dict:
    entry: dict[str, Any] = {
        "hash": inputs.digest(),
        "model": inputs.model,
        "accelerator": inputs.accelerator.id if inputs.accelerator else None,
    }
    folder = workdir / inputs.recipe
    if not inputs.replayable:
        entry.update(
            status="not-replayable", missing=list(inputs.missing), also_unknown=list(inputs.also_unknown)
        )
        if "source" in inputs.variants:  # the correction's effect on the model-independent checks
            entry["stand_in"] = _variants(inputs, folder / "stand-in", STAND_IN_CONFIG)
        return entry
    # keep the checkpoint's name in the path the engine sees (some hooks look at it)
    checkpoint = _checkpoint(inputs.variants["published"]) or inputs.model
    variants = _variants(inputs, folder / checkpoint, inputs.config)
    read_unknown = sorted({f for v in variants.values() for f in v.pop("read_unknown")})
    defaults = sorted({f for v in variants.values() for f in v.pop("class_defaults")})
    if read_unknown:
        entry.update(status="not-replayable", missing=read_unknown, also_unknown=list(inputs.also_unknown))
        return entry
    entry.update(status="replayed", class_defaults=defaults, variants=variants)
    return entry


def _checkpoint(text: str) -> str | None:
    words = text.replace("\\\n", " ").split()
    for i, word in enumerate(words[:-1]):
        if word == "--model-path":
            return words[i + 1]
    return None


def _variants(inputs: ReplayInput, model_dir: Path, config: dict) -> dict[str, dict]:
    model_dir.mkdir(parents=True, exist_ok=True)
    (model_dir / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    out = {}
    for name, text in inputs.variants.items():
        argv, env = _argv_and_env(text, model_dir)
        result = run_isolated(argv, env, inputs.accelerator, scrub=str(model_dir))
        reads = result.pop("config_reads", {})
        if config is not STAND_IN_CONFIG:
            result["read_unknown"], result["class_defaults"] = _classify(config, reads, inputs.also_unknown)
        out[name] = result
    return out


# ------------------------------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    import importlib.metadata

    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--stale", action="store_true", help="only recipes whose inputs changed (and new ones)")
    cli.add_argument("recipes", nargs="*", help="only these recipe ids")
    args = cli.parse_args(argv)
    kb = load_kb()
    version = kb.handbook.engine_version
    installed = importlib.metadata.version("sglang")
    if installed != version:
        print(f"✖ sglang {installed} is installed; the handbook is pinned to {version}: "
              f"run nox -s engine-snapshot -- {version}", file=sys.stderr)  # fmt: skip
        return 2
    os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
    for name in [k for k in os.environ if k.startswith(("SGLANG_", "SGL_"))]:
        del os.environ[name]
    stored = load_replays(version) or {"recipes": {}}
    recipes = {r.id: r for r in replayed_recipes(kb)}
    unknown = [rid for rid in args.recipes if rid not in recipes]
    if unknown:
        print(f"✖ not a launch recipe of a KB model: {', '.join(unknown)}", file=sys.stderr)
        return 2
    inputs = {rid: replay_input(recipe, kb) for rid, recipe in recipes.items()}
    if args.recipes:
        chosen = list(args.recipes)
    elif args.stale:
        chosen = [
            rid for rid, i in inputs.items() if stored["recipes"].get(rid, {}).get("hash") != i.digest()
        ]
    else:
        chosen = list(inputs)
    started = time.perf_counter()
    import sglang.srt.server_args  # noqa: F401 - imported once; every child is forked from here

    imported = time.perf_counter() - started
    entries = {rid: e for rid, e in stored["recipes"].items() if rid in recipes}
    with tempfile.TemporaryDirectory(prefix="recipe-replay-") as tmp:
        for rid in chosen:
            began = time.perf_counter()
            entries[rid] = replay_one(inputs[rid], Path(tmp))
            print(f"  {rid}: {_summary(entries[rid])} ({time.perf_counter() - began:.1f} s)", flush=True)
    data = {
        "format": FORMAT,
        "engine": version,
        "wheel": f"sglang {installed}",
        "command": "nox -s engine-replay",
        "recipes": dict(sorted(entries.items())),
    }
    path = replay_path(version)
    write_text(path, dumps_replays(data), root=path.parent)
    total = time.perf_counter() - started
    print(f"\n{len(chosen)} of {len(recipes)} launch recipes replayed in {total:.0f} s "
          f"(import {imported:.0f} s); wrote {path}")  # fmt: skip
    return 0


def _summary(entry: dict) -> str:
    if entry["status"] != "replayed":
        return "not replayable: " + ", ".join(entry["missing"]) + " not published"
    parts = []
    for name, result in entry["variants"].items():
        state = "accepted" if result["accepted"] else f"{result['raised']} at {result['at']}"
        adjusted = [a for a in result["adjusted"] if not a["filled"]]
        parts.append(f"{name} {state}, {len(adjusted)} adjusted")
    return "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
