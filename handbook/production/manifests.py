"""Kubernetes objects for a deployment set: a LeaderWorkerSet for a server that spans nodes, a Deployment for
one that fits a pod, a Service in front of every HTTP server and the router.

Every pod: the recipe's command as container args (``deployments.py`` applied every change, each listed in
the file's header), the GPUs as a resource limit, ``/dev/shm`` as a memory volume (chapter 8.1's container
recipe gives the shared memory as mandatory), the pod address as ``POD_IP`` for ``--host``, and a readiness
probe on the engine's health endpoint on the pods that serve HTTP (SGLang's ``/health``,
``http_server.py``; a node rank ≥ 1 runs no HTTP server, ``http_server.py``'s ``node_rank >= 1`` branch).
"""

from __future__ import annotations

from typing import Any

import yaml

from handbook.production.deployments import IB_DEVICE, Deployment, Workload

LWS_API = "leaderworkerset.x-k8s.io/v1"
SERVER_HEALTH = "/health"  # sglang/srt/entrypoints/http_server.py: @app.get("/health"), 503 while starting
ROUTER_READINESS = "/readiness"  # a route of sglang-router 0.3.2's table (strings of its Rust binary)
PIT_RDMA = "pd-mooncake-tcp-fallback"  # chapter 08's pitfall: Mooncake needs the IB device and IPC_LOCK
FILL_IN = "<fill in>"


def _labels(deployment: Deployment, workload: Workload, leader: bool | None = None) -> dict[str, str]:
    labels = {
        "app.kubernetes.io/name": "sglang",
        "app.kubernetes.io/part-of": deployment.id.replace(".", "-"),
        "app.kubernetes.io/component": workload.role,
        "handbook.sglang.io/workload": workload.name,
    }
    if leader is not None:
        labels["handbook.sglang.io/leader"] = "true" if leader else "false"
    return labels


def _container(workload: Workload, serves_http: bool) -> dict[str, Any]:
    env: list[dict[str, Any]] = [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}]
    if any(IB_DEVICE in arg for arg in workload.args):
        env.append({"name": "IB_DEVICE", "value": FILL_IN})
    if workload.gpu_resource is not None:
        env.append(
            {
                "name": "HF_TOKEN",
                "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token", "optional": True}},
            }
        )
    container: dict[str, Any] = {
        "name": workload.role,
        "image": workload.image,
        "command": list(workload.command),
        "args": list(workload.args),
        "env": env,
        "ports": [{"name": "http", "containerPort": workload.port}],
    }
    if workload.bootstrap_port is not None:
        container["ports"].append({"name": "bootstrap", "containerPort": workload.bootstrap_port})
    if workload.metrics_port is not None:
        container["ports"].append({"name": "metrics", "containerPort": workload.metrics_port})
    if workload.gpu_resource is not None:
        container["resources"] = {"limits": {workload.gpu_resource: workload.gpus_per_pod}}
        container["volumeMounts"] = [{"name": "dshm", "mountPath": "/dev/shm"}]
    if workload.ib_device:
        container["securityContext"] = {"capabilities": {"add": ["IPC_LOCK"]}}
        container["volumeMounts"].append({"name": "infiniband", "mountPath": "/dev/infiniband"})
    if serves_http:
        path = ROUTER_READINESS if workload.role == "router" else SERVER_HEALTH
        container["readinessProbe"] = {"httpGet": {"path": path, "port": "http"}}
    return container


def pod_spec(workload: Workload, serves_http: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [_container(workload, serves_http)]}
    volumes = []
    if workload.gpu_resource is not None:
        volumes.append({"name": "dshm", "emptyDir": {"medium": "Memory"}})
    if workload.ib_device:
        volumes.append({"name": "infiniband", "hostPath": {"path": "/dev/infiniband", "type": "Directory"}})
    if volumes:
        spec["volumes"] = volumes
    return spec


def _service(deployment: Deployment, workload: Workload) -> dict[str, Any]:
    ports = [{"name": "http", "port": workload.port, "targetPort": "http"}]
    if workload.bootstrap_port is not None:
        ports.append({"name": "bootstrap", "port": workload.bootstrap_port, "targetPort": "bootstrap"})
    if workload.metrics_port is not None:
        ports.append({"name": "metrics", "port": workload.metrics_port, "targetPort": "metrics"})
    selector = {"handbook.sglang.io/workload": workload.name}
    if workload.nodes > 1:
        selector["handbook.sglang.io/leader"] = "true"  # only node rank 0 serves HTTP
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": workload.name, "labels": _labels(deployment, workload)},
        "spec": {"selector": selector, "ports": ports},
    }


def _workload_object(deployment: Deployment, workload: Workload) -> dict[str, Any]:
    if workload.nodes > 1:
        return {
            "apiVersion": LWS_API,
            "kind": "LeaderWorkerSet",
            "metadata": {"name": workload.name, "labels": _labels(deployment, workload)},
            "spec": {
                "replicas": 1,
                "leaderWorkerTemplate": {
                    "size": workload.nodes,
                    "restartPolicy": "RecreateGroupOnPodRestart",
                    "leaderTemplate": {
                        "metadata": {"labels": _labels(deployment, workload, leader=True)},
                        "spec": pod_spec(workload, serves_http=True),
                    },
                    "workerTemplate": {
                        "metadata": {"labels": _labels(deployment, workload, leader=False)},
                        "spec": pod_spec(workload, serves_http=False),
                    },
                },
            },
        }
    selector = {"handbook.sglang.io/workload": workload.name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": workload.name, "labels": _labels(deployment, workload)},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": _labels(deployment, workload)},
                "spec": pod_spec(workload, serves_http=True),
            },
        },
    }


def objects(deployment: Deployment) -> list[dict[str, Any]]:
    """The set's objects in apply order: each workload, then its Service."""
    out = []
    for workload in deployment.workloads:
        out += [_workload_object(deployment, workload), _service(deployment, workload)]
    return out


def dump_yaml(documents: list[dict[str, Any]], header: list[str]) -> str:
    """The objects as one multi-document YAML file, the header as comments above them."""
    lines = [f"# {line}".rstrip() for line in header]
    body = "---\n".join(
        yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100) for doc in documents
    )
    return "\n".join(lines) + "\n---\n" + body
