"""What each stored release ships to run it: its ``python -m`` modules and how ``sglang serve`` dispatches.

The engine snapshot records, per release, every entry-point module the site, the source or SGLang's docs
run (``entry_points.modules``: whether the wheel has it, whether it is a deprecated alias and of what) and
how ``sglang serve`` reads its argv (``entry_points.serve``). From every stored release this module answers:

- a module the checked release lacks: an error (Python stops with ``No module named …``), naming the
  releases that ship it and the module that takes its place in the checked one;
- a module the release ships but the snapshot has no parser of (``sglang.benchmark.one_batch``…): its flags
  are not checked, and the finding says so;
- ``sglang serve``: ``--model-type`` and a positional model path are taken off the argv as
  ``sglang/cli/serve.py`` does; a diffusion model (``--model-type diffusion``, or a model the release's
  diffusion registry names) goes to another parser (``sglang.multimodal_gen``), which the checker does not
  hold: it says so rather than judging those flags as the language-model server's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from handbook.checker.findings import Finding
from handbook.checker.shell import Invocation, Word
from handbook.core.messages import message
from handbook.core.text import Text
from handbook.engine.history import History
from handbook.engine.snapshot import EngineSnapshot, SnapshotError, load_history


@dataclass(frozen=True)
class ModuleLife:
    """One entry-point module across the stored releases."""

    name: str
    parser: str | None  # the snapshot's parser it runs; None: the snapshot holds none
    versions: tuple[str, ...]  # the stored releases whose wheel ships it
    alias_of: tuple[tuple[str, str], ...]  # (release, module) where it is a deprecated alias of that module


@functools.lru_cache(maxsize=4)
def _lives(history: History) -> dict[str, ModuleLife]:
    found: dict[str, dict] = {}
    for version, document in history.documents():
        entry = document.get("entry_points") or {}
        for name, info in (entry.get("modules") or {}).items():
            life = found.setdefault(name, {"parser": info.get("parser"), "versions": [], "alias_of": []})
            if info.get("exists"):
                life["versions"].append(version)
                if info.get("deprecated_alias_of"):
                    life["alias_of"].append((version, info["deprecated_alias_of"]))
    return {
        name: ModuleLife(name, life["parser"], tuple(life["versions"]), tuple(life["alias_of"]))
        for name, life in found.items()
    }


def module_lives() -> dict[str, ModuleLife]:
    """Every entry-point module of every stored release (empty when no history is stored)."""
    try:
        return _lives(load_history())
    except SnapshotError:
        return {}


def spans(versions: tuple[str, ...], stored: tuple[str, ...]) -> str:
    """``0.5.10–0.5.20``: the stored releases in ``versions`` as runs of consecutive stored releases."""
    runs: list[list[str]] = []
    for version in stored:
        if version in versions:
            if runs and stored.index(runs[-1][-1]) == stored.index(version) - 1:
                runs[-1].append(version)
            else:
                runs.append([version])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


def replacement(name: str, version: str, lives: dict[str, ModuleLife]) -> str | None:
    """The module that takes ``name``'s place in ``version``: the one it was an alias of, or the one that
    was an alias of it, whichever that release ships."""
    life = lives.get(name)
    candidates = [target for _, target in life.alias_of] if life else []
    candidates += [other.name for other in lives.values() if any(t == name for _, t in other.alias_of)]
    for candidate in candidates:
        found = lives.get(candidate)
        if found is not None and version in found.versions:
            return candidate
    return None


def module_findings(invocation: Invocation, snapshot: EngineSnapshot, line: int) -> list[Finding] | None:
    """Findings for ``python -m`` of an SGLang module the snapshot has no parser for in this release; None
    when no stored release records the module (the checker's own "unknown module" applies)."""
    lives = module_lives()
    name = invocation.module or ""
    life = lives.get(name)
    if life is None:
        return None
    version = snapshot.sglang_version
    stored = tuple(dict.fromkeys(v for life in lives.values() for v in life.versions))
    order = load_history().versions if stored else ()
    instead = replacement(name, version, lives)
    hint = message("check-module-instead", module=instead) if instead else ""
    if version in life.versions:
        alias = next((target for v, target in life.alias_of if v == version), None)
        if alias is not None:
            hint = message("check-module-alias", module=alias)
        said = message("check-module-unchecked", module=name, version=version, hint=hint)
        return [Finding("warning", "module.unchecked", said, line, name)]
    releases = spans(life.versions, order) or "—"
    return [
        Finding(
            "error",
            "module.absent",
            message("check-module-absent", module=name, version=version, releases=releases, hint=hint),
            line,
            name,
        )
    ]


# ------------------------------------------------------------------------------------------ sglang serve
MODEL_TYPE = "--model-type"  # sglang serve's own flag (sglang/cli/serve.py), not the server's


@dataclass
class Serve:
    """``sglang serve``'s argv as the release reads it: the words the server's parser gets, and where the
    model goes."""

    words: list[Word]
    findings: list[Finding]
    diffusion: Text | None  # why the model goes to the diffusion server; None: the language-model server


def _short(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1].lower()


def is_diffusion_model(path: str, registered: tuple[str, ...]) -> bool:
    """The diffusion registry's own match (sglang/multimodal_gen/registry.py ``_match_registered_hf_path``):
    the id itself, or a registered id's short name inside the path's short name."""
    if path in registered:
        return True
    short = _short(path)
    return any(_short(known) in short for known in registered if _short(known))


def serve_argv(invocation: Invocation, snapshot: EngineSnapshot) -> Serve:
    """``sglang serve`` (sglang/cli/serve.py ``serve``): ``--model-type`` is taken off the argv, a positional
    model path becomes ``--model-path`` where the release accepts one, and a diffusion model is sent to the
    diffusion server."""
    entry = snapshot.entry_points
    words = list(invocation.args)
    if entry is None or entry.serve is None:
        return Serve(words, [], None)
    serve = entry.serve
    findings: list[Finding] = []
    model_type, kept, i = "auto", [], 0
    while i < len(words):
        word = words[i]
        if word.text == MODEL_TYPE and i + 1 < len(words):
            model_type, i = words[i + 1].text, i + 2
            given = words[i - 1]
        elif word.text.startswith(MODEL_TYPE + "="):
            model_type, i, given = word.text.split("=", 1)[1], i + 1, word
        else:
            kept.append(word)
            i += 1
            continue
        if not given.placeholder and serve.model_types and model_type not in serve.model_types:
            findings.append(
                Finding(
                    "error",
                    "serve.model-type",
                    message(
                        "check-serve-model-type",
                        flag=MODEL_TYPE,
                        value=model_type,
                        version=snapshot.sglang_version,
                        values=", ".join(serve.model_types),
                    ),
                    given.line,
                    MODEL_TYPE,
                )
            )
    if serve.positional_model_path and kept and not kept[0].text.startswith("-"):
        first = kept[0]
        kept = [Word("--model-path", "--model-path", first.line), *kept]
    path = None
    for index, word in enumerate(kept):
        if word.text in ("--model-path", "--model") and index + 1 < len(kept):
            path = kept[index + 1]
            break
        if word.text.startswith(("--model-path=", "--model=")):
            value = word.text.split("=", 1)[1]
            path = Word(value, value, word.line, word.placeholder)
            break
    why = None
    if serve.diffusion_server:
        if model_type == "diffusion":
            why = message("check-serve-why-model-type", flag=MODEL_TYPE)
        elif (
            model_type == "auto"
            and path is not None
            and not path.placeholder
            and is_diffusion_model(path.text, serve.diffusion_model_paths)
        ):
            why = message("check-serve-why-registry", version=snapshot.sglang_version)
    if why is not None:
        model = path.raw if path is not None else "—"
        line = invocation.launcher.line if invocation.launcher else invocation.line
        findings.append(
            Finding(
                "warning",
                "serve.diffusion",
                message("check-serve-diffusion", model=model, why=why),
                line,
                "sglang serve",
            )
        )
    return Serve(kept, findings, why)
