"""``nox -s bench``: the site's performance budget, measured and printed; the latest figures are recorded.

What is measured, and how:
- cold build: wall time of ``build_site`` (what ``nox -s build`` runs: a fresh ``python -m mkdocs build
  --strict`` process, both languages, jieba included), with the build's caches (``.cache/checks``,
  ``.cache/engine``, ``.cache/build``) as the repository holds them.
- the floor: a site of two pages in each language with our theme, plugins and Markdown extensions but no KB
  hook (FLOOR_PAGES), built by the same ``build_site`` right before each cold build (``--pairs`` pairs,
  default 3: a loaded machine slows both alike); the ratio of the medians is the build's cost over the
  least any site like ours costs.
- warm rebuild after a KB edit: what ``mkdocs serve`` does when a file under kb/ changes, reproduced in one
  process on a copy of the tree (the real kb/ is never touched) with the build's caches copied as the
  repository holds them, like the cold build's: build once, append a comment to a KB file, then time
  ``load_config`` + ``build`` exactly as serve's builder calls them (same process, so the hook module, jieba
  and the theme stay loaded; the KB is reloaded, and as the comment changed no value the checks, exports and
  rendered pages are read back by content, as in serve).
- KB hooks: every event function of hooks/kb.py is wrapped with a wall-clock timer in that process's first
  (cold) build. Share = hook functions' time / that process's whole build (importing the package, loading
  the config, building). Importing the package the hook loads (the KB schema) is shown beside it, as a
  second share that counts it as hook time too. The same cold build is made once more in a copy with no
  caches at all (a fresh clone's first build: every check, page and export computed) and shown beside it.
- test suite: wall time of ``pytest`` on the cold-built site (as ``nox -s tests`` runs it).
- site size: every file of the cold-built site. Page weight: each page is opened in chromium and every file
  it fetches (HTML, CSS, JS, the search worker and its scripts, images), except the search index, is counted
  at its gzip -6 size; the heaviest chapter page (the target's) and the heaviest page of all are reported.
  The search index is reported on its own (gzip -6). The configurator and command doctor pages are reported
  with everything they load (their scripts and data files included), the heavier language of each.
- the command doctor and the configurator in chromium: the doctor checks a 40-flag command (and shows its
  findings) 20 times after one warm-up, the configurator updates after 20 changes of its form; the median
  of each, from the page's own clock (performance.now()) around the synchronous work.
Targets are printed pass/fail; the benchmark itself never fails for a missed target (exit 1 only when the
site cannot be built).
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from handbook.core.files import write_text

# Only the standard library and three small modules of the package at import time: the probe times the
# import of what the hook loads (handbook.site.state), which must not be loaded before it.
from handbook.core.paths import BENCH_RECORD, REPO_ROOT
from handbook.site.browser import CHROMIUM, CHROMIUM_ARGS, serve_folder
from handbook.site.build import build_site

RECORD = BENCH_RECORD
T = TypeVar("T")
TARGETS = {
    "build_floor_ratio": 2.0,
    "hooks_share": 0.10,
    "warm_rebuild_s": 3.0,
    "page_gzip_bytes": 150_000,
    "doctor_page_gzip_bytes": 250_000,
    "doctor_check_ms": 50.0,
    "configurator_update_ms": 50.0,
    "long_command_python_s": 2.0,
    "long_command_browser_s": 1.0,
}
DOCTOR_PAGES = {"configurator": ("configurator/", "en/configurator/"), "doctor": ("doctor/", "en/doctor/")}
RUNS = 20
SEARCH_INDEX = "search/search_index.json"
CHAPTER = re.compile(
    r"^(?:[a-z]{2}/)?\d\d-[^/]+/$"
)  # 02-memory/, en/02-memory/: the page-weight target's pages
SERVE_URL = "http://127.0.0.1:8000/"
# Left out of the probe's copy of the tree: build outputs and caches at the repository's root (only there: the
# package's own handbook/site/ must be copied, or the probe would import another checkout's), and anywhere
# the interpreter's and tools' caches.
_TOP_IGNORE = {".git", ".nox", ".venv", "site", "site.old", ".cache"}
CACHES = REPO_ROOT / ".cache"  # the build's caches (checks, engine snapshots, stored pages and exports)
_ANY_IGNORE = shutil.ignore_patterns(
    ".site-build-*", "__pycache__", ".pytest_cache", ".ruff_cache", "*.egg-info"
)


def _copy_ignore(folder: str, names: list[str]) -> set[str]:
    top = _TOP_IGNORE & set(names) if Path(folder) == REPO_ROOT else set()
    return top | _ANY_IGNORE(folder, names)


def gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


# ----------------------------------------------------------------------------------- in-process probe
class _HookTimer:
    """Wraps the hook module's event functions in a MkDocs plugin collection; sums their wall time."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.by_function: dict[str, float] = {}

    def install(self, config: Any) -> None:  # MkDocsConfig, imported only inside the probe
        hook_functions = {
            getattr(module, name)
            for module in config["hooks"].values()
            for name in dir(module)
            if name.startswith("on_")
        }
        for event, methods in config.plugins.events.items():
            config.plugins.events[event] = [self._timed(m) if m in hook_functions else m for m in methods]

    def _timed(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                self.seconds += spent
                self.by_function[method.__name__] = self.by_function.get(method.__name__, 0.0) + spent

        return timed


def probe(tree: Path, out: Path) -> dict:
    """Run inside a copy of the tree (``python -m handbook.site.bench --probe``): cold then warm build."""
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    start = time.perf_counter()
    import handbook.site.state  # noqa: F401 - what the hook imports: counted as hook time

    import_s = time.perf_counter() - start
    # mkdocs only here, after the timed import (the probe process alone builds in-process)
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    def one_build() -> tuple[float, _HookTimer]:
        begin = time.perf_counter()
        config = load_config(str(tree / "mkdocs.yml"), site_dir=str(out))
        config.site_url = SERVE_URL  # as mkdocs serve's builder does
        timer = _HookTimer()
        timer.install(config)
        build(config, serve_url=SERVE_URL)
        return time.perf_counter() - begin, timer

    cold_s, cold_hooks = one_build()
    edited = sorted((tree / "kb" / "models").glob("*.yaml"))[0]
    time.sleep(0.01)  # a later mtime, whatever the filesystem's resolution
    with edited.open("a", encoding="utf-8") as handle:
        handle.write("\n# edited by the benchmark (a warm rebuild reloads the KB)\n")
    warm_s, warm_hooks = one_build()
    return {
        "import_s": import_s,
        "cold_s": cold_s,
        "cold_hooks_s": cold_hooks.seconds,
        "cold_hooks_by_function": cold_hooks.by_function,
        "warm_s": warm_s,
        "warm_hooks_s": warm_hooks.seconds,
        "warm_hooks_by_function": warm_hooks.by_function,
        "edited": edited.relative_to(tree).as_posix(),
    }


# ----------------------------------------------------------------------------------- page weight
@dataclass
class PageWeight:
    page: str
    by_kind: dict[str, int]  # html / css / js / other → gzip bytes

    @property
    def total(self) -> int:
        return sum(self.by_kind.values())


def _kind(path: str) -> str:
    suffix = Path(path).suffix
    page = not path or path.endswith("/")  # a folder URL serves its index.html
    return {".html": "html", ".css": "css", ".js": "js"}.get(suffix, "html" if page else "other")


def in_own_chromium(measure: Callable[[Path, Any], T], site_dir: Path) -> T | str:
    """``measure(site_dir, browser)`` in a chromium launched for it, or why there is none."""
    if not Path(CHROMIUM).exists():
        return f"chromium not found at {CHROMIUM} (apt-get install chromium)"
    from playwright.sync_api import sync_playwright  # heavy, and only for these measurements

    with sync_playwright() as playwright:
        own = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            return measure(site_dir, own)
        finally:
            own.close()


def page_weights(site_dir: Path, browser: Any = None) -> list[PageWeight] | str:
    """Every page's gzip transfer size as chromium loads it (cold cache), or why it could not be measured.

    ``browser``: a Playwright chromium already running (the tests' fixture); else one is launched here."""
    if browser is None:
        return in_own_chromium(page_weights, site_dir)

    pages = sorted(
        rel
        for rel in (p.relative_to(site_dir).as_posix() for p in site_dir.rglob("index.html"))
        if not rel.startswith(("assets/", "search/"))
    )
    sizes: dict[str, int] = {}
    weights = []
    with serve_folder(site_dir) as base:
        for page_path in pages:
            context = browser.new_context()  # an empty cache: every page pays for its CSS and JS
            fetched: list[str] = []
            context.on("request", lambda request, into=fetched: into.append(request.url))
            tab = context.new_page()
            tab.goto(base + page_path.removesuffix("index.html"), wait_until="networkidle")
            context.close()
            weight = PageWeight(page_path.removesuffix("index.html") or "/", {})
            for url in dict.fromkeys(fetched):
                rel = url.removeprefix(base).split("#")[0].split("?")[0]
                if not url.startswith(base) or rel == SEARCH_INDEX:
                    continue
                file = site_dir / (rel + "index.html" if rel.endswith("/") or not rel else rel)
                if file.is_file():
                    if rel not in sizes:
                        sizes[rel] = gzip_size(file.read_bytes())
                    kind = _kind(rel)
                    weight.by_kind[kind] = weight.by_kind.get(kind, 0) + sizes[rel]
            weights.append(weight)
    return weights


# ----------------------------------------------------------------------------------- the doctor's speed
def forty_flag_command() -> str:
    """A launch command of 40 flags: --model-path, then the launch_server options (parser order) whose
    parser default is a number or a non-empty string, each given that default."""
    import shlex

    from handbook.engine.snapshot import load_snapshot

    lines = ["--model-path Qwen/Qwen3.5-397B-A17B-FP8"]
    for option in load_snapshot().parser("launch_server").options:
        default = option.default
        if len(lines) == 40:
            break
        if (
            option.name == "--model-path"
            or not option.name.startswith("--")
            or option.nargs not in (None, "?")
        ):
            continue
        if isinstance(default, bool) or not isinstance(default, int | float | str) or default == "":
            continue
        lines.append(f"{option.name} {shlex.quote(str(default))}")
    return " \\\n  ".join(["python -m sglang.launch_server", *lines])


LONG_COMMAND_CHARS = 100_000


def long_commands(size: int = LONG_COMMAND_CHARS) -> dict[str, str]:
    """Hostile pastes of about ``size`` characters, one per shape that once cost more than linear time or
    stack depth in a checker: thousands of distinct unknown flags (each one a "did you mean" search),
    typos, ambiguous prefixes, variables, launchers in front of launchers, subshells, nested expansions,
    invocations, values, continuation lines, quotes, placeholders, invisible characters and nested JSON."""
    server = "python -m sglang.launch_server --model-path m"

    def repeated(unit: str, head: str = "", tail: str = "") -> str:
        return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail

    def numbered(form: str, head: str = "", tail: str = "", sep: str = " ") -> str:
        parts, length, i = [], len(head) + len(tail), 0
        while length < size:
            part = form.format(i=i)
            parts.append(part)
            length += len(part) + len(sep)
            i += 1
        return head + sep.join(parts) + tail

    return {
        "unknown flags": numbered("--zz-unknown-{i}", server + " "),
        "typos of real flags": numbered("--tp-sise{i}", server + " "),
        "ambiguous prefixes": repeated(" --d", server),
        "unknown variables": numbered("SGLANG_ZZ_{i}=1", "", " " + server),
        "exported variables": numbered("export SGLANG_ZZ_{i}=1", "", "\n" + server, sep="\n"),
        "docker run in docker run": repeated("docker run i ", "", server + " --tp-sise 2"),
        "launchers": repeated("sudo -E timeout 5 conda run -n x ", "", server + " --tp-sise 2"),
        "ssh in ssh": repeated("ssh h ", "", server + " --tp-sise 2"),
        "subshells": repeated("( ", "", server + " --tp-sise 2") + " )" * 10,
        "command substitutions": repeated("$(", server + " --served-model-name "),
        "invocations": repeated(server + " --tp-size 2; "),
        "values": repeated(" 1", server + " --cuda-graph-bs"),
        "continuation lines": repeated(" --tp-size 2 \\\n", server),
        "repeated flags": repeated(" --tp-size 2", server),
        "one quoted value": server + " --served-model-name '" + "a" * size + "'",
        "placeholders": repeated(" <x>", server),
        "invisible characters": repeated("\u202e\u200b x\n", server + "\n"),
        # JSON values parsed as the engine parses them: nested deeper than its json.loads can read
        "nested JSON in a variable": repeated("[", "SGLANG_HUMMING_ONLINE_QUANT_CONFIG=", " " + server),
        "nested JSON in a flag": repeated("[", server + " --json-model-override-args '", "'"),
    }


def long_command_python() -> dict[str, Any]:
    """Each hostile 100k paste checked by the Python checker (``check_command`` with the KB), in seconds: the
    slowest of RUNS_LONG runs of each, after one warm-up of the whole set."""
    from handbook.checker import check_command
    from handbook.engine.snapshot import load_snapshot
    from handbook.kb.loader import load_kb

    snapshot, kb = load_snapshot(), load_kb()
    shapes = long_commands()
    check_command(next(iter(shapes.values())), snapshot, kb)  # imports and caches warm
    seconds = {}
    for name, text in shapes.items():
        runs = []
        for _ in range(RUNS_LONG):
            start = time.perf_counter()
            check_command(text, snapshot, kb)
            runs.append(time.perf_counter() - start)
        seconds[name] = max(runs)
    return {"long_command_python_s": max(seconds.values()), "long_command_python_by_shape_s": seconds}


RUNS_LONG = 3
_LONG_JS = """async (text) => {
  const root = document.querySelector("[data-doctor]");
  const input = root.querySelector(".doc-input");
  // the paste first: the browser lays out the 100k characters in the box (its own cost, timed apart)
  const pasted = performance.now();
  input.value = text;
  void input.scrollHeight;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const layout = performance.now() - pasted;
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 4);
  const start = performance.now();
  await root.doctor.run();
  const seconds = (performance.now() - start) / 1000;
  clearInterval(timer);
  const blocked = Math.max(longest, performance.now() - last);
  return { seconds, blocked_ms: blocked, layout_ms: layout, result: root.dataset.result };
}"""


def long_command_browser(site_dir: Path, browser: Any = None) -> dict[str, Any] | str:
    """Each hostile 100k paste checked on the doctor page in chromium: once the paste is laid out in the box
    (timed apart: the browser's own cost of showing it), the check in the worker and the page's rendering
    of its verdict, the slowest of RUNS_LONG, with the longest the page's main thread went without running
    a 4 ms timer meanwhile; or why it could not be measured."""
    if browser is None:
        return in_own_chromium(long_command_browser, site_dir)
    seconds: dict[str, float] = {}
    blocked: dict[str, float] = {}
    layout: dict[str, float] = {}
    with serve_folder(site_dir) as base:
        tab = browser.new_page()
        tab.goto(base + "en/doctor/")
        tab.wait_for_selector("[data-doctor][data-ready=true]", timeout=30_000)
        shapes = long_commands()
        tab.evaluate(_LONG_JS, next(iter(shapes.values())))  # warm-up
        for name, text in shapes.items():
            runs = [tab.evaluate(_LONG_JS, text) for _ in range(RUNS_LONG)]
            if any(run["result"] == "failed" for run in runs):
                return f"the doctor failed on the shape {name!r}"
            seconds[name] = max(run["seconds"] for run in runs)
            blocked[name] = max(run["blocked_ms"] for run in runs)
            layout[name] = max(run["layout_ms"] for run in runs)
        tab.close()
    return {
        "long_command_browser_s": max(seconds.values()),
        "long_command_browser_by_shape_s": seconds,
        "long_command_main_thread_blocked_ms": max(blocked.values()),
        "long_command_main_thread_blocked_by_shape_ms": blocked,
        "long_command_paste_layout_ms": max(layout.values()),
        "long_command_paste_layout_by_shape_ms": layout,
    }


def long_command_figures(site_dir: Path) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "long_command_chars": LONG_COMMAND_CHARS,
        "long_command_shapes": len(long_commands()),
    }
    figures.update(long_command_python())
    browser = long_command_browser(site_dir)
    if isinstance(browser, str):
        figures["long_command_browser_unmeasured"] = browser
    else:
        figures.update(browser)
    return figures


_CHECK_JS = """async ([command, runs]) => {
  const root = document.querySelector("[data-doctor]");
  const input = root.querySelector(".doc-input");
  const times = [];
  for (let i = 0; i <= runs; i += 1) {
    input.value = command + (i % 2 ? "" : " ");
    const start = performance.now();
    await root.doctor.run();
    if (i > 0) times.push(performance.now() - start);
  }
  return { times, findings: root.querySelectorAll(".doc-finding").length };
}"""
_UPDATE_JS = """(runs) => {
  const root = document.querySelector("[data-configurator]");
  const changes = [["gpu", "h100"], ["gpu", "h200"], ["goal", "low-latency"], ["goal", "high-throughput"],
    ["model", "qwen3.5-397b-a17b"], ["precision", "fp8"], ["gpu", "b200"], ["goal", "multi-turn-agent"],
    ["model", "deepseek-v4-pro"], ["gpu", "mi355x"]];
  const times = [];
  for (let i = 0; i <= runs; i += 1) {
    const [name, value] = changes[i % changes.length];
    const field = root.querySelector(`[name="${name}"]`);
    field.value = value;
    const start = performance.now();
    field.dispatchEvent(new Event("change", { bubbles: true }));
    if (i > 0) times.push(performance.now() - start);
  }
  return { times, status: root.dataset.status };
}"""


def doctor_timings(site_dir: Path, browser: Any = None) -> dict[str, Any] | str:
    """The doctor's check of a 40-flag command and the configurator's update, in ms (medians of RUNS), or
    why they could not be measured."""
    if browser is None:
        return in_own_chromium(doctor_timings, site_dir)
    import statistics

    command = forty_flag_command()
    with serve_folder(site_dir) as base:
        tab = browser.new_page()
        tab.goto(base + "en/doctor/")
        tab.wait_for_selector("[data-doctor][data-ready=true]", timeout=30_000)
        checked = tab.evaluate(_CHECK_JS, [command, RUNS])
        tab.goto(base + "en/configurator/")
        tab.wait_for_selector("[data-configurator][data-ready=true]", timeout=30_000)
        updated = tab.evaluate(_UPDATE_JS, RUNS)
        tab.close()
    return {
        "doctor_check_ms": statistics.median(checked["times"]),
        "doctor_check_findings": checked["findings"],
        "doctor_check_flags": command.count(" --"),
        "configurator_update_ms": statistics.median(updated["times"]),
        "timing_runs": RUNS,
    }


def doctor_pages(weights: list[PageWeight]) -> dict[str, Any]:
    """Each of the two pages' weight with everything it loads: its heavier language."""
    out: dict[str, Any] = {}
    for name, pages in DOCTOR_PAGES.items():
        found = [w for w in weights if w.page in pages]
        if found:
            heaviest = max(found, key=lambda w: w.total)
            out[f"{name}_page"] = heaviest.page
            out[f"{name}_page_gzip_bytes"] = heaviest.total
            out[f"{name}_page_gzip_by_kind"] = dict(sorted(heaviest.by_kind.items()))
    return out


# ----------------------------------------------------------------------------------- the whole benchmark
def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text().splitlines()
            if line.startswith("model name")
        ]
        cpu = names[0] if names else cpu
    memory_gib = None
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        total_kib = next(
            int(line.split()[1]) for line in meminfo.read_text().splitlines() if line.startswith("MemTotal")
        )
        memory_gib = round(total_kib / 1024**2)
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        # other work on the machine slows every figure: the 1-minute load average when the bench started
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "memory_gib": memory_gib,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def current_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=REPO_ROOT, capture_output=True, text=True
        )
    except FileNotFoundError:
        return "unknown"
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + ("+uncommitted" if dirty.stdout.strip() else "")


# ----------------------------------------------------------------------------------- the floor
# The least a site like ours costs to build: two pages in each language, with the same theme, plugins and
# Markdown extensions as mkdocs.yml (Material, i18n, the search index with jieba), and no KB hook.
FLOOR_PAGES = {
    "zh/index.md": "# 部署手册\n\n在 H200 上部署混合专家模型：先估算显存，再选择张量并行与专家并行的规模。\n",
    "zh/guide.md": "# 指南\n\n## 显存\n\n权重、KV 缓存与激活共用显存；`--mem-fraction-static` 定静态部分。\n",
    "en/index.md": "# Deployment handbook\n\nDeploying mixture-of-experts models on H200: memory first.\n",
    "en/guide.md": "# Guide\n\n## Memory\n\nWeights, the KV cache and activations share the memory.\n",
}
_FLOOR_DROP = ("hooks", "nav", "extra_css", "extra_javascript")


def floor_site(tree: Path, work: Path) -> Path:
    """The floor site's mkdocs.yml (written under ``work``): ``tree``'s config without what is ours (the
    hook, the nav, our CSS and script), over FLOOR_PAGES."""
    text = (tree / "mkdocs.yml").read_text(encoding="utf-8")
    kept, dropping = [], False
    for line in text.splitlines():
        top = line[:1] not in ("", " ", "#")
        if top:
            dropping = line.split(":", 1)[0] in _FLOOR_DROP
        if not dropping:
            kept.append(line)
    config = "\n".join(kept).replace("docs_dir: docs", "docs_dir: floor-docs") + "\n"
    root = work / "floor"
    write_text(root / "mkdocs.yml", config, root=work, folders=True)
    for rel, page in FLOOR_PAGES.items():
        write_text(root / "floor-docs" / rel, page, root=work, folders=True)
    return root / "mkdocs.yml"


def paired_builds(work: Path, pairs: int) -> dict[str, Any]:
    """The floor site and the handbook built one after the other, ``pairs`` times (the same machine, the same
    minute: a loaded machine slows both alike); the medians and their ratio."""
    import statistics

    config = floor_site(REPO_ROOT, work)
    floors, builds = [], []
    for run in range(pairs):
        for folder, config_file, into in ((f"floor-site-{run}", config, floors), ("site", None, builds)):
            site = work / folder
            start = time.perf_counter()
            done = build_site(site) if config_file is None else build_site(site, config_file)
            if done != 0:
                raise SystemExit(
                    f"✖ {'the site' if config_file is None else 'the floor site'} does not build"
                )
            into.append(time.perf_counter() - start)
    floor, build = statistics.median(floors), statistics.median(builds)
    return {
        "cold_build_s": build,
        "cold_build_runs_s": builds,
        "floor_build_s": floor,
        "floor_build_runs_s": floors,
        "build_floor_ratio": build / floor,
        "build_pairs": pairs,
    }


def _probe_in_copy(work: Path, name: str, with_caches: bool) -> dict:
    """The in-process probe's figures, run in a copy of the tree (with the build's caches or without)."""
    tree = work / name
    shutil.copytree(REPO_ROOT, tree, ignore=_copy_ignore)
    if with_caches and CACHES.is_dir():
        shutil.copytree(CACHES, tree / CACHES.name)
    env = {**os.environ, "PYTHONPATH": str(tree), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "handbook.site.bench", "--probe", str(tree), str(work / f"probe-site-{name}")],
        cwd=tree, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"✖ the in-process build failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_bench(work: Path, run_tests: bool = True, pairs: int = 3) -> dict:
    """Every figure of the benchmark (the module's docstring says how); ``work`` is scratch space."""
    figures: dict = {}
    site = work / "site"
    figures.update(paired_builds(work, pairs))

    measured = _probe_in_copy(work, "tree", with_caches=True)
    empty = _probe_in_copy(work, "tree-no-caches", with_caches=False)
    figures["no_caches_build_s"] = empty["import_s"] + empty["cold_s"]
    figures["no_caches_hooks_s"] = empty["cold_hooks_s"]
    figures["no_caches_hooks_share"] = empty["cold_hooks_s"] / figures["no_caches_build_s"]
    figures["warm_rebuild_s"] = measured["warm_s"]
    figures["hooks_s"] = measured["cold_hooks_s"]
    figures["hooks_import_s"] = measured["import_s"]
    figures["in_process_build_s"] = measured["import_s"] + measured["cold_s"]
    figures["hooks_share"] = figures["hooks_s"] / figures["in_process_build_s"]
    figures["hooks_share_with_import"] = (figures["hooks_s"] + figures["hooks_import_s"]) / figures[
        "in_process_build_s"
    ]
    figures["warm_hooks_s"] = measured["warm_hooks_s"]
    figures["hooks_by_function_s"] = dict(sorted(measured["cold_hooks_by_function"].items()))
    figures["warm_hooks_by_function_s"] = dict(sorted(measured["warm_hooks_by_function"].items()))
    figures["kb_file_edited"] = measured["edited"]

    if run_tests:
        start = time.perf_counter()
        tests = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            cwd=REPO_ROOT, env={**os.environ, "HANDBOOK_SITE_DIR": str(site), "NO_MKDOCS_2_WARNING": "1"},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        figures["tests_s"] = time.perf_counter() - start
        figures["tests_passed"] = tests.returncode == 0
        figures["tests_summary"] = (tests.stdout.strip().splitlines() or [""])[-1]

    files = [p for p in site.rglob("*") if p.is_file()]
    figures["site_bytes"] = sum(p.stat().st_size for p in files)
    figures["site_files"] = len(files)
    figures["search_index_gzip_bytes"] = gzip_size((site / SEARCH_INDEX).read_bytes())
    weights = page_weights(site)
    if isinstance(weights, str):
        figures["page_weight_unmeasured"] = weights
    else:
        chapters = [w for w in weights if CHAPTER.match(w.page)]
        for prefix, measured in (("heaviest_page", weights), ("heaviest_chapter_page", chapters)):
            if measured:
                heaviest = max(measured, key=lambda w: w.total)
                figures[prefix] = heaviest.page
                figures[f"{prefix}_gzip_bytes"] = heaviest.total
                figures[f"{prefix}_gzip_by_kind"] = dict(sorted(heaviest.by_kind.items()))
        figures["pages_measured"] = len(weights)
        figures["chapter_pages_measured"] = len(chapters)
        figures.update(doctor_pages(weights))
    timings = doctor_timings(site)
    if isinstance(timings, str):
        figures["doctor_timings_unmeasured"] = timings
    else:
        figures.update(timings)
    figures.update(long_command_figures(site))
    figures["load_average_end"] = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    return figures


def verdicts(figures: dict) -> dict[str, bool | None]:
    """Each target: met (True), missed (False) or not measured (None)."""
    page = figures.get("heaviest_chapter_page_gzip_bytes")
    pages = [
        figures[f"{name}_page_gzip_bytes"] for name in DOCTOR_PAGES if f"{name}_page_gzip_bytes" in figures
    ]

    def at_most(key: str) -> bool | None:
        return None if key not in figures else figures[key] < TARGETS[key]

    def at_most_or_equal(key: str) -> bool | None:
        return None if key not in figures else figures[key] <= TARGETS[key]

    return {
        "build_floor_ratio": at_most_or_equal("build_floor_ratio"),
        "hooks_share": at_most_or_equal("hooks_share"),
        "warm_rebuild_s": at_most_or_equal("warm_rebuild_s"),
        "page_gzip_bytes": None if page is None else page <= TARGETS["page_gzip_bytes"],
        "doctor_page_gzip_bytes": max(pages) <= TARGETS["doctor_page_gzip_bytes"] if pages else None,
        "doctor_check_ms": at_most("doctor_check_ms"),
        "configurator_update_ms": at_most("configurator_update_ms"),
        "long_command_python_s": at_most_or_equal("long_command_python_s"),
        "long_command_browser_s": at_most_or_equal("long_command_browser_s"),
    }


def kilobytes(n: int) -> str:
    return f"{n / 1000:,.1f} kB"


def report_lines(record: dict) -> list[str]:
    f, met, m = record["figures"], record["targets_met"], record["machine"]
    mark = {True: "✔ pass", False: "✖ MISSED", None: "– not measured"}

    def row(label: str, value: str, target: str = "", verdict: str = "") -> str:
        return f"{label:<54}{value:>10}   {target:<14}{verdict}".rstrip()

    hooks = f"{f['hooks_s']:.2f} s of {f['in_process_build_s']:.2f} s"
    lines = [
        f"Handbook benchmark, {record['date']}, commit {record['commit']}",
        f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, {m['os']}, Python {m['python']}, "
        f"load average {m.get('load_average')} at the start, {f.get('load_average_end')} at the end",
        "",
        row("cold build (python -m handbook build)", f"{f['cold_build_s']:.2f} s"),
    ]
    if "floor_build_s" in f:
        runs = f"median of {f['build_pairs']}" if f["build_pairs"] > 1 else "one run"
        lines += [
            row(f"floor site: 2 pages × 2 languages ({runs})", f"{f['floor_build_s']:.2f} s"),
            row(
                "build / floor",
                f"{f['build_floor_ratio']:.2f}×",
                f"≤ {TARGETS['build_floor_ratio']:g}×",
                mark[met.get("build_floor_ratio")],
            ),
        ]
    lines += [
        row(
            "warm rebuild after a KB edit (as serve does)",
            f"{f['warm_rebuild_s']:.2f} s",
            f"≤ {TARGETS['warm_rebuild_s']:g} s",
            mark[met["warm_rebuild_s"]],
        ),
        row(
            f"KB hook functions in a cold build ({hooks})",
            f"{f['hooks_share']:.1%}",
            f"≤ {TARGETS['hooks_share']:.0%}",
            mark[met["hooks_share"]],
        ),
        row(
            f"    with importing the package (+{f['hooks_import_s']:.2f} s)",
            f"{f['hooks_share_with_import']:.1%}",
            "(not a target)",
        ),
    ]
    if "no_caches_hooks_share" in f:
        empty = f"{f['no_caches_hooks_s']:.2f} s of {f['no_caches_build_s']:.2f} s"
        lines.append(
            row(f"    with no caches at all ({empty})", f"{f['no_caches_hooks_share']:.1%}", "(not a target)")
        )
    for label, key in (("cold", "hooks_by_function_s"), ("warm", "warm_hooks_by_function_s")):
        if f.get(key):
            parts = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in f[key].items())
            lines.append(f"    hook functions, {label} build: {parts}")
    if "tests_s" in f:
        outcome = "passed" if f["tests_passed"] else "FAILED"
        lines.append(row("test suite (pytest)", f"{f['tests_s']:.2f} s", f"{outcome}: {f['tests_summary']}"))
    lines.append(row(f"site size ({f['site_files']} files)", f"{f['site_bytes'] / 1e6:.2f} MB"))
    for prefix, label, of, target in (
        ("heaviest_chapter_page", "heaviest chapter page", "chapter_pages_measured", True),
        ("heaviest_page", "heaviest page of all", "pages_measured", False),
    ):
        if f"{prefix}_gzip_bytes" not in f:
            why = f.get("page_weight_unmeasured", "no such page")
            lines.append(row(label, "–", why, mark[None] if target else ""))
            continue
        parts = ", ".join(f"{kind} {kilobytes(n)}" for kind, n in f[f"{prefix}_gzip_by_kind"].items())
        lines.append(
            row(
                f"{label} (gzip, without search index)",
                kilobytes(f[f"{prefix}_gzip_bytes"]),
                f"≤ {kilobytes(TARGETS['page_gzip_bytes'])}" if target else "",
                mark[met["page_gzip_bytes"]] if target else "",
            )
        )
        lines.append(f"    {f[prefix]} (of {f[of]}): {parts}")
    lines.append(row("search index (gzip)", kilobytes(f["search_index_gzip_bytes"])))
    lines += doctor_lines(record, row, mark)
    return lines


def doctor_lines(record: dict, row: Callable[..., str], mark: dict) -> list[str]:
    """The configurator's and the command doctor's rows (none when a record predates them)."""
    f, met, targets = record["figures"], record["targets_met"], record["targets"]
    if "doctor_page_gzip_bytes" not in targets:
        return []
    lines = []
    for name in DOCTOR_PAGES:
        if f"{name}_page_gzip_bytes" in f:
            limit = f"≤ {kilobytes(targets['doctor_page_gzip_bytes'])}"
            verdict = mark[f[f"{name}_page_gzip_bytes"] <= targets["doctor_page_gzip_bytes"]]
            lines.append(
                row(
                    f"{name} page, all it loads (gzip)",
                    kilobytes(f[f"{name}_page_gzip_bytes"]),
                    limit,
                    verdict,
                )
            )
            parts = ", ".join(f"{kind} {kilobytes(n)}" for kind, n in f[f"{name}_page_gzip_by_kind"].items())
            lines.append(f"    {f[f'{name}_page']}: {parts}")
    if "doctor_check_ms" in f:
        flags, runs = f["doctor_check_flags"], f["timing_runs"]
        for key, label in (
            ("doctor_check_ms", f"doctor: check a {flags}-flag command (median of {runs})"),
            ("configurator_update_ms", f"configurator: update after a change (median of {runs})"),
        ):
            lines.append(row(label, f"{f[key]:.1f} ms", f"< {targets[key]:g} ms", mark[met[key]]))
    elif "doctor_timings_unmeasured" in f:
        lines.append(row("doctor and configurator timings", "–", f["doctor_timings_unmeasured"], mark[None]))
    return lines + long_command_lines(record, row, mark)


def long_command_lines(record: dict, row: Callable[..., str], mark: dict) -> list[str]:
    """The hostile 100k pastes' rows (none when a record predates them)."""
    f, met, targets = record["figures"], record["targets_met"], record["targets"]
    if "long_command_python_s" not in f or "long_command_python_s" not in targets:
        return []
    chars, shapes = f"{f['long_command_chars'] // 1000}k", f["long_command_shapes"]
    lines = [
        row(
            f"checker, Python: slowest {chars}-character paste ({shapes} shapes)",
            f"{f['long_command_python_s']:.2f} s",
            f"≤ {targets['long_command_python_s']:g} s",
            mark[met["long_command_python_s"]],
        ),
        "    " + ", ".join(f"{n} {s:.2f}" for n, s in f["long_command_python_by_shape_s"].items()),
    ]
    if "long_command_browser_s" in f:
        lines += [
            row(
                f"doctor page, chromium: slowest {chars}-character paste",
                f"{f['long_command_browser_s']:.2f} s",
                f"≤ {targets['long_command_browser_s']:g} s",
                mark[met["long_command_browser_s"]],
            ),
            "    " + ", ".join(f"{n} {s:.2f}" for n, s in f["long_command_browser_by_shape_s"].items()),
            row(
                "    the page's main thread, longest without a turn",
                f"{f['long_command_main_thread_blocked_ms']:.0f} ms",
            ),
        ]
        if "long_command_paste_layout_ms" in f:
            lines.append(
                row(
                    "    before it: the box laying out the paste (browser)",
                    f"{f['long_command_paste_layout_ms']:.0f} ms",
                )
            )
    else:
        lines.append(row("doctor page, chromium: long pastes", "–", f["long_command_browser_unmeasured"]))
    return lines


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--probe":
        print(json.dumps(probe(Path(sys.argv[2]), Path(sys.argv[3]))))
    else:
        raise SystemExit("usage: python -m handbook bench  (the --probe form is internal)")
