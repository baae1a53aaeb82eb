"""Which checkpoint a command launches and which accelerators a precision's sources name it on: what the
configurator offers and the precision-hardware check holds the KB to."""

from __future__ import annotations

from handbook.calc.launch import MODEL_PATH_FLAGS
from handbook.kb import schema as s
from handbook.kb.common import flags_in
from handbook.kb.loader import KB


def command_precision(kb: KB, recipe: s.Recipe) -> str | None:
    """The precision a launch command runs: the one it states, else the one whose checkpoint it launches,
    else the model's only one."""
    if recipe.precision is not None:
        return recipe.precision
    model = kb.models.get(recipe.model or "")
    if model is None:
        return None
    path = next(
        (values[0] for flag, values in flags_in(recipe.flags) if flag in MODEL_PATH_FLAGS and values), None
    )
    found = [p.dtype for p in model.precisions if p.checkpoint and p.checkpoint == path]
    if found:
        return found[0]
    if len(model.precisions) == 1:
        return model.precisions[0].dtype
    return None


def refusal(kb: KB, precision: s.Precision, hardware: str) -> s.QuantRefusal | None:
    """Where the engine raises loading ``precision``'s quantization on ``hardware`` (None: it does not)."""
    if precision.quantization is None:
        return None
    method = kb.quantizations[precision.quantization]
    return next((r for r in method.refused_on if hardware in r.hardware), None)


def listed_hardware(precision: s.Precision) -> list[str]:
    """The accelerators the precision's sources name, in the order they name them."""
    return list(dict.fromkeys(hw for entry in precision.runs_on for hw in entry.hardware))
