"""``python -m handbook plan``: the planner page's figures for one model on one accelerator, zh or en.

Exit status: 0 when the plan works, 1 when it cannot (the weights do not fit, or no KV page is left),
2 for bad input (an unknown id, a value out of range).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from handbook.calc import memory
from handbook.calc.launch import model_path, rule_flags, rule_max_running_requests, suggested_command
from handbook.calc.planner_data import kv_dtypes, weight_dtypes
from handbook.cli import report
from handbook.cli.choices import BadInput, resolve
from handbook.cli.common import add_kb, add_lang, dtype_ids, help_text, kb_ids, listed
from handbook.core import arguments
from handbook.core.formatting import thousands
from handbook.core.messages import msg
from handbook.core.paths import KB_ROOT
from handbook.kb.loader import KB, KBInvalid, load_kb
from handbook.render.planner import (
    AUTO_KEYS,
    FIGURE_KEYS,
    NOTE_KEYS,
    PATH_KEYS,
    figure_texts,
    fraction_text,
    note_values,
    size,
)

# What each option names, for "unknown …" (by the option's dest), and each range rule's wording.
WHAT_KEYS = {
    "model": "planner-cli-what-model",
    "gpu": "planner-cli-what-gpu",
    "weights-dtype": "planner-cli-what-weights-dtype",
    "kv-dtype": "planner-cli-what-kv-dtype",
}
RULE_KEYS = {
    "fraction": "planner-cli-rule-fraction",
    "ratio": "planner-cli-rule-ratio",
    "positive": "planner-cli-rule-positive",
    "ep": "planner-cli-rule-ep",
    "free": "planner-cli-rule-free",
}

# The largest counts the KB's schema allows (GpuCount, Tokens), for every option that counts GPUs or tokens;
# the smallest and the fractions' ranges are _check_ranges', in the command's own words
GPUS, TOKENS = arguments.whole(None, 100_000), arguments.whole(None, 100_000_000)


def _check_ranges(args: argparse.Namespace, lang: str) -> None:
    """The numeric flags' ranges, checked before planning so the message names the flag as typed."""
    fraction, ratio = args.mem_fraction_static, args.swa_full_tokens_ratio
    checks = [
        ("--mem-fraction-static", fraction, fraction is None or 0 < fraction < 1, "fraction"),
        ("--swa-full-tokens-ratio", ratio, ratio is None or 0 < ratio <= 1, "ratio"),
        ("--free-gib", args.free_gib, args.free_gib is None or args.free_gib > 0, "free"),
        ("--tp", args.tp, args.tp is None or args.tp >= 1, "positive"),
        ("--ep", args.ep, args.ep >= 1, "positive"),
        ("--context", args.context, args.context is None or args.context >= 1, "positive"),
        ("--page-size", args.page_size, args.page_size is None or args.page_size >= 1, "positive"),
        (
            "--max-total-tokens",
            args.max_total_tokens,
            args.max_total_tokens is None or args.max_total_tokens >= 1,
            "positive",
        ),
        (
            "--max-running-requests",
            args.max_running_requests,
            args.max_running_requests is None or args.max_running_requests >= 1,
            "positive",
        ),
    ]
    if args.tp is not None and args.tp >= 1 and args.ep >= 1:
        checks.append(("--ep", args.ep, args.tp % args.ep == 0, "ep"))
    for flag, value, ok, rule in checks:
        if not ok:
            rule_text = msg(RULE_KEYS[rule], lang, tp=args.tp)
            raise BadInput(msg("planner-cli-range", lang, flag=flag, rule=rule_text, value=value))


def run_plan(args: argparse.Namespace, kb: KB) -> int:
    lang = args.lang
    _check_ranges(args, lang)

    def pick(what: str, value: str, choices: dict[str, str]) -> str:
        return resolve(lang, WHAT_KEYS[what], value, choices)

    model = kb.models[pick("model", args.model, {m.id: m.name for m in kb.models.values()})]
    hw = kb.hardware[pick("gpu", args.gpu, {h.id: h.name for h in kb.hardware.values()})]
    offered = weight_dtypes(kb, model)
    weights_id = offered[0] if args.weights_dtype is None else args.weights_dtype
    weights = kb.dtypes[pick("weights-dtype", weights_id, {d: kb.dtypes[d].name for d in offered})]
    kv_id = kv_dtypes(kb)[0] if args.kv_dtype is None else args.kv_dtype
    kv = kb.dtypes[pick("kv-dtype", kv_id, {d: kb.dtypes[d].name for d in kv_dtypes(kb)})]

    lines, errors = [], []
    rules = rule_flags(kb, model)
    options = {
        "mem_fraction_static": args.mem_fraction_static,
        "swa_full_tokens_ratio": args.swa_full_tokens_ratio,
        "free_gib": args.free_gib,
    }
    try:
        context = memory.resolve_context(model, args.context)
        tp = args.tp
        if tp is None:
            auto = memory.auto_tp(model, hw, weights, kv, context=context, **options)
            tp = auto.tp
        running = args.max_running_requests
        if running is None:  # a rule's flag is in the command: the figures size with it too
            running = rule_max_running_requests(rules, tp)
        plan = memory.plan(
            model,
            hw,
            weights,
            kv,
            tp,
            context=context,
            page_size=args.page_size,
            max_total_tokens=args.max_total_tokens,
            ep=args.ep,
            max_running_requests=running,
            **options,
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if (
        args.mem_fraction_static is None
        and plan.mem_fraction_static is not None
        and plan.mem_fraction_static <= 0
    ):
        # the engine's own default for this GPU and TP leaves nothing: no plan to print (not "does not fit")
        raise BadInput(
            msg(
                "planner-cli-no-default-fraction",
                lang,
                tp=plan.tp,
                gpu=hw.name,
                fraction=fraction_text(plan.mem_fraction_static),
            )
        )
    values = note_values(plan, model, hw, lang)

    ep = f", EP {plan.ep}" if plan.ep > 1 else ""
    fraction = fraction_text(plan.mem_fraction_static) if plan.mem_fraction_static is not None else "—"
    lines.append(
        msg(
            "planner-cli-plan",
            lang,
            model=model.name,
            gpu=hw.name,
            tp=plan.tp,
            ep=ep,
            weights=weights.name,
            kv=kv.name,
            fraction=fraction,
            context=thousands(plan.context),
        )
    )
    if args.tp is None:
        lines.append(msg(AUTO_KEYS[auto.basis], lang, **{**values, "tp": auto.tp}))
    lines.append("")
    texts = figure_texts(plan, model, lang)
    label_end, heading_end = msg("sep-label", lang), msg("sep-heading", lang)
    for key, label in FIGURE_KEYS.items():
        lines.append(msg(label, lang, **values) + label_end + texts[key])
    notes = [msg(NOTE_KEYS[code], lang, **values) for code in plan.notes]
    if notes:
        lines += ["", msg("planner-notes", lang) + heading_end] + [f"  - {note}" for note in notes]
    found = model_path(kb, model, weights.id)
    lines += ["", msg("planner-command", lang) + heading_end, suggested_command(kb, plan)]
    if found.basis != "checkpoint":
        lines.append(msg(PATH_KEYS[found.basis], lang, dtype=weights.name, path=found.path or ""))
    if plan.aiter_scaled:
        lines.append(msg("planner-command-aiter", lang))
    lines += ["", msg("planner-basis", lang, version=kb.handbook.engine_version)]
    print("\n".join(lines))

    if plan.weights_fit is False:
        errors.append(
            msg(
                "planner-weights-do-not-fit",
                lang,
                weights=size(plan.weights_per_gpu),
                fraction=fraction,
                budget=size(plan.static_bytes),
                short=size(plan.shortfall_bytes),
            )
        )
        fitting = memory.smallest_tp(model, hw, weights, kv, context=context, **options)
        if fitting is not None:
            errors.append(msg("planner-cli-smallest-tp", lang, tp=fitting))
    elif plan.refused and plan.state_slots is not None and plan.state_slots <= 0:
        errors.append(msg("planner-state-no-room", lang))
    elif plan.fits is False:
        errors.append(msg("planner-no-room", lang, page=plan.page_size))
    if errors:
        print("✖ " + " ".join(errors), file=sys.stderr)
        return 1
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        kb = load_kb(Path(args.kb))
    except KBInvalid as exc:
        report(exc.problems)
        return 2  # bad input: 1 means the plan does not fit
    try:
        return run_plan(args, kb)
    except BadInput as exc:
        print(f"✖ {exc}", file=sys.stderr)
        return 2


DESCRIPTION_KEY = "cli-plan-description"


def configure(plan: argparse.ArgumentParser, lang: str = "en") -> None:
    def text(key: str, **values: object) -> str:
        return help_text(key, lang, **values)

    kv = dtype_ids("kv")
    name = arguments.text
    plan.add_argument(
        "--model", required=True, type=name, help=text("cli-help-model", choices=listed(kb_ids("models")))
    )
    plan.add_argument(
        "--gpu", required=True, type=name, help=text("cli-help-gpu", choices=listed(kb_ids("hardware")))
    )
    plan.add_argument("--tp", type=GPUS, help=text("cli-help-tp"))
    plan.add_argument("--ep", type=GPUS, default=1, help=text("cli-help-ep"))
    plan.add_argument(
        "--weights-dtype",
        type=name,
        help=text("cli-help-weights-dtype", choices=listed(dtype_ids("weights"))),
    )
    plan.add_argument(
        "--kv-dtype",
        type=name,
        help=text("cli-help-kv-dtype", choices=listed(kv), default=kv[0] if kv else "—"),
    )
    plan.add_argument("--mem-fraction-static", type=arguments.finite, help=text("cli-help-mem-fraction"))
    plan.add_argument("--context", type=TOKENS, help=text("cli-help-context"))
    plan.add_argument("--free-gib", type=arguments.finite, help=text("cli-help-free-gib"))
    plan.add_argument("--page-size", type=TOKENS, help=text("cli-help-page-size"))
    plan.add_argument("--max-total-tokens", type=TOKENS, help=text("cli-help-max-total-tokens"))
    plan.add_argument("--max-running-requests", type=TOKENS, help=text("cli-help-max-running-requests"))
    plan.add_argument("--swa-full-tokens-ratio", type=arguments.finite, help=text("cli-help-swa-ratio"))
    add_lang(plan, lang)
    add_kb(plan, lang, default=str(KB_ROOT))
