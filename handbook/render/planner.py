"""``<!-- kb:planner -->``: the interactive memory and KV planner's form and result slots.

The markup carries the page's wording (handbook/core/messages/planner.py); docs/assets/planner.js fills it
from the KB export that the build writes beside it, assets/planner-data.json (handbook/calc/planner_data.py),
with the same formulas as handbook/calc/memory.py.
"""

from __future__ import annotations

import json

from handbook.calc.launch import has_sliding_window, number
from handbook.calc.memory import Plan
from handbook.core.formatting import binary_size, gb, thousands
from handbook.core.messages import msg
from handbook.core.messages.planner import MESSAGES as PLANNER_MESSAGES
from handbook.core.text import LANGS
from handbook.kb.schema import Model
from handbook.render.context import RenderContext, attr, esc
from handbook.render.markers import renderer

# Result rows, in order: data-figure key → label key.
FIGURE_KEYS = {
    "gpu": "planner-fig-gpu",
    "static": "planner-fig-static",
    "rest": "planner-fig-rest",
    "weights": "planner-fig-weights",
    "weights-gpu": "planner-fig-weights-gpu",
    "kv-pool": "planner-fig-kv-pool",
    "kv-token": "planner-fig-kv-token",
    "kv-token-gpu": "planner-fig-kv-token-gpu",
    "max-tokens": "planner-fig-max-tokens",
    "swa-tokens": "planner-fig-swa-tokens",
    "requests": "planner-fig-requests",
}
# What a plan notes (memory.NOTE_CODES), why the TP was chosen (memory.AutoTp.basis) and where the
# command's checkpoint comes from (launch.ModelPath.basis; None: nowhere), each → its wording.
# docs/assets/planner.js builds the same keys from the same codes.
NOTE_KEYS = {
    "kv-heads-replicated": "planner-note-kv-heads-replicated",
    "mla-replicated": "planner-note-mla-replicated",
    "swa-pool": "planner-note-swa-pool",
    "linear-state": "planner-note-linear-state",
    "sparse-indexer": "planner-note-sparse-indexer",
    "dsa-fp8-layout": "planner-note-dsa-fp8-layout",
    "heads-indivisible": "planner-note-heads-indivisible",
    "kv-heads-indivisible": "planner-note-kv-heads-indivisible",
    "context-over-native": "planner-note-context-over-native",
    "capped": "planner-note-capped",
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


def note_values(plan: Plan, model: Model) -> dict[str, object]:
    """What the notes' wording can name (planner.js passes the same values)."""
    c = model.config
    return {
        "tp": plan.tp,
        "heads": c.num_attention_heads,
        "kv_heads": c.num_key_value_heads,
        "sliding": c.layer_types_count.get("sliding_attention", 0),
        "ratio": number(plan.swa_full_tokens_ratio),
        "topk": c.index_topk,
        "context": thousands(plan.context),
        "native": thousands(plan.context_native) if plan.context_native else "",
    }


def _kv_text(per_token: int) -> str:
    return f"{thousands(per_token)} B ({binary_size(per_token)})"


def figure_texts(plan: Plan, model: Model, lang: str) -> dict[str, str]:
    """Each result row's text, keyed like the page's ``data-figure`` cells (planner.js writes the same)."""

    def unpublished(*parts: str) -> str:
        fields = [f for part in parts for f in plan.missing.get(part, ())]
        return msg("planner-not-published-fields", lang, fields=", ".join(dict.fromkeys(fields)))

    def sized(value: float | None, *parts: str) -> str:
        return gb(value) if value is not None else unpublished(*parts)

    out = {
        "gpu": sized(plan.gpu_bytes, "memory"),
        "static": sized(plan.static_bytes, "memory"),
        "rest": sized(plan.rest_bytes, "memory"),
        "weights": sized(plan.weights_bytes, "weights"),
        "weights-gpu": sized(plan.weights_per_gpu, "weights"),
        "kv-pool": sized(plan.kv_pool_bytes, "memory", "weights"),
    }
    if plan.kv_bytes_per_token is None:
        out["kv-token"] = out["kv-token-gpu"] = unpublished("kv")
    else:
        out["kv-token"] = _kv_text(plan.kv_bytes_per_token)
        out["kv-token-gpu"] = _kv_text(plan.kv_cell_per_gpu)
        if plan.swa_cell_per_gpu:
            ratio = number(plan.swa_full_tokens_ratio)
            out["kv-token-gpu"] += f" + {ratio} × SWA {_kv_text(plan.swa_cell_per_gpu)}"
    everything = ("memory", "weights", "kv")
    out["max-tokens"] = (
        thousands(plan.max_tokens) if plan.max_tokens is not None else unpublished(*everything)
    )
    if not has_sliding_window(model):
        out["swa-tokens"] = msg("planner-not-applicable", lang)
    elif plan.swa_tokens is None:
        out["swa-tokens"] = unpublished(*everything)
    else:
        out["swa-tokens"] = thousands(plan.swa_tokens)
    out["requests"] = (
        thousands(plan.max_requests) if plan.max_requests is not None else unpublished(*everything)
    )
    return out


def messages(lang: str) -> str:
    """The planner's wording in ``lang`` as JSON that is safe inside a <script> element."""
    index = LANGS.index(lang)
    picked = {
        key: pair[index] for key, pair in PLANNER_MESSAGES.items() if not key.startswith("planner-cli-")
    }
    text = json.dumps(picked, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


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
        _field(ctx, "context", "planner-context", _number("context", min="1", step="1")),
    ]
    advanced = [
        _field(ctx, "page-size", "planner-page-size", _number("page-size", min="1", step="1")),
        _field(
            ctx,
            "max-total-tokens",
            "planner-max-total-tokens",
            _number("max-total-tokens", min="1", step="1"),
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
        f'<p class="planner-share-line">{esc(ctx.msg("planner-share"))}{ctx.msg("sep-label")}'
        '<a class="planner-share" href="./"></a></p>',
        '<p class="planner-basis"></p>',
        "</div>",
        # Only this page loads the planner's code and style (not every page of the site).
        f'<link rel="stylesheet" href="{attr(ctx.asset("assets/planner.css"))}">',
        f'<script src="{attr(ctx.asset("assets/planner.js"))}"></script>',
    ]
    return "\n".join(parts)
