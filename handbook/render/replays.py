"""What the engine's own start-up resolution made of each launch recipe (``nox -s engine-replay``): a block
under each command, and the overview on the compatibility page. The results are read from
``kb/engine/replay-sglang-<version>.json``; a recipe whose inputs changed since is shown as stale, never
with its old outcome."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from handbook.checker.replays import RERUN, entry_for, load_replays, replayed_recipes
from handbook.kb.schema import Recipe
from handbook.render.context import RenderContext, esc
from handbook.render.html import table
from handbook.render.markers import renderer

VARIANT_KEYS = {"source": "replay-variant-source", "published": "replay-variant-published"}


def _data(ctx: RenderContext) -> dict[str, Any] | None:
    return load_replays(ctx.kb.handbook.engine_version)


def _value(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"repr"}:
        value = value["repr"]
    text = value if isinstance(value, str) else repr(value) if value is None else str(value)
    if isinstance(value, bool):
        text = str(value)
    return f"<code>{esc(text)}</code>"


def _is_object(value: Any) -> bool:
    """A value the replay could only record as its repr (a config object): named, not shown."""
    return isinstance(value, dict) and set(value) == {"repr"}


def _mode(ctx: RenderContext, entry: dict[str, Any]) -> str:
    accelerator = entry.get("accelerator")
    if accelerator is None:
        return ctx.msg("replay-mode-cpu")
    hardware = ctx.kb.hardware.get(accelerator)
    name = hardware.name if hardware is not None else accelerator
    return ctx.msg("replay-mode-emulated", accelerator=name)


def _adjusted(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [change for change in result.get("adjusted", []) if not change.get("filled")]


def _outcome(ctx: RenderContext, result: dict[str, Any], cpu: bool = False) -> str:
    """Accepted, or what stopped it (on a bare CPU, a stop may be the CPU's own platform check)."""
    if result.get("accepted"):
        words = ctx.msg("replay-accepted")
    else:
        key = "replay-stopped-cpu" if cpu else "replay-raised"
        words = ctx.msg(key, error=result.get("raised"), at=result.get("at") or "?")
    adjusted = len(_adjusted(result))
    if adjusted:
        words += ctx.msg("replay-adjusted-one" if adjusted == 1 else "replay-adjusted-count", count=adjusted)
    return words


def _result_html(ctx: RenderContext, result: dict[str, Any]) -> str:
    parts = []
    if not result.get("accepted") and result.get("message"):
        parts.append(f"<p><code>{esc(result['message'])}</code></p>")
    rows = []
    for change in _adjusted(result):
        how = f"<code>{esc(change['by'])}</code>"
        if change.get("explicit"):
            how += f" <strong>{esc(ctx.msg('replay-explicit'))}</strong>"
        log = change.get("log")
        if log:
            how += f"<br><small>{esc(log['level'])} {esc(log['at'])}: {esc(log['message'])}</small>"
        rows.append(
            [
                f"<code>{esc(change['field'])}</code>",
                f"{_value(change['from'])} → {_value(change['to'])}",
                how,
            ]
        )
    if rows:
        headers = [ctx.msg("replay-col-field"), ctx.msg("replay-col-change"), ctx.msg("replay-col-by")]
        parts.append(table(headers, rows))
    filled = [c for c in result.get("adjusted", []) if c.get("filled")]
    if filled:
        shown = ", ".join(
            f"<code>{esc(c['field'])}</code>" + ("" if _is_object(c["to"]) else f" = {_value(c['to'])}")
            for c in filled
        )
        parts.append(f"<p><small>{esc(ctx.msg('replay-filled', count=len(filled)))} {shown}</small></p>")
    warnings = result.get("warnings", [])
    if warnings:
        items = "".join(
            f"<li><small>{esc(w['level'])} {esc(w['at'])}: {esc(w['message'])}</small></li>" for w in warnings
        )
        parts.append(f"<p>{esc(ctx.msg('replay-warnings'))}</p><ul>{items}</ul>")
    return "\n".join(parts)


def _both(ctx: RenderContext, variants: dict[str, dict[str, Any]], cpu: bool) -> str:
    """The source's outcome, then the published one, inside a sentence."""
    return ctx.msg(
        "replay-both",
        source=_outcome(ctx, variants["source"], cpu),
        published=_outcome(ctx, variants["published"], cpu),
    )


def _variants_html(ctx: RenderContext, variants: dict[str, dict[str, Any]], cpu: bool) -> str:
    if set(variants) == {"published"}:
        return _result_html(ctx, variants["published"])
    out = []
    for name in ("source", "published"):
        if name in variants:
            label = ctx.msg(VARIANT_KEYS[name]) + ctx.msg("sep-label") + _outcome(ctx, variants[name], cpu)
            out.append(f"<p><strong>{esc(label)}</strong></p>\n" + _result_html(ctx, variants[name]))
    return "\n".join(out)


@dataclass(frozen=True)
class ReplayView:
    """A launch command's replay as its check block shows it: a few words for the status line (HTML) and
    the full account, folded under it (HTML)."""

    short: str
    body: str


# How the replay ended, in a few words for the status line.
SHORT_KEYS = {"accepted": "cmd-replay-accepted", "refused": "cmd-replay-refused", "cpu": "cmd-replay-cpu"}


def _short_outcome(ctx: RenderContext, result: dict[str, Any], cpu: bool) -> str:
    if not result.get("accepted"):
        return ctx.msg(SHORT_KEYS["cpu" if cpu else "refused"], error=result.get("raised"))
    words = ctx.msg(SHORT_KEYS["accepted"])
    adjusted = len(_adjusted(result))
    if adjusted:
        key = "cmd-replay-adjusted-one" if adjusted == 1 else "cmd-replay-adjusted"
        words += ctx.msg(key, count=adjusted)
    return words


def _short(ctx: RenderContext, variants: dict[str, dict[str, Any]], cpu: bool) -> str:
    published = _short_outcome(ctx, variants["published"], cpu)
    if "source" not in variants:
        return ctx.msg("cmd-replay", outcome=published)
    source = _short_outcome(ctx, variants["source"], cpu)
    # "the same" only where both stopped at the same place, not merely with the same words
    if _outcome(ctx, variants["source"], cpu) == _outcome(ctx, variants["published"], cpu):
        return ctx.msg("cmd-replay-same", outcome=published)
    return ctx.msg("cmd-replay-both", published=published, source=source)


def _heading(text: str) -> str:
    return f'<p class="replay-heading"><strong>{esc(text)}</strong></p>'


def replay_view(ctx: RenderContext, recipe: Recipe) -> ReplayView | None:
    """Under a launch command: what SGLang's resolution did with it, or why it was not replayed, or that the
    stored replay is out of date (None for commands that are not replayed: shell, router, benchmark)."""
    if recipe.kind != "launch" or recipe.model is None:
        return None
    version = ctx.kb.handbook.engine_version
    state, entry = entry_for(recipe, ctx.kb, _data(ctx))
    if state == "missing" or entry is None:
        body = f"<p>{esc(ctx.msg('replay-missing', command=RERUN))}</p>"
        return ReplayView(esc(ctx.msg("cmd-replay-missing")), body)
    if state == "stale":
        body = f"<p>{esc(ctx.msg('replay-stale', command=RERUN))}</p>"
        return ReplayView(esc(ctx.msg("cmd-replay-stale")), body)
    cpu = entry.get("accelerator") is None
    note = f"<p><small>{esc(ctx.msg('replay-note-cpu' if cpu else 'replay-note-emulated'))}</small></p>"
    if entry["status"] != "replayed":
        also = entry.get("also_unknown") or []
        blocked = ctx.msg(
            "replay-not-replayable",
            fields=", ".join(entry["missing"]),
            also=ctx.msg("replay-also-unknown", fields=", ".join(also)) if also else "",
        )
        body = [f"<p>{esc(blocked)}</p>"]
        short = ctx.msg("cmd-replay-not-replayable")
        stand_in = entry.get("stand_in")
        if stand_in:
            summary = ctx.msg("replay-summary-stand-in", version=version, mode=_mode(ctx, entry))
            summary += ctx.msg("sep-label") + _both(ctx, stand_in, cpu)
            body += [
                _heading(summary),
                f"<p>{esc(ctx.msg('replay-stand-in'))}</p>",
                _variants_html(ctx, stand_in, cpu),
                note,
            ]
        return ReplayView(esc(short), "\n".join(body))
    variants = entry["variants"]
    outcome = _both(ctx, variants, cpu) if "source" in variants else _outcome(ctx, variants["published"], cpu)
    summary = ctx.msg("replay-summary", version=version, mode=_mode(ctx, entry), outcome=outcome)
    body = [_heading(summary), _variants_html(ctx, variants, cpu)]
    if entry.get("class_defaults"):
        defaults = ", ".join(f"<code>{esc(d)}</code>" for d in entry["class_defaults"])
        body.append(f"<p><small>{esc(ctx.msg('replay-defaults'))} {defaults}</small></p>")
    body.append(note)
    return ReplayView(esc(_short(ctx, variants, cpu)), "\n".join(body))


@renderer("engine-replays")
def engine_replays(ctx: RenderContext) -> str:
    """Every launch recipe's replay in one table: where it ran, its outcome, how many values the engine
    adjusted (beside the defaults it filled in)."""
    data = _data(ctx)
    rows, ids = [], []
    counts = {"replayed": 0, "blocked": 0, "rejected": 0, "stale": 0}
    for recipe in replayed_recipes(ctx.kb):
        state, entry = entry_for(recipe, ctx.kb, data)
        title = esc(ctx.t(recipe.title)) + f"<br><small><code>{esc(recipe.id)}</code></small>"
        ids.append("replay-" + recipe.id)
        if state != "fresh" or entry is None:
            counts["stale"] += 1
            key = "replay-stale" if state == "stale" else "replay-missing"
            rows.append([title, "—", esc(ctx.msg(key, command=RERUN)), "—"])
            continue
        cpu = entry.get("accelerator") is None
        if entry["status"] != "replayed":
            counts["blocked"] += 1
            outcome = ctx.msg("replay-not-replayable", fields=", ".join(entry["missing"]), also="")
            if entry.get("stand_in"):
                outcome += ctx.msg("sep-clause") + ctx.msg("replay-stand-in-short") + ctx.msg("sep-label")
                outcome += _both(ctx, entry["stand_in"], cpu)
            rows.append([title, esc(_mode(ctx, entry)), esc(outcome), "—"])
            continue
        counts["replayed"] += 1
        variants = entry["variants"]
        if not variants["published"].get("accepted"):
            counts["rejected"] += 1
        outcome = (
            _both(ctx, variants, cpu) if "source" in variants else _outcome(ctx, variants["published"], cpu)
        )
        adjusted = len(_adjusted(variants["published"]))
        rows.append([title, esc(_mode(ctx, entry)), esc(outcome), str(adjusted)])
    headers = [
        ctx.msg("versions-compat-col-command"),
        ctx.msg("replays-col-mode"),
        ctx.msg("replays-col-outcome"),
        ctx.msg("replays-col-adjusted"),
    ]
    caption = ctx.msg(
        "replays-caption",
        version=ctx.kb.handbook.engine_version,
        replayed=counts["replayed"],
        blocked=counts["blocked"],
        rejected=counts["rejected"],
        stale=counts["stale"],
    )
    return table(headers, rows, numeric=(3,), row_ids=ids, caption=esc(caption))
