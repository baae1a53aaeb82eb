"""The KB's multi-node and PD recipes as sets of Kubernetes workloads: each pod's exact command, and the
Service address each server is reached at.

A workload runs its recipe's published command. Where a pod needs something the command does not give
(an address to bind, a node rank, the metrics endpoint) or writes a placeholder (``${local_ip}``,
``<prefill-ip>``), the change is made here, once, and recorded as a ``Change`` with its reason: the
manifests print every change above the objects, and the site lists them. Nothing is changed silently.

``reached_commands(deployment)`` is the one view a deployment check reads: every command of a set, as the
container runs it, with the Service host and port it is reached at.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from handbook.calc.placement import gpus_per_node
from handbook.calc.recipe_text import module_of
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb.common import flag_line_text
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe

# The values Kubernetes gives a pod, as container args read them ($(VAR) is expanded by the kubelet).
POD_IP = "$(POD_IP)"  # the downward API's status.podIP
LEADER_ADDRESS = "$(LWS_LEADER_ADDRESS)"  # set by the LeaderWorkerSet controller in every pod of a group
WORKER_INDEX = "$(LWS_WORKER_INDEX)"  # 0 for the leader, 1… for the workers
IB_DEVICE = "$(IB_DEVICE)"  # the reader's InfiniBand device: an env var of the pod, to fill in

# The recipe placeholders a pod binds, and to what.
PLACEHOLDERS = {
    "${local_ip}": (POD_IP, "prod-bind-pod-ip"),
    "<prefill-ip>": (POD_IP, "prod-bind-pod-ip"),  # the MI355X 1P1D set's own address of each server
    "<decode-ip>": (POD_IP, "prod-bind-pod-ip"),
    "${prefill_master_ip}": (LEADER_ADDRESS, "prod-bind-lws-leader-address"),
    "${decode_master_ip}": (LEADER_ADDRESS, "prod-bind-lws-leader-address"),
    "${device_name}": (IB_DEVICE, "prod-bind-ib-device"),
}
DIST_INIT_PORT = "5000"  # the port of --dist-init-addr in the source's DeepSeek 2-node PD example
METRICS_RECIPE = "metrics-enable"  # chapter 8.2's fragment that turns on /metrics
ROUTER_FALLBACK = "pd-router-local"  # the source's PD router command, for a PD set without its own
NVIDIA_IMAGE_RECIPE = "docker-run-sglang"  # chapter 8.1's container: its image

ChangeKind = Literal["bound", "added", "removed", "replaced", "chosen"]


@dataclass(frozen=True)
class Change:
    """One difference between the recipe's published command (or pod) and what the manifest runs."""

    kind: ChangeKind
    words: str  # the words as the container runs them (or what the pod gets)
    reason: str  # a key of the production messages: why
    was: str | None = None  # the recipe's words it replaces, if any
    values: tuple[tuple[str, str], ...] = ()  # fields of the reason's message


@dataclass(frozen=True)
class Workload:
    """One role of a set: its pods (one, or a LeaderWorkerSet group of ``nodes``) and the Service in front."""

    name: str  # the Kubernetes name of the workload and of its Service
    recipe: str  # the recipe whose command it runs
    role: str  # standalone, prefill, decode or router
    program: str  # launch_server or launch_router
    module: str
    args: tuple[str, ...]  # the container's args: the recipe's words with every change applied
    changes: tuple[Change, ...]
    nodes: int  # pods in one group (a LeaderWorkerSet when > 1)
    gpus_per_pod: int
    gpu_resource: str | None  # nvidia.com/gpu or amd.com/gpu; None for the router
    image: str
    port: int  # the HTTP port the leader pod binds
    bootstrap_port: int | None = None  # a prefill server's KV bootstrap port (its Service exposes it)
    metrics_port: int | None = None  # the router's Prometheus port; servers serve /metrics on ``port``
    ib_device: bool = False  # the command names an InfiniBand device (RDMA for the KV transfer)

    @property
    def command(self) -> tuple[str, ...]:
        return ("python3", "-m", self.module)


@dataclass(frozen=True)
class Deployment:
    id: str  # the KB's deployment id, or the recipe id of a single multi-node server
    kind: Literal["multinode", "pd"]
    title_recipe: str  # the recipe whose title names the set
    workloads: tuple[Workload, ...]
    notes: tuple[Change, ...] = field(default=())  # changes that concern the whole set


@dataclass(frozen=True)
class Reached:
    """A command of a set as its container runs it, and the Service address other pods reach it at."""

    workload: str
    role: str
    recipe: str
    argv: tuple[str, ...]
    host: str  # the Service's name (resolvable as <name>.<namespace>.svc in the cluster)
    port: int


def reached_commands(deployment: Deployment) -> list[Reached]:
    """Every command of a deployment with the Service host and port it is reached at: what a deployment
    check compares (router targets against servers' host and port, PD pairing, node ranks)."""
    return [
        Reached(w.name, w.role, w.recipe, (*w.command, *w.args), w.name, w.port) for w in deployment.workloads
    ]


def k8s_name(text: str) -> str:
    """A DNS-1035 label (a Service name): lowercase letters, digits and '-', starting with a letter."""
    name = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    if not name or not name[0].isalpha():
        name = "x-" + name
    return name[:63].rstrip("-")


# ------------------------------------------------------------------------------------------ the words
def words_of(recipe: Recipe) -> list[str]:
    return shlex.split(" ".join(flag_line_text(line) for line in recipe.flags))


def _value(words: list[str], flag: str) -> str | None:
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(flag + "="):
            return word.split("=", 1)[1]
    return None


def _values(words: list[str], flag: str) -> list[str]:
    return [words[i + 1] for i, word in enumerate(words) if word == flag and i + 1 < len(words)]


def _replace_value(words: list[str], flag: str, new: str) -> list[str]:
    out = list(words)
    for i, word in enumerate(out):
        if word == flag and i + 1 < len(out):
            out[i + 1] = new
    return out


def _remove_flag(words: list[str], flag: str) -> list[str]:
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word == flag:
            skip = True
            continue
        out.append(word)
    return out


def _default(snapshot: EngineSnapshot, program: str, flag: str) -> int:
    value = snapshot.parser(program).option(flag).default
    assert isinstance(value, int), f"{program} {flag}: default {value!r} is not a port"
    return value


# ------------------------------------------------------------------------------------------ the sets
def _nodes(kb: KB, recipe: Recipe) -> int:
    """The pods of a server's group: the recipe's nodes, or more where its GPUs outnumber a node of its
    hardware (the recipe-placement check reports such a recipe; a recipe that gives no GPUs per node, by
    its hardware or its own gpus over nodes, runs on the nodes it states)."""
    per_node = gpus_per_node(kb, recipe)
    if per_node is None:
        return recipe.nodes
    return max(recipe.nodes, -(-(recipe.gpus or 1) // per_node))


def _image(kb: KB, recipe: Recipe) -> tuple[str, str | None, Change | None]:
    vendors = {kb.hardware[h].vendor for h in recipe.hardware}
    if vendors == {"amd"}:
        return "<fill in>", "amd.com/gpu", Change("chosen", "image", "prod-change-image-amd")
    docker = kb.recipes[NVIDIA_IMAGE_RECIPE].docker
    assert docker is not None
    chosen = None if vendors == {"nvidia"} else Change("chosen", "nvidia.com/gpu", "prod-change-gpu-vendor")
    return docker.image, "nvidia.com/gpu", chosen


def _server(
    kb: KB,
    snapshot: EngineSnapshot,
    recipe: Recipe,
    name: str,
    *,
    target_port: int | None = None,
    multinode_rank: bool = False,
) -> Workload:
    words = words_of(recipe)
    changes: list[Change] = []
    # placeholders a pod binds
    for placeholder, (bound, reason) in PLACEHOLDERS.items():
        if any(placeholder in w for w in words):
            words = [w.replace(placeholder, bound) for w in words]
            changes.append(Change("bound", bound, reason, placeholder))
    if "--base-gpu-id" in words:
        was = f"--base-gpu-id {_value(words, '--base-gpu-id')}"
        words = _remove_flag(words, "--base-gpu-id")
        changes.append(Change("removed", was, "prod-change-base-gpu-id", was))
    if "--host" not in words:
        words += ["--host", POD_IP]
        host = snapshot.parser("launch_server").option("--host").default
        engine = (("version", snapshot.sglang_version), ("host", str(host)))
        changes.append(Change("added", f"--host {POD_IP}", "prod-change-host", values=engine))
    default_port = _default(snapshot, "launch_server", "--port")
    port = int(_value(words, "--port") or default_port)
    if target_port is not None and target_port != port:
        words += ["--port", str(target_port)]
        changes.append(
            Change("added", f"--port {target_port}", "prod-change-port", values=(("port", str(port)),))
        )
        port = target_port
    nodes = _nodes(kb, recipe)
    gpus = recipe.gpus or 1
    if nodes > 1:
        if "--nnodes" not in words:
            added = ["--nnodes", str(nodes), "--node-rank", WORKER_INDEX]
            added += ["--dist-init-addr", f"{LEADER_ADDRESS}:{DIST_INIT_PORT}"]
            words += added
            changes.append(
                Change("added", " ".join(added), "prod-change-multinode", values=(("port", DIST_INIT_PORT),))
            )
        elif multinode_rank and _value(words, "--node-rank") != WORKER_INDEX:
            was = f"--node-rank {_value(words, '--node-rank')}"
            words = _replace_value(words, "--node-rank", WORKER_INDEX)
            changes.append(Change("bound", f"--node-rank {WORKER_INDEX}", "prod-bind-node-rank", was))
    metrics_flag = flag_line_text(kb.recipes[METRICS_RECIPE].flags[0])
    if metrics_flag not in words:
        words.append(str(metrics_flag))
        changes.append(Change("added", str(metrics_flag), "prod-change-metrics"))
    image, gpu_resource, image_choice = _image(kb, recipe)
    if image_choice is not None:
        changes.append(image_choice)
    bootstrap = None
    if recipe.role == "prefill":
        given = _value(words, "--disaggregation-bootstrap-port")
        bootstrap = (
            int(given) if given else _default(snapshot, "launch_server", "--disaggregation-bootstrap-port")
        )
    return Workload(
        name=name,
        recipe=recipe.id,
        role=recipe.role,
        program="launch_server",
        module=module_of(recipe),
        args=tuple(words),
        changes=tuple(changes),
        nodes=nodes,
        gpus_per_pod=gpus // nodes if nodes > 1 else gpus,
        gpu_resource=gpu_resource,
        image=image,
        port=port,
        bootstrap_port=bootstrap,
        ib_device="--disaggregation-ib-device" in words,
    )


def _router(
    kb: KB, snapshot: EngineSnapshot, recipe: Recipe, name: str, servers: dict[str, Workload], borrowed: bool
) -> Workload:
    words = words_of(recipe)
    changes: list[Change] = []
    if borrowed:
        changes.append(Change("chosen", recipe.id, "prod-change-router-borrowed"))
    for role in ("prefill", "decode"):
        server = servers[role]
        for url in _values(words, f"--{role}"):
            target = f"http://{server.name}:{server.port}"
            if url != target:
                words = [target if w == url else w for w in words]
                changes.append(Change("replaced", target, "prod-change-router-target", url))
    docker = kb.recipes[NVIDIA_IMAGE_RECIPE].docker
    assert docker is not None
    port = int(_value(words, "--port") or _default(snapshot, "launch_router", "--port"))
    return Workload(
        name=name,
        recipe=recipe.id,
        role="router",
        program="launch_router",
        module=module_of(recipe),
        args=tuple(words),
        changes=tuple(changes),
        nodes=1,
        gpus_per_pod=0,
        gpu_resource=None,
        image=docker.image,
        port=port,
        metrics_port=int(
            _value(words, "--prometheus-port") or _default(snapshot, "launch_router", "--prometheus-port")
        ),
    )


def _router_targets(recipe: Recipe) -> dict[str, int]:
    """The port each role's URL targets in a router recipe (the URL's port, else HTTP's 80)."""
    words = words_of(recipe)
    return {
        role: urlsplit(url).port or 80
        for role in ("prefill", "decode")
        for url in _values(words, f"--{role}")
    }


def deployments(kb: KB, snapshot: EngineSnapshot) -> list[Deployment]:
    """Every multi-node server recipe and every PD set of the KB, in id order."""
    out: list[Deployment] = []
    grouped: dict[str, list[Recipe]] = {}
    for recipe in kb.recipes.values():
        if recipe.deployment and recipe.role in ("prefill", "decode", "router"):
            grouped.setdefault(recipe.deployment, []).append(recipe)
    for set_id, recipes in sorted(grouped.items()):
        by_role = {r.role: r for r in recipes}
        if not {"prefill", "decode"} <= set(by_role):
            continue
        router_recipe = by_role.get("router")
        borrowed = router_recipe is None
        router_recipe = router_recipe or kb.recipes[ROUTER_FALLBACK]
        targets = {} if borrowed else _router_targets(router_recipe)
        servers = {}
        for role in ("prefill", "decode"):
            recipe = by_role[role]
            servers[role] = _server(
                kb,
                snapshot,
                recipe,
                k8s_name(f"{set_id}-{role}"),
                target_port=targets.get(role),
                multinode_rank=True,
            )
        router = _router(kb, snapshot, router_recipe, k8s_name(f"{set_id}-router"), servers, borrowed)
        out.append(
            Deployment(set_id, "pd", by_role["prefill"].id, (servers["prefill"], servers["decode"], router))
        )
    for recipe in sorted(kb.recipes.values(), key=lambda r: r.id):
        if recipe.kind != "launch" or recipe.deployment or recipe.role != "standalone":
            continue
        if _nodes(kb, recipe) > 1:
            server = _server(kb, snapshot, recipe, k8s_name(recipe.id))
            out.append(Deployment(recipe.id, "multinode", recipe.id, (server,)))
    return sorted(out, key=lambda d: d.id)
