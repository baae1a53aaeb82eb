"""A command sized on the reader's accelerator (``check --gpu ID``, the doctor page's accelerator select).

The command's model (a checkpoint the KB lists), its precision, TP and EP, ``--mem-fraction-static``,
``--context-length``, ``--kv-cache-dtype``, ``--page-size``, ``--max-total-tokens`` and
``--max-running-requests`` go to the planner (``handbook.calc.memory.plan``, the planner page's own
computation, which the browser runs as planner.js), and its figures come back as findings:

- the weights do not fit one GPU's static budget: an error (SGLang refuses to start:
  ``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes`` raises ValueError);
- the KV pool holds fewer tokens than one request of the context: a warning (the engine logs it and caps
  the request length: ``managers/tp_worker.py`` ``get_worker_info``);
- a ``--mem-fraction-static`` above the engine's own default for this GPU and TP: a warning, the handbook's
  advice (less is left outside the budget for CUDA graphs and activations than the engine reserves);
- otherwise a note with the plan's figures.

What the planner does not model is said rather than guessed: pipeline parallelism is not sized; with
attention DP the KV pool is not judged (the planner keeps attention TP = TP); a model or precision the KB
does not name is not sized.
"""

from __future__ import annotations

from typing import Any

from handbook.calc import memory, sizing
from handbook.calc.planner_data import kv_dtypes
from handbook.checker.argv import UNKNOWN, ParsedArgs
from handbook.checker.findings import Finding
from handbook.core.formatting import binary_size, sig, thousands
from handbook.core.messages import message
from handbook.kb.loader import KB

LINK = "planner.md#plan"
LARGEST = 2**31 - 1  # a size beyond this is not sized (nothing the planner takes comes near it)
# The integer flags the planner reads, by dest.
INTEGERS = (
    "tp_size",
    "ep_size",
    "pp_size",
    "attn_dp_size",
    "context_length",
    "page_size",
    "max_total_tokens",
    "max_running_requests",
)


def checkpoint_of(args: ParsedArgs, kb: KB) -> tuple[str, str] | None:
    """(model id, precision dtype) of the checkpoint --model-path names, as ``check.model_of`` matches it."""
    if "model_path" not in args.given:
        return None
    value = args.given["model_path"].value
    if value is UNKNOWN or not isinstance(value, str):
        return None
    name = value.rstrip("/").rsplit("/", 1)[-1].lower()
    for model in kb.models.values():
        for precision in model.precisions:
            checkpoint = (precision.checkpoint or "").lower()
            if checkpoint and (value.lower() == checkpoint or name == checkpoint.rsplit("/", 1)[-1]):
                return model.id, precision.dtype
    return None


def _int(args: ParsedArgs, dest: str) -> Any:
    """A given integer (UNKNOWN behind a placeholder), else None."""
    if dest not in args.given:
        return None
    value = args.given[dest].value
    return value if value is UNKNOWN or (isinstance(value, int) and not isinstance(value, bool)) else None


def _size(n_bytes: float) -> str:
    return "-" + binary_size(-n_bytes) if n_bytes < 0 else binary_size(n_bytes)


def sizing_findings(args: ParsedArgs, kb: KB, gpu: str, line: int) -> list[Finding]:
    """The planner's verdict on one launch_server command, on ``gpu`` (a KB accelerator id)."""
    hw = kb.hardware[gpu]
    found = checkpoint_of(args, kb)
    if found is None:
        return [Finding("note", "sizing.unsized", message("sizing-no-model", gpu=hw.name), line, link=LINK)]
    model_id, dtype_id = found
    model = kb.models[model_id]
    values = {dest: _int(args, dest) for dest in INTEGERS}
    fraction = args.given["mem_fraction_static"].value if "mem_fraction_static" in args.given else None
    kv_given = args.given["kv_cache_dtype"].value if "kv_cache_dtype" in args.given else "auto"
    if args.is_set("enable_dp_attention") and args.value("enable_dp_attention") is True:
        values["attn_dp_size"] = values["attn_dp_size"] or _int(args, "dp_size")  # the old spelling
    if UNKNOWN in (*values.values(), fraction, kv_given):
        said = message("sizing-placeholder", gpu=hw.name)
        return [Finding("note", "sizing.unsized", said, line, link=LINK)]
    if any(value is not None and value > LARGEST for value in values.values()):
        said = message("sizing-too-large", gpu=hw.name, limit=thousands(LARGEST))
        return [Finding("note", "sizing.unsized", said, line, link=LINK)]
    if fraction is not None and not 0 < fraction < 1:
        return []  # the rules on --mem-fraction-static say what the engine does with it
    if (values["pp_size"] or 1) > 1:
        return [Finding("note", "sizing.unsized", message("sizing-pipeline", gpu=hw.name), line, link=LINK)]
    by_value = {d.engine_kv_value: d for d in kb.dtypes.values() if d.engine_kv_value}
    # the engine reads bf16 and bfloat16 as one dtype (mem_cache/kv_cache_dtype.py:74); DeepSeek-V4's commands
    # must spell it bfloat16 (sizing.DSV4_KV_SPELLINGS)
    by_value |= {alias: by_value[v] for v, alias in sizing.DSV4_KV_SPELLINGS.items() if v in by_value}
    kv = by_value.get(kv_given) if kv_given != "auto" else kb.dtypes[kv_dtypes(kb)[0]]
    if kv is None:
        said = message("sizing-kv-unknown", gpu=hw.name, kv=kv_given)
        return [Finding("note", "sizing.unsized", said, line, link=LINK)]
    tp, ep = values["tp_size"] or 1, values["ep_size"] or 1
    try:
        plan = memory.plan(
            model,
            hw,
            kb.dtypes[dtype_id],
            kv,
            tp,
            ep=ep,
            mem_fraction_static=fraction,
            context=values["context_length"],
            page_size=values["page_size"],
            max_total_tokens=values["max_total_tokens"],
            max_running_requests=values["max_running_requests"],
        )
    except ValueError as exc:
        said = message("sizing-impossible", gpu=hw.name, why=str(exc))
        return [Finding("note", "sizing.unsized", said, line, link=LINK)]
    return _verdict(plan, kb, hw.name, kv.name, (values["attn_dp_size"] or 1) > 1, line)


def _verdict(plan: memory.Plan, kb: KB, gpu: str, kv_name: str, attn_dp: bool, line: int) -> list[Finding]:
    model = kb.models[plan.model]
    what = message(
        "sizing-what",
        gpu=gpu,
        model=model.name,
        dtype=kb.dtypes[plan.weights_dtype].name,
        tp=plan.tp,
        ep=plan.ep,
        kv=kv_name,
    )
    lacking = {part: fields for part, fields in plan.missing.items() if part in ("memory", "weights")}
    if lacking:
        fields = ", ".join(dict.fromkeys(f for part in lacking.values() for f in part))
        said = message("sizing-unpublished", what=what, fields=fields)
        return [Finding("note", "sizing.unsized", said, line, link=LINK)]
    assert plan.weights_per_gpu is not None and plan.static_bytes is not None and plan.free_bytes is not None
    assert plan.mem_fraction_static is not None and plan.rest_bytes is not None
    figures: dict[str, object] = {
        "what": what,
        "weights": _size(plan.weights_per_gpu),
        "static": _size(plan.static_bytes),
        "free": _size(plan.free_bytes),
        "fraction": sig(plan.mem_fraction_static, 4),
        "rest": _size(plan.rest_bytes),
    }
    bound = message("sizing-bound") if plan.bounded else ""
    if plan.weights_fit is False:
        said = message("sizing-weights", bound=bound, **figures)
        return [Finding("error", "sizing.weights", said, line, "--tp-size", link=LINK)]
    if plan.refused:
        said = message("sizing-refused", bound=bound, **figures)
        return [Finding("error", "sizing.weights", said, line, "--tp-size", link=LINK)]
    if "kv" in plan.missing:
        fields = ", ".join(plan.missing["kv"])
        said = message("sizing-kv-unpublished", bound=bound, fields=fields, **figures)
        return [Finding("note", "sizing.plan", said, line, link=LINK)]
    findings: list[Finding] = []
    tokens, context = plan.max_tokens, plan.context
    if tokens is not None and not attn_dp:
        pool = _size(plan.kv_pool_bytes or 0)
        figures.update(tokens=thousands(tokens), context=thousands(context), pool=pool)
        if tokens < context:
            said = message("sizing-kv", bound=bound, **figures)
            findings.append(Finding("warning", "sizing.kv", said, line, "--context-length", link=LINK))
        else:
            requests = thousands(plan.max_requests or 0)
            said = message("sizing-fits", bound=bound, requests=requests, **figures)
            findings.append(Finding("note", "sizing.plan", said, line, link=LINK))
    else:
        said = message("sizing-fits-weights", bound=bound, **figures)
        findings.append(Finding("note", "sizing.plan", said, line, link=LINK))
    default = plan.mem_fraction_default
    if plan.mem_fraction_given is not None and default is not None and plan.mem_fraction_given > default:
        reserve = _size(plan.free_bytes * (1 - default))
        said = message(
            "sizing-fraction",
            gpu=gpu,
            given=sig(plan.mem_fraction_given, 4),
            default=sig(default, 4),
            tp=plan.tp,
            rest=figures["rest"],
            reserve=reserve,
        )
        findings.append(Finding("warning", "sizing.fraction", said, line, "--mem-fraction-static", link=LINK))
    return findings
