"""The launch command a plan suggests: the flags that make the server size its memory as planned, plus
the ones the KB's checker rules require of the model (kb/rules.yaml).

The checkpoint comes from the KB only: the precision's own checkpoint, else the --model-path of one of the
handbook's commands for the model (with the same precision, or with none stated, which the planner says).
When neither exists the command keeps the ``<model>`` placeholder the handbook's own docker example uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from handbook.calc import sizing
from handbook.calc.memory import Plan, default_swa_ratio, has_sliding_window
from handbook.calc.recipe_text import MODULES
from handbook.kb.common import flags_in
from handbook.kb.loader import KB
from handbook.kb.schema import Dtype, Model

PLACEHOLDER = "<model>"
MODEL_PATH_FLAGS = ("--model-path", "--model")

Basis = Literal["checkpoint", "recipe", "recipe-unstated-precision"]


@dataclass(frozen=True)
class ModelPath:
    path: str | None  # None: nothing in the KB names a checkpoint for this precision
    basis: Basis | None


def model_path(kb: KB, model: Model, dtype_id: str) -> ModelPath:
    """The checkpoint to launch ``model`` in ``dtype_id``, and what the KB bases it on."""
    for precision in model.precisions:
        if precision.dtype == dtype_id and precision.checkpoint:
            return ModelPath(precision.checkpoint, "checkpoint")
    same, unstated = None, None
    # a command whose precision is unstated but whose path is another precision's checkpoint runs that one
    others = {p.checkpoint for p in model.precisions if p.dtype != dtype_id and p.checkpoint}
    for recipe in kb.recipes.values():  # in id order: the choice is stable
        if recipe.model != model.id or recipe.program != "launch_server":
            continue
        paths = [values[0] for flag, values in flags_in(recipe.flags) if flag in MODEL_PATH_FLAGS and values]
        if not paths:
            continue
        if recipe.precision == dtype_id and same is None:
            same = paths[0]
        elif recipe.precision is None and unstated is None and paths[0] not in others:
            unstated = paths[0]
    if same is not None:
        return ModelPath(same, "recipe")
    if unstated is not None:
        return ModelPath(unstated, "recipe-unstated-precision")
    return ModelPath(None, None)


@dataclass(frozen=True)
class RuleFlag:
    """A flag kb/rules.yaml asks of this model's commands, with the value the KB gives it."""

    flag: str
    value: str
    # single-gpu: only when TP is 1; multi-gpu: only when TP is above 1 and the flag is not set yet, with
    # ``{tp}`` in the value replaced by the TP
    when: Literal["always", "single-gpu", "multi-gpu"]
    rule: str


def rule_flags(kb: KB, model: Model) -> list[RuleFlag]:
    """What the command checker's model rules require, so the suggested command passes them.

    ``model-value-outside`` (a flag must take one of ``allowed``): its first allowed value, always.
    ``model-single-gpu-unset`` (a flag must be set on one GPU): the value the handbook's own single-GPU
    command for the model gives it; without such a command the KB has no value to offer and none is set.
    ``model-values-differ`` over ``--tp-size`` and another flag (that flag must equal the TP, as
    ``--ep-size`` for a block-quantized MoE checkpoint): the TP, on more than one GPU. It is set for every
    checkpoint of the model, where the rule names one: EP = TP is valid for all of them.
    """
    out = []
    for rule in kb.rules.values():
        params = rule.params
        if rule.program != "launch_server" or model.id not in params.get("models", ()):
            continue
        if rule.predicate == "model-value-outside":
            out.append(RuleFlag(params["flag"], str(params["allowed"][0]), "always", rule.id))
        elif rule.predicate == "model-single-gpu-unset":
            for recipe in kb.recipes.values():
                if recipe.model != model.id or recipe.gpus != 1:
                    continue
                values = [v for flag, v in flags_in(recipe.flags) if flag == params["flag"] and v]
                if values:
                    out.append(RuleFlag(params["flag"], values[0][0], "single-gpu", rule.id))
                    break
        elif rule.predicate == "model-values-differ" and params["flags"][0] == "--tp-size":
            out.append(RuleFlag(params["flags"][1], "{tp}", "multi-gpu", rule.id))
    return out


def number(x: float) -> str:
    """A flag value as both Python and JavaScript print it (1.0 → "1", 0.85 → "0.85")."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def rule_max_running_requests(rules: Sequence[RuleFlag], tp: int) -> int | None:
    """The --max-running-requests a rule adds to this TP's command: the plan must size with it too."""
    for rule in rules:
        if rule.flag == "--max-running-requests" and (rule.when == "always" or tp == 1):
            return int(rule.value)
    return None


def launch_flags(
    plan: Plan, model: Model, kv: Dtype, path: str | None, rules: Sequence[RuleFlag] = ()
) -> list[tuple[str, str]]:
    """(flag, value) pairs, in the order the command lists them: the memory plan's, then ``rules``'."""
    if model.id != plan.model:
        raise ValueError(f"{model.id}: expected the plan's model ({plan.model})")
    if kv.id != plan.kv_dtype or kv.engine_kv_value is None:
        raise ValueError(f"{kv.id}: expected the plan's KV dtype ({plan.kv_dtype}) with an engine spelling")
    flags = [("--model-path", path or PLACEHOLDER), ("--tp-size", str(plan.tp))]
    if plan.ep > 1:
        flags.append(("--ep-size", str(plan.ep)))
    # the engine's default fraction is left to the engine (it derives it per GPU and TP, and lowers it for
    # multimodal models only when none is given); a given one is passed on
    if plan.mem_fraction_given is not None:
        flags.append(("--mem-fraction-static", number(plan.mem_fraction_given)))
    flags.append(("--kv-cache-dtype", sizing.kv_cache_dtype_flag(model, kv)))
    if plan.context_native is None or plan.context != plan.context_native:
        flags.append(("--context-length", str(plan.context)))
    if plan.page_size_given:
        flags.append(("--page-size", str(plan.page_size)))
    if plan.max_total_tokens is not None:
        flags.append(("--max-total-tokens", str(plan.max_total_tokens)))
    if plan.max_running_requests_given is not None:
        flags.append(("--max-running-requests", str(plan.max_running_requests_given)))
    if has_sliding_window(model) and plan.swa_full_tokens_ratio != default_swa_ratio(model, plan.platform):
        flags.append(("--swa-full-tokens-ratio", number(plan.swa_full_tokens_ratio)))
    present = {flag for flag, _ in flags}
    for rule in rules:
        if rule.flag in present:
            continue
        if rule.when == "multi-gpu":
            if plan.tp > 1:
                flags.append((rule.flag, rule.value.replace("{tp}", str(plan.tp))))
        elif rule.when == "always" or plan.tp == 1:
            flags.append((rule.flag, rule.value))
    return flags


def launch_command(
    plan: Plan, model: Model, kv: Dtype, path: str | None, rules: Sequence[RuleFlag] = ()
) -> str:
    """``python -m sglang.launch_server \\`` with one flag per continued line."""
    lines = [f"python -m {MODULES['launch_server']}"]
    lines += [f"  {flag} {value}" for flag, value in launch_flags(plan, model, kv, path, rules)]
    return " \\\n".join(lines)


def suggested_command(kb: KB, plan: Plan) -> str:
    """The planner's command for ``plan``: the KB's checkpoint for its precision, the model's rule flags."""
    model = kb.models[plan.model]
    path = model_path(kb, model, plan.weights_dtype).path
    return launch_command(plan, model, kb.dtypes[plan.kv_dtype], path, rule_flags(kb, model))
