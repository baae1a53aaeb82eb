"""Every figure of the site, built from one loaded KB (pure Python: no graphviz binary needed)."""

from __future__ import annotations

from handbook.diagrams import architecture, budget, charts, pd, topologies
from handbook.diagrams.dot import DiagramError
from handbook.diagrams.figure import Figure
from handbook.kb.loader import KB

BUILDERS = (
    topologies.figures,
    architecture.figures,
    budget.figures,
    pd.figures,
    charts.kv_figures,
    charts.split_figures,
)


def catalogue(kb: KB) -> dict[str, Figure]:
    """Figure id → figure, in a stable order; every problem of every builder is reported at once."""
    figures, problems = drawable(kb)
    if problems:
        raise DiagramError(problems)
    return figures


def drawable(kb: KB) -> tuple[dict[str, Figure], tuple[str, ...]]:
    """The figures that can be built, and the problems of those that cannot (a page asks for one figure:
    another figure's missing data must not stop it, but is reported if that page asked for it)."""
    figures: list[Figure] = []
    problems: list[str] = []
    for build in BUILDERS:
        try:
            figures += build(kb)
        except DiagramError as exc:
            problems += exc.problems
    out: dict[str, Figure] = {}
    for figure in figures:
        if figure.id in out:
            first = out[figure.id].source
            raise DiagramError([f"{figure.source}: figure id {figure.id!r} is taken ({first})"])
        out[figure.id] = figure
    paths = [figure.path(lang) for figure in out.values() for lang in figure.drawings]
    clashes = sorted({p for p in paths if paths.count(p) > 1})
    if clashes:
        raise DiagramError([f"two figures write {path}" for path in clashes])
    return out, tuple(problems)
