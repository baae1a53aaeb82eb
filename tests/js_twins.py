"""The browser's twins of Python code, in tests: the names they share, and planner.js loaded in node."""


def camel(name: str) -> str:
    """A Python step's name as its JavaScript twin spells it (plan_free_memory → planFreeMemory)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


# planner.js loaded as a page loads it (a window with a location and no elements): the opening of every node
# program the planner tests run from the repository's root; ``P`` is its HandbookPlanner

PLANNER_IN_NODE = """
globalThis.window = globalThis;
globalThis.document = { readyState: "complete", currentScript: null, querySelectorAll: () => [] };
globalThis.window.location = { href: "file:///assets/planner.js" };
require("./docs/assets/numbers.js");
require("./docs/assets/planner.js");
const P = globalThis.HandbookPlanner;
"""
