"""``<!-- kb:planner -->``: the interactive memory and KV planner's form and result slots.

The markup carries the page's wording (handbook/core/messages/planner.py); docs/assets/planner.js fills it
from the KB export that the build writes beside it, assets/planner-data.json (handbook/calc/planner_data.py),
with the same formulas as handbook/calc/memory.py.
"""

from __future__ import annotations

import json

from handbook.calc import sizing
from handbook.calc.launch import number
from handbook.calc.memory import (
    DEFAULT_CONTEXT,
    LOOSE_ABOVE_PERCENT,
    Plan,
    has_sliding_window,
    native_context,
)
from handbook.calc.planner_data import common_context
from handbook.core.formatting import binary_size, json_safe, sig, thousands
from handbook.core.messages import msg
from handbook.core.messages.planner import MESSAGES as PLANNER_MESSAGES
from handbook.core.text import LANGS
from handbook.core.units import MIB
from handbook.kb.schema import Hardware, Model
from handbook.render.context import RenderContext, attr, esc
from handbook.render.markers import RenderError, renderer

# Result rows, in order: data-figure key → label key.
FIGURE_KEYS = {
    "gpu": "planner-fig-gpu",
    "free": "planner-fig-free",
    "fraction": "planner-fig-fraction",
    "static": "planner-fig-static",
    "rest": "planner-fig-rest",
    "weights": "planner-fig-weights",
    "weights-gpu": "planner-fig-weights-gpu",
    "budget": "planner-fig-budget",
    "state": "planner-fig-state",
    "kv-pool": "planner-fig-kv-pool",
    "kv-token": "planner-fig-kv-token",
    "kv-token-gpu": "planner-fig-kv-token-gpu",
    "page": "planner-fig-page",
    "max-tokens": "planner-fig-max-tokens",
    "swa-tokens": "planner-fig-swa-tokens",
    "requests": "planner-fig-requests",
    "running": "planner-fig-running",
}
# What a plan notes (memory.NOTE_CODES), why a figure is an upper bound (memory.BOUND_CODES), why the TP was
# chosen (memory.AutoTp.basis) and where the command's checkpoint comes from (launch.ModelPath.basis; None:
# nowhere), each → its wording. docs/assets/planner.js builds the same keys from the same codes.
NOTE_KEYS = {
    "bounds": "planner-note-bounds",
    "default-fraction": "planner-note-default-fraction",
    "vlm-fraction": "planner-note-vlm-fraction",
    "aiter": "planner-note-aiter",
    "free-assumed": "planner-note-free-assumed",
    "memory-bound": "planner-note-memory-bound",
    "weights-formula": "planner-note-weights-formula",
    "weights-mixed": "planner-note-weights-mixed",
    "ple-offload": "planner-note-ple-offload",
    "kv-heads-replicated": "planner-note-kv-heads-replicated",
    "mla-replicated": "planner-note-mla-replicated",
    "swa-pool": "planner-note-swa-pool",
    "linear-state": "planner-note-linear-state",
    "state-capped": "planner-note-state-capped",
    "multimodal-reserve": "planner-note-multimodal-reserve",
    "sparse-indexer": "planner-note-sparse-indexer",
    "dsa-fp8-layout": "planner-note-dsa-fp8-layout",
    "qsa-indexer": "planner-note-qsa-indexer",
    "dsv4-pool": "planner-note-dsv4-pool",
    "page-size": "planner-note-page-size",
    "heads-indivisible": "planner-note-heads-indivisible",
    "kv-heads-indivisible": "planner-note-kv-heads-indivisible",
    "kv-dtype-refused": "planner-note-kv-dtype-refused",
    "context-over-native": "planner-note-context-over-native",
    "capped": "planner-note-capped",
    "multi-node": "planner-note-multi-node",
    "multi-node-unknown": "planner-note-multi-node-unknown",
}
BOUND_KEYS = {
    "reported-memory": "planner-bound-reported-memory",
    "vision-config": "planner-bound-vision-config",
    "kv-heads": "planner-bound-kv-heads",
    "architecture": "planner-bound-architecture",
    "platform": "planner-bound-platform",
    "indexer": "planner-bound-indexer",
    "state-dtype": "planner-bound-state-dtype",
    "state-shape": "planner-bound-state-shape",
}
AUTO_KEYS = {
    "headroom": "planner-auto-headroom",
    "weights-only": "planner-auto-weights-only",
    "none-fits": "planner-auto-none-fits",
    "unknown": "planner-auto-unknown",
}
PATH_KEYS = {
    "recipe": "planner-path-recipe",
    "recipe-unstated-precision": "planner-path-recipe-unstated-precision",
    None: "planner-path-none",
}


def fraction_text(x: float) -> str:
    """A fraction as the planner shows it: four significant digits (0.835, 0.7327)."""
    return sig(x, 4)


def size(n_bytes: float) -> str:
    """A memory figure in binary units, negative ones with their sign."""
    return "-" + binary_size(-n_bytes) if n_bytes < 0 else binary_size(n_bytes)


def bound_reasons(plan: Plan, lang: str) -> str:
    return _reasons(plan.bounds, lang)


def _reasons(codes: tuple[str, ...], lang: str) -> str:
    return msg("planner-sep-reasons", lang).join(msg(BOUND_KEYS[code], lang) for code in codes)


def percent_above(upper: int, lower: int) -> str:
    """How many percent ``upper`` lies above ``lower``, rounded up to a tenth (never understated), from the
    integers themselves."""
    tenths = -(-(upper - lower) * 1000 // lower)
    whole, tenth = divmod(tenths, 10)
    return thousands(whole) + (f".{tenth}" if tenth else "")


def _because(plan: Plan, codes: tuple[str, ...], lang: str) -> str:
    """Which reasons the looseness is about, where the bound has others too (else they were just given)."""
    if set(codes) == set(plan.bounds):
        return ""
    return msg("planner-loose-because", lang, why=_reasons(codes, lang))


def looseness_text(plan: Plan, lang: str) -> str:
    """How loose the token bound can be, from the plan's own figures (planner.js loosenessText): the range,
    and past LOOSE_ABOVE_PERCENT why and which KB fields would make it exact; where no other extreme is
    provable, that. Empty for a plan without one, or whose bound is 0 (the engine refuses either way)."""
    fields = ", ".join(plan.exact_fields)
    if fields:
        exact = msg("planner-loose-exact", lang, fields=fields)
    else:
        exact = msg("planner-loose-exact-platform", lang)
    if plan.unproven:
        return msg("planner-loose-unknown", lang, because=_because(plan, plan.unproven, lang), exact=exact)
    lower, upper = plan.tokens_lower, plan.max_tokens
    if lower is None or upper is None or upper == 0:  # 0: the engine refuses at every extreme
        return ""
    because = _because(plan, plan.loose, lang)
    if lower == 0:
        return msg("planner-loose-refuse", lang, value=thousands(upper), because=because, exact=exact)
    values = {"lower": thousands(lower), "value": thousands(upper)}
    percent = percent_above(upper, lower)
    if not plan.looser_than_stated:
        return msg("planner-loose-within", lang, percent=percent, **values)
    return msg(
        "planner-loose-beyond",
        lang,
        percent=percent,
        stated=LOOSE_ABOVE_PERCENT,
        because=because,
        exact=exact,
        **values,
    )


def note_values(plan: Plan, model: Model, hw: Hardware, lang: str) -> dict[str, object]:
    """What the notes' wording can name (planner.js passes the same values)."""
    c = model.config
    defaults = sizing.engine_defaults()
    indexer_layers = sizing.dsa_indexer_layers(model)
    ratio_layers = sizing.dsv4_ratio_layers(model) or {}
    return {
        "tp": plan.tp,
        "heads": c.num_attention_heads,
        "kv_heads": c.num_key_value_heads,
        "sliding": c.layer_types_count.get("sliding_attention", 0),
        "linear": c.layer_types_count.get("linear_attention", 0),
        "ratio": number(plan.swa_full_tokens_ratio),
        "topk": c.index_topk,
        "context": thousands(plan.context),
        "native": thousands(plan.context_native) if plan.context_native else "",
        "default": fraction_text(plan.mem_fraction_default) if plan.mem_fraction_default is not None else "",
        "fraction": fraction_text(plan.mem_fraction_static) if plan.mem_fraction_static is not None else "",
        "nominal": sig(hw.memory_gb) if hw.memory_gb is not None else "",
        "params": thousands(plan.weights_params) if plan.weights_params is not None else "",
        "formula": plan.weights_formula or "",
        "mamba_ratio": number(defaults.mamba_full_memory_ratio),
        "slots": thousands(plan.state_slots) if plan.state_slots is not None else "",
        "mm": thousands(defaults.vlm_cache_mib),
        "indexer": thousands(plan.indexer_bytes_per_token) if plan.indexer_bytes_per_token else "",
        "indexer_layers": indexer_layers if indexer_layers is not None else "",
        "row": sizing.dsa_row(model, False, 1) if "dsa-fp8-layout" in plan.notes else "",
        "compress": c.indexer_compress_ratio or "",
        "c4_layers": ratio_layers.get(sizing.DSV4_C4_RATIO, ""),
        "c128_layers": ratio_layers.get(sizing.DSV4_C128_RATIO, ""),
        "window": c.sliding_window or "",
        "dsv4_running": sizing.DSV4_MAX_RUNNING_REQUESTS,
        "accepted": ", ".join(v for v in sizing.DSV4_KV_CACHE_DTYPES if v != "auto"),
        "page": plan.page_size,
        "backend": plan.attention_backend or "",
        "gpu": hw.name,
        "per_node": hw.gpus_per_node or "",
        "reasons": bound_reasons(plan, lang),
    }


def _kv_text(per_token: float) -> str:
    return f"{thousands(per_token)} B ({binary_size(per_token)})"


def figure_texts(plan: Plan, model: Model, lang: str) -> dict[str, str]:
    """Each result row's text, keyed like the page's ``data-figure`` cells (planner.js writes the same)."""

    def unpublished(*parts: str) -> str:
        fields = [f for part in parts for f in plan.missing.get(part, ())]
        return msg("planner-not-published-fields", lang, fields=", ".join(dict.fromkeys(fields)))

    reasons = bound_reasons(plan, lang)
    looseness = looseness_text(plan, lang)

    def shown(key: str, text: str) -> str:
        """A figure computed from a bound: ≤ (≈ for what lies outside the budget); the headline figure says
        why, the others point to the note that does."""
        if key not in plan.bounded:
            return text
        if key == "max-tokens":
            if looseness:
                return msg("planner-bounded-range", lang, value=text, reasons=reasons, looseness=looseness)
            return msg("planner-bound", lang, value=text, reasons=reasons)
        return ("≈ " if key == "rest" else "≤ ") + text

    def sized(key: str, value: float | None, *parts: str) -> str:
        return shown(key, size(value)) if value is not None else unpublished(*parts)

    everything = ("memory", "weights", "kv")
    out: dict[str, str] = {}
    if plan.device_mib is None:
        out["gpu"] = unpublished("memory")
    else:
        device = size(plan.device_mib * MIB)
        nominal = sig(plan.nominal_gb) if plan.nominal_gb is not None else "—"
        if "reported-memory" in plan.bounds:
            text = msg("planner-gpu-bound", lang, size=device, gb=nominal)
        else:
            text = msg("planner-gpu-reported", lang, size=device, mib=thousands(plan.device_mib), gb=nominal)
        out["gpu"] = shown("gpu", text)
    out["free"] = sized("free", plan.free_bytes, "memory")
    if plan.mem_fraction_static is None:
        out["fraction"] = unpublished("memory")
    else:
        value = fraction_text(plan.mem_fraction_static)
        base = plan.mem_fraction_given if plan.mem_fraction_given is not None else plan.mem_fraction_default
        if plan.aiter_scaled:
            text = msg("planner-fraction-aiter", lang, value=value, base=fraction_text(base))
        elif plan.mem_fraction_given is not None:
            text = msg("planner-fraction-given", lang, value=value)
        else:
            text = msg("planner-fraction-default", lang, value=value, tp=plan.tp)
        out["fraction"] = shown("fraction", text)
    out["static"] = sized("static", plan.static_bytes, "memory")
    out["rest"] = sized("rest", plan.rest_bytes, "memory")
    if plan.weights_bytes is None:
        out["weights"] = out["weights-gpu"] = unpublished("weights")
    else:
        whole = size(plan.weights_bytes)
        if plan.weights_params is not None:
            whole = msg("planner-weights-formula", lang, size=whole, params=thousands(plan.weights_params))
        out["weights"] = whole
        out["weights-gpu"] = size(plan.weights_per_gpu)
    out["budget"] = sized("budget", plan.kv_budget_bytes, "memory", "weights")
    linear_missing = [name for name in sizing.LINEAR_FIELDS if getattr(model.config, name) is None]
    if "linear-state" not in plan.notes:
        out["state"] = msg("planner-not-applicable", lang)
    elif plan.kv_budget_bytes is None:
        out["state"] = unpublished("memory", "weights")
    elif linear_missing:
        out["state"] = msg("planner-not-published-fields", lang, fields=", ".join(linear_missing))
    elif plan.state_pool_bytes is None:
        out["state"] = "0"
    else:
        text = msg(
            "planner-state-text",
            lang,
            size=size(plan.state_pool_bytes),
            slots=thousands(plan.state_slots),
            per_request=binary_size(plan.state_bytes_per_request),
        )
        out["state"] = shown("state", text)
    out["kv-pool"] = sized("kv-pool", plan.kv_pool_bytes, "memory", "weights")
    if plan.kv_bytes_per_token is None:
        out["kv-token"] = out["kv-token-gpu"] = unpublished("kv")
    else:
        out["kv-token"] = _kv_text(plan.kv_bytes_per_token)
        text = _kv_text(plan.kv_cell_per_gpu)
        if plan.indexer_bytes_per_token:
            text += f" + {msg('planner-indexer', lang)} {_kv_text(plan.indexer_bytes_per_token)}"
        if plan.swa_cell_per_gpu:
            text += f" + {number(plan.swa_full_tokens_ratio)} × SWA {_kv_text(plan.swa_cell_per_gpu)}"
        out["kv-token-gpu"] = text
    if plan.page_size_given:
        out["page"] = msg("planner-page-given", lang, page=plan.page_size)
    elif plan.attention_backend is None:
        out["page"] = shown("page", str(plan.page_size))
    else:
        out["page"] = msg("planner-page-engine", lang, page=plan.page_size, backend=plan.attention_backend)

    def counted(key: str, value: int | None) -> str:
        return shown(key, thousands(value)) if value is not None else unpublished(*everything)

    out["max-tokens"] = counted("max-tokens", plan.max_tokens)
    if not has_sliding_window(model):
        out["swa-tokens"] = msg("planner-not-applicable", lang)
    else:
        out["swa-tokens"] = counted("swa-tokens", plan.swa_tokens)
    out["requests"] = counted("requests", plan.max_requests)
    out["running"] = counted("running", plan.max_running_requests)
    return {key: out[key] for key in FIGURE_KEYS}


def messages(lang: str) -> str:
    """The planner's wording in ``lang`` as JSON that is safe inside a <script> element."""
    index = LANGS.index(lang)
    picked = {
        key: pair[index] for key, pair in PLANNER_MESSAGES.items() if not key.startswith("planner-cli-")
    }
    text = json.dumps(picked, ensure_ascii=False, sort_keys=True)
    return json_safe(text)


def _field(ctx: RenderContext, name: str, label_key: str, control: str) -> str:
    return (
        f'<div class="planner-field"><label for="planner-{name}">{esc(ctx.msg(label_key))}</label>'
        f"{control}</div>"
    )


def _select(name: str) -> str:
    return f'<select id="planner-{name}" name="{name}"></select>'


def _number(name: str, **limits: object) -> str:
    bounds = "".join(f' {key}="{attr(value)}"' for key, value in limits.items())
    return f'<input id="planner-{name}" name="{name}" type="number" inputmode="decimal"{bounds}>'


@renderer("planner")
def planner(ctx: RenderContext) -> str:
    """The planner: model, accelerator, TP/EP, dtypes, --mem-fraction-static, context → one GPU's budget."""
    fields = [
        _field(ctx, "model", "planner-model", _select("model")),
        _field(ctx, "gpu", "planner-gpu", _select("gpu")),
        _field(ctx, "tp", "planner-tp", _select("tp")),
        _field(ctx, "ep", "planner-ep", _select("ep")),
        _field(ctx, "weights-dtype", "planner-weights-dtype", _select("weights-dtype")),
        _field(ctx, "kv-dtype", "planner-kv-dtype", _select("kv-dtype")),
        _field(
            ctx,
            "mem-fraction-static",
            "planner-mem-fraction",
            _number("mem-fraction-static", min="0.01", max="0.99", step="0.01"),
        ),
        _field(
            ctx,
            "context",
            "planner-context",
            _number("context", min="1", step="1")
            # the model's own maximum, one click away (the page opens on a context every model serves)
            + '<button type="button" class="planner-context-max" hidden></button>',
        ),
    ]
    advanced = [
        _field(ctx, "free-gib", "planner-free-gib", _number("free-gib", min="0.01", step="0.01")),
        _field(ctx, "page-size", "planner-page-size", _number("page-size", min="1", step="1")),
        _field(
            ctx,
            "max-total-tokens",
            "planner-max-total-tokens",
            _number("max-total-tokens", min="1", step="1"),
        ),
        _field(
            ctx,
            "max-running-requests",
            "planner-max-running-requests",
            _number("max-running-requests", min="1", step="1"),
        ),
        _field(
            ctx,
            "swa-full-tokens-ratio",
            "planner-swa-ratio",
            _number("swa-full-tokens-ratio", min="0.01", max="1", step="0.01"),
        ),
    ]
    rows = "".join(
        f'<tr><th scope="row">{esc(ctx.msg(label, context="…"))}</th><td data-figure="{key}"></td></tr>'
        for key, label in FIGURE_KEYS.items()
    )
    parts = [
        f'<div class="planner" data-planner data-lang="{ctx.lang}">',
        f'<script type="application/json" class="planner-messages">{messages(ctx.lang)}</script>',
        f"<noscript><p>{esc(ctx.msg('planner-noscript'))}</p></noscript>",
        '<form class="planner-form" autocomplete="off">',
        *fields,
        f'<details class="planner-advanced"><summary>{esc(ctx.msg("planner-advanced"))}</summary>',
        '<div class="planner-advanced-fields">',
        *advanced,
        "</div></details>",
        "</form>",
        '<div class="planner-status" role="status" aria-live="polite">',
        f"{esc(ctx.msg('planner-loading'))}</div>",
        f'<figure class="planner-budget"><figcaption>{esc(ctx.msg("planner-budget"))}</figcaption>',
        '<div class="planner-bar"></div><ul class="planner-legend"></ul></figure>',
        f'<table class="planner-figures"><caption>{esc(ctx.msg("planner-figures"))}</caption>',
        f"<tbody>{rows}</tbody></table>",
        f'<p class="planner-heading">{esc(ctx.msg("planner-notes"))}</p><ul class="planner-notes"></ul>',
        f'<p class="planner-heading">{esc(ctx.msg("planner-command"))}</p>',
        '<pre class="planner-command"><code></code></pre>',
        '<p class="planner-command-note"></p>',
        '<p class="planner-command-aiter"></p>',
        f'<p class="planner-share-line">{esc(ctx.msg("planner-share"))}{ctx.msg("sep-label")}'
        '<a class="planner-share" href="./"></a></p>',
        '<p class="planner-basis"></p>',
        "</div>",
        # Only this page loads the planner's code and style (not every page of the site).
        f'<link rel="stylesheet" href="{attr(ctx.asset("assets/planner.css"))}">',
        f'<script src="{attr(ctx.asset("assets/numbers.js"))}"></script>',
        f'<script src="{attr(ctx.asset("assets/planner.js"))}"></script>',
    ]
    return "\n".join(parts)


@renderer("planner-common-context", inline=True)
def planner_common_context(ctx: RenderContext, part: str = "tokens") -> str:
    """The context the planner opens no model above (``tokens``), the models whose native context it is
    (``models``), or the sentence on the models that publish none and open on the planner's default
    (``unpublished``; empty when every model publishes one): the page says which context it starts from and
    why."""
    if part == "unpublished":
        names = [m.name for m in ctx.kb.models.values() if native_context(m) is None]
        if not names:
            return ""
        return esc(
            ctx.msg(
                "planner-opening-unpublished",
                models=ctx.msg("sep-enum").join(names),
                tokens=thousands(DEFAULT_CONTEXT),
            )
        )
    common = common_context(ctx.kb)
    if common is None:
        raise RenderError("no model publishes a native context")
    if part == "tokens":
        return thousands(common)
    if part == "models":
        names = [m.name for m in ctx.kb.models.values() if native_context(m) == common]
        return esc(ctx.msg("sep-enum").join(names))
    raise RenderError("part= takes tokens, models or unpublished")
