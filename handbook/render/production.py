"""Chapter 08's production pack: the manifests of every set, the dashboards and the alerts, with links to the
files the build writes under production/ (handbook/production/pack.py)."""

from __future__ import annotations

from handbook.core.text import LANGS
from handbook.production import alerts as alert_rules
from handbook.production import dashboards
from handbook.production.deployments import deployments
from handbook.production.pack import MANIFESTS, ROOT, change_text
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import bullet_list, table
from handbook.render.markers import renderer


def _link(ctx: RenderContext, path: str, label: str) -> str:
    return f'<a href="{attr(ctx.asset(f"{ROOT}/{path}"))}" download><code>{esc(label)}</code></a>'


@renderer("production-manifests")
def production_manifests(ctx: RenderContext) -> str:
    rows, details = [], []
    for deployment in deployments(ctx.kb, ctx.snapshot):
        kinds = sorted({"LeaderWorkerSet" if w.nodes > 1 else "Deployment" for w in deployment.workloads})
        recipes = ", ".join(f"<code>{esc(w.recipe)}</code>" for w in deployment.workloads)
        files = " · ".join(
            _link(ctx, f"{deployment.id}/{name}", name) for name in (MANIFESTS, alert_rules.SCRAPE_FILE)
        )
        rows.append(
            [f"<code>{esc(deployment.id)}</code>", recipes, esc(", ".join([*kinds, "Service"])), files]
        )
        for workload in deployment.workloads:
            lines = [esc(change_text(c, ctx.lang)) for c in workload.changes]
            details.append(f"<p>{esc(ctx.msg('prod-changes-of', name=workload.name))}</p>")
            details.append(bullet_list(lines or [esc(ctx.msg("prod-none"))]))
    headers = [ctx.msg(k) for k in ("prod-col-set", "prod-col-recipes", "prod-col-objects", "prod-col-files")]
    return f"<p>{esc(ctx.msg('prod-apply'))}</p>\n\n" + table(headers, rows) + "\n\n" + "\n\n".join(details)


@renderer("production-dashboards")
def production_dashboards(ctx: RenderContext) -> str:
    items = []
    for kind in ("server", "pd"):
        files = " · ".join(
            _link(ctx, f"sglang-{kind}-{lang}.json", f"sglang-{kind}-{lang}.json") for lang in LANGS
        )
        panels = "、" if ctx.lang == "zh" else ", "
        titles = panels.join(esc(ctx.msg(p.title)) for p in dashboards.KINDS[kind]())
        items.append(f"<strong>{esc(ctx.msg(dashboards.TITLES[kind]))}</strong>: {files}<br>{titles}")
    return f"<p>{esc(ctx.msg('prod-import'))}</p>\n\n" + bullet_list(items)


@renderer("production-alerts")
def production_alerts(ctx: RenderContext) -> str:
    """One item per alert (a six-column table is wider than the page): its rule, what it means, where its
    numbers come from and the section that explains it."""
    items = []
    for alert in alert_rules.alerts(ctx.kb):
        page, _, anchor = alert.anchor.partition("#")
        duration = f" · {esc(ctx.msg('prod-col-for'))} {esc(alert.duration)}" if alert.duration else ""
        items.append(
            f"<strong><code>{esc(alert.name)}</code></strong>: <code>{esc(alert.expr)}</code>{duration}<br>"
            f"{esc(getattr(alert.described, ctx.lang))}<br>"
            f"{esc(ctx.msg('prod-col-threshold'))}: {esc(getattr(alert.threshold_source, ctx.lang))} "
            f'(<a href="{attr(ctx.href(page, anchor))}">#{esc(anchor)}</a>)'
        )
    files = " · ".join(_link(ctx, name, name) for name in (alert_rules.RULES_FILE, alert_rules.TESTS_FILE))
    return f"<p>{esc(ctx.msg('prod-rules-use'))} {files}</p>\n\n" + bullet_list(items)
