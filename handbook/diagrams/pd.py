"""PD disaggregation set-ups: the prefill, decode and router commands of one deployment, as they connect.

Recipes that run together share a ``deployment`` id; each role's box shows the lines of its command that
say where it runs (hosts, ports, GPUs, nodes, parallel sizes, the RDMA device), exactly as the recipe
writes them. The router's --prefill / --decode URLs label its links to the two instances.
"""

from __future__ import annotations

from collections import defaultdict

from handbook.calc.recipe_text import module_of
from handbook.core.messages import msg
from handbook.core.text import LANGS
from handbook.diagrams.dot import (
    COLOURS,
    DiagramError,
    client_label,
    edge_label,
    h,
    new_graph,
    sentences,
    text_cell,
)
from handbook.diagrams.figure import Drawing, Figure, flags_of
from handbook.kb.common import flag_line_text
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe

ROLES = ("prefill", "decode", "router")
# The flags that place an instance: a flag line is shown when it holds one of these.
PLACEMENT = {
    "--host",
    "--port",
    "--base-gpu-id",
    "--dist-init-addr",
    "--nnodes",
    "--node-rank",
    "--tp-size",
    "--attn-dp-size",
    "--ep-size",
    "--disaggregation-ib-device",
}
ROLE_COLOURS = {"prefill": "#dbeafe", "decode": "#dcfce7", "router": "#ede9fe"}


def deployments(kb: KB) -> dict[str, dict[str, Recipe]]:
    """deployment id → role → recipe, for every deployment of prefill and decode instances."""
    found: dict[str, dict[str, list[Recipe]]] = defaultdict(lambda: defaultdict(list))
    for recipe in kb.recipes.values():
        if recipe.deployment is not None and recipe.role in ROLES:
            found[recipe.deployment][recipe.role].append(recipe)
    out: dict[str, dict[str, Recipe]] = {}
    problems: list[str] = []
    for deployment in sorted(found):
        roles = {role: sorted(recipes, key=lambda r: r.id) for role, recipes in found[deployment].items()}
        for role, recipes in roles.items():
            if len(recipes) > 1:
                for extra in recipes[1:]:
                    problems.append(
                        str(
                            kb.origin(extra).at(
                                ("deployment",),
                                f"deployment {deployment} has a {role} already ({recipes[0].id}); "
                                "the figure draws one per role",
                            )
                        )
                    )
        for role in ("prefill", "decode"):
            if role not in roles:
                some = next(iter(roles.values()))[0]
                problems.append(
                    str(kb.origin(some).at(("deployment",), f"deployment {deployment} has no {role} recipe"))
                )
        out[deployment] = {role: recipes[0] for role, recipes in roles.items()}
    if problems:
        raise DiagramError(problems)
    return out


def title_parts(title: str, lang: str) -> tuple[str, str]:
    """'DeepSeek 多节点 PD 分离：Prefill（…）' → ('DeepSeek 多节点 PD 分离', 'Prefill（…）')."""
    sep = msg("sep-label", lang)
    head, found, tail = title.rpartition(sep)
    if not found:
        return "", title
    return head, tail[:1].upper() + tail[1:]


def placement_lines(kb: KB, recipe: Recipe) -> list[str]:
    """The recipe's flag lines that place the instance, as written."""
    out = []
    for item in recipe.flags:
        line = flag_line_text(item)
        if any(name in PLACEMENT for name, _ in flags_of(kb, [line], recipe.program or "launch_server")):
            out.append(line)
    return out


def flag_value(kb: KB, recipe: Recipe, flag: str) -> str | None:
    for name, values in flags_of(kb, recipe.flags, recipe.program or "launch_server"):
        if name == flag and values:
            return " ".join(values)
    return None


def gpus_line(kb: KB, recipe: Recipe, lang: str) -> str | None:
    if recipe.gpus is None:
        return None
    if len(recipe.hardware) == 1:
        line = msg("fig-pd-gpus-hw", lang, gpus=recipe.gpus, hardware=kb.hardware[recipe.hardware[0]].name)
    else:
        line = msg("fig-pd-gpus", lang, gpus=recipe.gpus)
    if recipe.nodes > 1:
        line = msg("fig-pd-nodes", lang, nodes=recipe.nodes, gpus=line)
    return line


def _instance_label(kb: KB, recipe: Recipe, lang: str) -> str:
    _, role_title = title_parts(recipe.title[lang], lang)
    details = [f"python -m {module_of(recipe)}"]
    model_path = flag_value(kb, recipe, "--model-path")
    if model_path:
        details.append(model_path)
    gpus = gpus_line(kb, recipe, lang)
    if gpus:
        details.append(gpus)
    cells = [
        text_cell([role_title], COLOURS["header"], bold_first=True, font_colour="white"),
        text_cell(details, ROLE_COLOURS[recipe.role]),
    ]
    placed = placement_lines(kb, recipe)
    if placed:
        cells.append(text_cell(placed, "white"))
    body = "".join(f"<TR>{cell}</TR>" for cell in cells)
    return f'<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" COLOR="#475569">{body}</TABLE>'


def draw(kb: KB, deployment: str, roles: dict[str, Recipe], lang: str) -> Drawing:
    prefill, decode = roles["prefill"], roles["decode"]
    router = roles.get("router")
    heading, _ = title_parts(prefill.title[lang], lang)
    model = kb.models[prefill.model].name if prefill.model else ""
    title = heading or msg("fig-pd-title", lang)
    g = new_graph(deployment, h(title), h(model), rankdir="LR", nodesep="0.5", ranksep="0.5")
    g.node("prefill", label=f"<{_instance_label(kb, prefill, lang)}>")
    g.node("decode", label=f"<{_instance_label(kb, decode, lang)}>")
    transfer = msg("fig-pd-transfer", lang)
    links = []
    if router is not None:
        g.node("client", label=client_label(lang))
        g.node("router", label=f"<{_instance_label(kb, router, lang)}>")
        g.edge("client", "router")
        for role in ("prefill", "decode"):
            url = flag_value(kb, router, f"--{role}")
            link = f"--{role} {url}" if url else f"--{role}"
            g.edge("router", role, label=edge_label(link))
            links.append(link)
        with g.subgraph(name="instances") as column:
            column.attr(rank="same")
            column.node("prefill")
            column.node("decode")
    g.edge(
        "prefill",
        "decode",
        label=edge_label(transfer, COLOURS["ink"]),
        color=COLOURS["experts-line"],
        penwidth="1.6",
        style="bold",
    )

    model_name = model or deployment
    corrected = any(r is not None and r.corrections for r in (prefill, decode, router))
    caption = msg(
        "fig-pd-caption-router" if router else "fig-pd-caption",
        lang,
        title=title,
        model=model_name,
        corrected=msg("fig-pd-caption-corrected", lang) if corrected else "",
    )
    described = []
    for recipe in (prefill, decode, router):
        if recipe is None:
            continue
        _, role_title = title_parts(recipe.title[lang], lang)
        facts = [f for f in [gpus_line(kb, recipe, lang), *placement_lines(kb, recipe)] if f]
        joined = msg("sep-list", lang).join(facts)
        described.append(
            msg("fig-pd-alt-instance", lang, role=role_title, facts=joined) if facts else role_title
        )
    alt = msg(
        "fig-pd-alt",
        lang,
        title=title,
        model=model_name,
        instances=msg("sep-clause", lang).join(described),
        transfer=transfer,
    )
    if router is not None:
        links_text = msg("sep-list", lang).join(links)
        alt = sentences(lang, [alt, msg("fig-pd-alt-router", lang, links=links_text)])
    return Drawing(g.source, caption, alt)


def figures(kb: KB) -> list[Figure]:
    out = []
    for deployment, roles in deployments(kb).items():
        drawings = {lang: draw(kb, deployment, roles, lang) for lang in LANGS}
        sources = ", ".join(f"kb/recipes/{roles[r].id}.yaml" for r in ROLES if r in roles)
        out.append(Figure(deployment, sources, "figures", deployment, drawings))
    return out
