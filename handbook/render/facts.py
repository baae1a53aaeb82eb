"""Renderers that chapters 00–02 and the home page need beyond the shared ones: the handbook's own dates,
one value that several models share, a claim's bare number inside a formula, and the MHA / GQA / MQA table.
"""

from __future__ import annotations

from datetime import date

from handbook.core.formatting import sig
from handbook.render.context import RenderContext, esc
from handbook.render.html import table
from handbook.render.landscape import claim_value, fact
from handbook.render.markers import RenderError, renderer

HANDBOOK_FIELDS = ("title", "engine", "engine_version", "engine_released", "verified")

# What each head layout puts for n_kv_heads into the one KV formula, and its KV relative to MHA. These are
# the definitions of the three layouts (chapter 02), true of every model, so they are not facts of the KB.
KV_HEAD_FORMS = {
    "mha": ("= n_heads", "1×"),
    "gqa": ("= n_heads / g", "1/g"),
    "mqa": ("= 1", "1/n_heads"),
}


@renderer("handbook-fact", inline=True)
def handbook_fact(ctx: RenderContext, field: str) -> str:
    """One value of kb/handbook.yaml: ``<!-- kb:handbook-fact field=verified -->``."""
    if field not in HANDBOOK_FIELDS:
        raise RenderError(f"field {field!r}: expected one of {', '.join(HANDBOOK_FIELDS)}")
    value = getattr(ctx.kb.handbook, field)
    if isinstance(value, date):
        return esc(value.isoformat())
    return esc(ctx.t(value))


@renderer("sources-checked", inline=True)
def sources_checked(ctx: RenderContext, which: str = "last") -> str:
    """The earliest or the latest day this site checked one of its sources (kb/sources/*.yaml ``checked``):
    the site's own verification dates, as against the source's (``verified``)."""
    if which not in ("first", "last"):
        raise RenderError("which= takes first or last")
    days = [s.checked for s in ctx.kb.sources.values()]
    return esc((min(days) if which == "first" else max(days)).isoformat())


@renderer("common-fact", inline=True)
def common_fact(ctx: RenderContext, models: str, field: str, format: str = "plain") -> str:
    """The value several models share (``models=a,b field=context.native``); an error if they differ."""
    ids = [m for m in models.split(",") if m]
    if len(ids) < 2:
        raise RenderError("common-fact needs at least two model ids (one model: use kb:fact)")
    shown = {mid: fact(ctx, model=mid, field=field, format=format) for mid in ids}
    if len(set(shown.values())) > 1:
        values = ", ".join(f"{mid} {value}" for mid, value in shown.items())
        raise RenderError(f"the models do not share {field}: {values}")
    return shown[ids[0]]


@renderer("claim-value", inline=True)
def claim_number(ctx: RenderContext, id: str) -> str:
    """A claim's computed number without its unit, for a figure inside a formula (``g=8``, ``1/8``)."""
    _, outcome = claim_value(ctx, id)
    return "–".join(sig(v) for v in outcome.values)


@renderer("kv-heads")
def kv_heads(ctx: RenderContext, families: str = "mha,gqa,mqa") -> str:
    """MHA / GQA / MQA: the n_kv_heads each puts into the one KV formula, its KV relative to MHA, examples."""
    rows = []
    for fid in [f for f in families.split(",") if f]:
        if fid not in ctx.kb.attention:
            raise RenderError(f"{fid!r} is not an attention family id (kb/attention.yaml)")
        if fid not in KV_HEAD_FORMS:
            raise RenderError(f"{fid!r} has no n_kv_heads form: this table covers {', '.join(KV_HEAD_FORMS)}")
        family = ctx.kb.attention[fid]
        n_kv_heads, share = KV_HEAD_FORMS[fid]
        rows.append(
            [
                f"<strong>{esc(family.name)}</strong>",
                f"<code>{esc(n_kv_heads)}</code>",
                esc(share),
                ctx.text_html(family.representatives),
            ]
        )
    if not rows:
        raise RenderError("families= names no family")
    headers = [
        ctx.msg("kv-heads-layout"),
        f"<code>{esc('n_kv_heads')}</code>",
        ctx.msg("kv-heads-share"),
        ctx.msg("kv-heads-examples"),
    ]
    return table(headers, rows)
