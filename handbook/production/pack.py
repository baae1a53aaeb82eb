"""The production pack as files: Prometheus rules and their promtool tests, Grafana dashboards, and for each
multi-node or PD set its Kubernetes objects and a prometheus.yml that scrapes them.

``site_files`` is what the site publishes under ``production/``; ``recipe_files`` is one recipe's folder
(``python -m handbook production --recipe ID --out DIR``). Both are pure functions of the KB and the engine
snapshot: the same inputs give the same bytes.
"""

from __future__ import annotations

import shlex

from handbook.calc.recipe_text import command_text
from handbook.core.messages import msg
from handbook.core.text import LANGS
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb.loader import KB
from handbook.production import alerts, dashboards, manifests
from handbook.production.deployments import Change, Deployment, deployments

ROOT = "production"
MANIFESTS = "manifests.yaml"
KUBERNETES_VERSION = "1.37.0"  # the schemas kubernetes-validate checks the manifests against (strict)


def change_text(change: Change, lang: str) -> str:
    """One change of a workload as the manifests' header and the site list it: kind, words and why."""
    values = dict(change.values)
    text = msg(change.reason, lang, was=change.was or "", words=change.words, **values)
    return f"{change.kind}: {change.words} — {text}"


def _header(kb: KB, snapshot: EngineSnapshot, deployment: Deployment) -> list[str]:
    lines = [msg("prod-header-generated", "en", version=snapshot.sglang_version), ""]
    fill: list[str] = []
    for workload in deployment.workloads:
        recipe = kb.recipes[workload.recipe]
        for lang in LANGS:
            lines.append(msg("prod-header-recipe", lang, recipe=recipe.id, title=recipe.title[lang]))
        lines.append(msg("prod-header-published", "en"))
        lines += ["  " + line for line in command_text(recipe).splitlines()]
        lines.append(msg("prod-header-changes", "en"))
        for lang in LANGS:
            lines += [f"  - {change_text(c, lang)}" for c in workload.changes] or [
                "  " + msg("prod-header-none", lang)
            ]
        if workload.ib_device:
            lines += [
                "  " + msg("prod-header-rdma", lang, anchor=f"#pitfall-{manifests.PIT_RDMA}")
                for lang in LANGS
            ]
        if workload.image == manifests.FILL_IN:
            fill.append(f"{workload.name}: image")
        if any("$(IB_DEVICE)" in a for a in workload.args):
            fill.append(f"{workload.name}: IB_DEVICE")
        lines.append("")
    if any(w.nodes > 1 for w in deployment.workloads):
        lines += [msg("prod-header-lws", lang) for lang in LANGS]
    if fill:
        lines += [msg("prod-header-fill", lang, values=", ".join(fill)) for lang in LANGS]
    lines += [msg("prod-header-validated", lang, version=KUBERNETES_VERSION) for lang in LANGS]
    return lines


def manifests_yaml(kb: KB, snapshot: EngineSnapshot, deployment: Deployment) -> str:
    return manifests.dump_yaml(manifests.objects(deployment), _header(kb, snapshot, deployment))


def _generated(snapshot: EngineSnapshot) -> list[str]:
    return [msg("prod-header-generated", "en", version=snapshot.sglang_version)]


def monitoring_files(
    kb: KB, snapshot: EngineSnapshot, site_url: str, kinds: tuple[str, ...]
) -> dict[str, str]:
    """The alert rules, their promtool tests and the dashboards of ``kinds`` (server, pd), by file name."""
    header = _generated(snapshot)
    healthy = dashboards.healthy_values(kb)
    files = {
        alerts.RULES_FILE: alerts.dump(alerts.rules(kb, site_url), header),
        alerts.TESTS_FILE: alerts.dump(alerts.unit_tests(kb, site_url), header),
    }
    for kind in kinds:
        for lang in LANGS:
            files[f"sglang-{kind}-{lang}.json"] = dashboards.dashboard_json(
                kind, lang, snapshot.sglang_version, healthy
            )
    return files


def deployment_files(
    kb: KB, snapshot: EngineSnapshot, deployment: Deployment, site_url: str
) -> dict[str, str]:
    kind = "pd" if deployment.kind == "pd" else "server"
    targets = [
        f"{w.name}:{w.metrics_port if w.metrics_port is not None else w.port}" for w in deployment.workloads
    ]
    return {
        MANIFESTS: manifests_yaml(kb, snapshot, deployment),
        alerts.SCRAPE_FILE: alerts.dump(alerts.scrape_config(targets), _generated(snapshot)),
        **monitoring_files(kb, snapshot, site_url, (kind,)),
    }


def site_files(kb: KB, snapshot: EngineSnapshot, site_url: str) -> dict[str, str]:
    """Every file of the pack, by its path in the site (under production/)."""
    files = {
        f"{ROOT}/{name}": text
        for name, text in monitoring_files(kb, snapshot, site_url, ("server", "pd")).items()
    }
    for deployment in deployments(kb, snapshot):
        for name, text in deployment_files(kb, snapshot, deployment, site_url).items():
            files[f"{ROOT}/{deployment.id}/{name}"] = text
    return files


class UnknownRecipe(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def deployment_of(kb: KB, snapshot: EngineSnapshot, recipe_id: str) -> Deployment | None:
    if recipe_id not in kb.recipes:
        raise UnknownRecipe(f"--recipe: got '{recipe_id}', expected a recipe id of kb/recipes/")
    for deployment in deployments(kb, snapshot):
        if recipe_id in {w.recipe for w in deployment.workloads} or recipe_id == deployment.title_recipe:
            recipes = {w.recipe for w in deployment.workloads}
            if recipe_id in recipes and not (
                deployment.kind == "pd"
                and recipe_id == "pd-router-local"
                and deployment.id != kb.recipes[recipe_id].deployment
            ):
                return deployment
    return None


def recipe_files(kb: KB, snapshot: EngineSnapshot, recipe_id: str, site_url: str) -> dict[str, str]:
    """One recipe's folder: its set's manifests, scrape config, alerts and dashboards; a recipe in no
    multi-node or PD set gets the alerts and the server dashboards only."""
    deployment = deployment_of(kb, snapshot, recipe_id)
    if deployment is None:
        return monitoring_files(kb, snapshot, site_url, ("server",))
    return deployment_files(kb, snapshot, deployment, site_url)


def shell_words(args: tuple[str, ...]) -> str:
    return " ".join(shlex.quote(a) for a in args)
