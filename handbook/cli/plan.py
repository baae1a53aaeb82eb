"""``python -m handbook plan``: the planner page's figures for one model on one accelerator, zh or en.

Exit status: 0 when the plan works, 1 when it cannot (the weights do not fit, or no KV page is left),
2 for bad input (an unknown id, a value out of range).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
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
from handbook.kb.schema import Dtype, Hardware, Model
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


@dataclass(frozen=True)
class Chosen:
    """What the command names, resolved in the KB: the model, the accelerator and both dtypes."""

    model: Model
    hw: Hardware
    weights: Dtype
    kv: Dtype


@dataclass(frozen=True)
class Computed:
    """The plan, the TP chosen for it when none was given (``auto``), and what a smaller TP is tried with."""

    plan: memory.Plan
    auto: memory.AutoTp | None
    context: int
    options: dict[str, float | None]


def resolve_inputs(args: argparse.Namespace, kb: KB) -> Chosen:
    """Step 1: each id (or name) the command gives, or the default when it gives none, as the KB's entry;
    BadInput names an unknown one and the closest choices."""
    lang = args.lang

    def pick(what: str, value: str, choices: dict[str, str]) -> str:
        return resolve(lang, WHAT_KEYS[what], value, choices)

    model = kb.models[pick("model", args.model, {m.id: m.name for m in kb.models.values()})]
    hw = kb.hardware[pick("gpu", args.gpu, {h.id: h.name for h in kb.hardware.values()})]
    offered = weight_dtypes(kb, model)
    weights_id = offered[0] if args.weights_dtype is None else args.weights_dtype
    weights = kb.dtypes[pick("weights-dtype", weights_id, {d: kb.dtypes[d].name for d in offered})]
    kv_id = kv_dtypes(kb)[0] if args.kv_dtype is None else args.kv_dtype
    kv = kb.dtypes[pick("kv-dtype", kv_id, {d: kb.dtypes[d].name for d in kv_dtypes(kb)})]
    return Chosen(model, hw, weights, kv)


def compute_plan(args: argparse.Namespace, kb: KB, chosen: Chosen) -> Computed:
    """Step 2: the plan at the TP given, or at the one auto_tp suggests; BadInput for values the engine
    refuses, and for an engine default fraction that leaves nothing (no plan to print, not "does not fit")."""
    model, hw, weights, kv = chosen.model, chosen.hw, chosen.weights, chosen.kv
    options = {
        "mem_fraction_static": args.mem_fraction_static,
        "swa_full_tokens_ratio": args.swa_full_tokens_ratio,
        "free_gib": args.free_gib,
    }
    rules = rule_flags(kb, model)
    auto = None
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
        raise BadInput(
            msg(
                "planner-cli-no-default-fraction",
                args.lang,
                tp=plan.tp,
                gpu=hw.name,
                fraction=fraction_text(plan.mem_fraction_static),
            )
        )
    return Computed(plan, auto, context, options)


def _fraction(plan: memory.Plan) -> str:
    return fraction_text(plan.mem_fraction_static) if plan.mem_fraction_static is not None else "—"


def figure_lines(chosen: Chosen, computed: Computed, values: dict[str, object], lang: str) -> list[str]:
    """Step 3: the heading line (what is planned), the auto-TP line when TP was chosen, then a blank line
    and each figure as ``label: text``."""
    plan, auto = computed.plan, computed.auto
    lines = [
        msg(
            "planner-cli-plan",
            lang,
            model=chosen.model.name,
            gpu=chosen.hw.name,
            tp=plan.tp,
            ep=f", EP {plan.ep}" if plan.ep > 1 else "",
            weights=chosen.weights.name,
            kv=chosen.kv.name,
            fraction=_fraction(plan),
            context=thousands(plan.context),
        )
    ]
    if auto is not None:
        lines.append(msg(AUTO_KEYS[auto.basis], lang, **{**values, "tp": auto.tp}))
    lines.append("")
    texts = figure_texts(plan, chosen.model, lang)
    label_end = msg("sep-label", lang)
    lines += [msg(label, lang, **values) + label_end + texts[key] for key, label in FIGURE_KEYS.items()]
    return lines


def note_lines(plan: memory.Plan, values: dict[str, object], lang: str) -> list[str]:
    """Step 4: a blank line, the notes' heading and one ``  - note`` per note code; nothing without notes."""
    notes = [msg(NOTE_KEYS[code], lang, **values) for code in plan.notes]
    if not notes:
        return []
    return ["", msg("planner-notes", lang) + msg("sep-heading", lang)] + [f"  - {note}" for note in notes]


def command_lines(kb: KB, chosen: Chosen, plan: memory.Plan, lang: str) -> list[str]:
    """Step 5: the suggested launch command, where its model path comes from when it is not the
    checkpoint's own, the AITER note when the plan scaled for it, and the engine version it was sized with."""
    found = model_path(kb, chosen.model, chosen.weights.id)
    lines = ["", msg("planner-command", lang) + msg("sep-heading", lang), suggested_command(kb, plan)]
    if found.basis != "checkpoint":
        lines.append(msg(PATH_KEYS[found.basis], lang, dtype=chosen.weights.name, path=found.path or ""))
    if plan.aiter_scaled:
        lines.append(msg("planner-command-aiter", lang))
    return [*lines, "", msg("planner-basis", lang, version=kb.handbook.engine_version)]


def failure_messages(chosen: Chosen, computed: Computed, lang: str) -> list[str]:
    """Step 6: why the plan cannot run, if it cannot: the weights do not fit (with the smallest TP that
    would fit, when one does), no room for a request's recurrent state, or no KV page left."""
    plan = computed.plan
    if plan.weights_fit is False:
        errors = [
            msg(
                "planner-weights-do-not-fit",
                lang,
                weights=size(plan.weights_per_gpu),
                fraction=_fraction(plan),
                budget=size(plan.static_bytes),
                short=size(plan.shortfall_bytes),
            )
        ]
        fitting = memory.smallest_tp(
            chosen.model, chosen.hw, chosen.weights, chosen.kv, context=computed.context, **computed.options
        )
        if fitting is not None:
            errors.append(msg("planner-cli-smallest-tp", lang, tp=fitting))
        return errors
    if plan.refused and plan.state_slots is not None and plan.state_slots <= 0:
        return [msg("planner-state-no-room", lang)]
    if plan.fits is False:
        return [msg("planner-no-room", lang, page=plan.page_size)]
    return []


def run_plan(args: argparse.Namespace, kb: KB) -> int:
    lang = args.lang
    _check_ranges(args, lang)
    chosen = resolve_inputs(args, kb)
    computed = compute_plan(args, kb, chosen)
    values = note_values(computed.plan, chosen.model, chosen.hw, lang)
    lines = figure_lines(chosen, computed, values, lang)
    lines += note_lines(computed.plan, values, lang)
    lines += command_lines(kb, chosen, computed.plan, lang)
    print("\n".join(lines))
    errors = failure_messages(chosen, computed, lang)
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
