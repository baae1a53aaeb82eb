"""The real tools over the pack's files: promtool (check rules, test rules, check config) and
kubernetes-validate (every core object, and each LeaderWorkerSet pod template as a core PodTemplate)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from handbook.production import alerts
from handbook.production.pack import KUBERNETES_VERSION, MANIFESTS


@dataclass(frozen=True)
class Run:
    command: str
    ok: bool
    output: str


def promtool() -> str | None:
    return shutil.which("promtool")


def run_promtool(folder: Path) -> list[Run]:
    """check rules, test rules and (where the folder has one) check config, in ``folder``."""
    binary = promtool()
    assert binary is not None, "promtool not found (apt-get install prometheus)"
    commands = [["check", "rules", alerts.RULES_FILE], ["test", "rules", alerts.TESTS_FILE]]
    if (folder / alerts.SCRAPE_FILE).is_file():
        commands.append(["check", "config", alerts.SCRAPE_FILE])
    runs = []
    for args in commands:
        done = subprocess.run(
            [binary, *args], cwd=folder, capture_output=True, text=True, timeout=120, check=False
        )
        runs.append(
            Run(f"promtool {' '.join(args)}", done.returncode == 0, (done.stdout + done.stderr).strip())
        )
    return runs


def validate_objects(documents: list[dict[str, Any]]) -> list[str]:
    """kubernetes-validate (strict, for KUBERNETES_VERSION) over every core object; a LeaderWorkerSet's
    leader and worker templates as v1 PodTemplates. One line per object: 'kind/name: ok', or why not."""
    import kubernetes_validate

    out = []
    for doc in documents:
        checked = [doc]
        if doc["kind"] == "LeaderWorkerSet":
            template = doc["spec"]["leaderWorkerTemplate"]
            name = doc["metadata"]["name"]
            checked = [
                {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": f"{name}-{part}"}}
                | {"template": template[f"{part}Template"]}
                for part in ("leader", "worker")
            ]
        for obj in checked:
            name = f"{obj['kind']}/{obj['metadata']['name']}"
            try:
                kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
            except kubernetes_validate.ValidationError as exc:
                out.append(f"{name}: {exc.message}")
                continue
            out.append(f"{name}: ok")
    return out


def validate_manifests(folder: Path) -> list[str]:
    documents = [d for d in yaml.safe_load_all((folder / MANIFESTS).read_text(encoding="utf-8")) if d]
    return validate_objects(documents)
