"""Replay commands through SGLang's own argument resolution on the CPU: ``nox -s engine-replay``.

Runs INSIDE a virtualenv where the real ``sglang`` wheel is installed (the session builds it like
``engine-snapshot`` does) together with this package. For each command it does what ``launch_server``
does before touching a GPU: ``prepare_server_args(argv + ["--device", "cpu"])``, ``resolve_once()`` and
``check_server_args()``, and records whether the engine raised (type, message, the function that raised),
which fields resolution declared, and which warnings it logged.

What is replayed here: every KB rule whose behaviour is ``established: replay``: its ``example`` command,
with ``--model-path`` (and ``--speculative-draft-model-path``) pointing at a small stand-in
``Qwen2ForCausalLM`` config.json written to a temporary folder. The stand-in exercises every
model-independent hook; the outcome is set beside the rule's claim (raises: the same exception type;
adjusts: the named function declared or logged an adjustment; nothing: resolution did not fail because of
the rule's flags). The KB's recipes are replayed by ``handbook/oracles/recipes.py`` (same session).

Exit status 1 when a rule's claim does not match what the engine does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from handbook.checker.check import entry_points
from handbook.checker.shell import parse_script
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

# A stand-in model: a small dense config that resolution accepts. It stands for "a model", never for a model
# the handbook covers (recipe replays use real configs where the KB has them). Its architecture is one the
# engine does not single out where it picks defaults by architecture: LlamaForCausalLM would get speculative
# decoding's (5, 4, 8) instead of (3, 1, 4) (speculative_hook.py _auto_choose_speculative_params), and so
# turn a topk the real model never gets into a failure (kimi-k3.1-pro-b300-dcp8-full, page size > 1).
STAND_IN_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_attention_heads": 8,
    "num_key_value_heads": 8,
    "head_dim": 32,
    "num_hidden_layers": 2,
    "vocab_size": 1000,
    "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-5,
    "torch_dtype": "bfloat16",
}
MODEL_FLAGS = ("--model-path", "--speculative-draft-model-path")


@dataclass
class Outcome:
    raised: str | None = None  # exception type
    message: str = ""
    where: str | None = None  # file:function of the frame that raised
    declared: list[tuple[str, dict]] = field(default_factory=list)  # (source, fields) resolution declared
    logged: list[tuple[str, str]] = field(default_factory=list)  # (function, message) of WARNING/INFO logs


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def run_engine(argv: list[str], env: dict[str, str]) -> Outcome:
    """One command through prepare_server_args + resolve_once + check_server_args, on the CPU."""
    from sglang.srt.server_args import prepare_server_args

    handler = _Records()
    root = logging.getLogger()
    root.addHandler(handler)
    previous_level = root.level
    root.setLevel(logging.INFO)
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    outcome = Outcome()
    server_args = None
    try:
        server_args = prepare_server_args([*argv, "--device", "cpu"])
        server_args.resolve_once()
        server_args.check_server_args()
    except BaseException as exc:  # every failure of the engine is the result reported
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        outcome.raised = type(exc).__name__
        outcome.message = str(exc)
        outcome.where = f"{frame.filename.split('site-packages/')[-1]}:{frame.name}"
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        root.removeHandler(handler)
        root.setLevel(previous_level)
    if server_args is not None:
        outcome.declared = [
            (source, dict(fields)) for source, fields in getattr(server_args, "_resolved_overrides", ())
        ]
    outcome.logged = [(r.funcName, r.getMessage()) for r in handler.records if r.levelno >= logging.INFO]
    return outcome


def _argv_and_env(text: str, model_dir: Path) -> tuple[list[str], dict[str, str]]:

    script = parse_script(text, *entry_points(load_snapshot()))
    (invocation,) = [i for i in script.invocations if i.program == "launch_server"]
    argv = [w.text for w in invocation.args]
    for i, word in enumerate(argv[:-1]):
        if word in MODEL_FLAGS:
            argv[i + 1] = str(model_dir)
    env = {a.name: a.value.text for a in script.assignments if a.value is not None}
    return argv, env


def judge(rule, outcome: Outcome) -> tuple[bool, str]:
    """Whether the engine did what the rule says, and how it looked."""
    engine = rule.engine
    function = engine.at.function if engine.at else ""
    if engine.does == "raises":
        ok = outcome.raised == engine.raises and (outcome.where or "").endswith(f":{function}")
        return (
            ok,
            f"raised {outcome.raised} at {outcome.where}" if outcome.raised else "resolved without error",
        )
    if engine.does == "adjusts":
        declared = any(function.lstrip("_") in source.lstrip("_") for source, _ in outcome.declared)
        logged = any(name == function for name, _ in outcome.logged)
        seen = "declared" if declared else ("logged" if logged else "no adjustment seen")
        tail = f"; then {outcome.raised} at {outcome.where}" if outcome.raised else ""
        return declared or logged, f"{seen} by {function}{tail}"
    if outcome.raised:
        return False, f"raised {outcome.raised} at {outcome.where}: {outcome.message[:120]}"
    return True, "resolved without error"


def replay_rules(kb, model_dir: Path) -> list[tuple[str, bool, str]]:
    rows = []
    for rule in kb.rules.values():
        if rule.engine.established != "replay" or rule.program != "launch_server":
            continue
        argv, env = _argv_and_env(rule.example, model_dir)
        ok, seen = judge(rule, run_engine(argv, env))
        rows.append((rule.id, ok, f"{rule.engine.does}: {seen}"))
    return rows


def main(argv: list[str] | None = None) -> int:

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    kb = load_kb()
    with tempfile.TemporaryDirectory(prefix="stand-in-model-") as tmp:
        model_dir = Path(tmp)
        (model_dir / "config.json").write_text(json.dumps(STAND_IN_CONFIG), encoding="utf-8")
        with contextlib.redirect_stderr(sys.stdout):
            rules = replay_rules(kb, model_dir)
    print("\nRules (stand-in Qwen2ForCausalLM config, --device cpu):")
    for rule_id, ok, seen in rules:
        print(f"  {'✔' if ok else '✖'} {rule_id}: {seen}")
    failed = [r for r in rules if not r[1]]
    print(f"\n{len(rules) - len(failed)} of {len(rules)} rule claims match the engine.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
