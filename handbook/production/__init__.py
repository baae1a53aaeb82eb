"""The production pack: Kubernetes manifests for the KB's multi-node and PD recipes, Grafana dashboards and
Prometheus alert rules, generated from the KB and the engine snapshot and verified by promtool and
kubernetes-validate (``python -m handbook production``; the site publishes them under ``production/``)."""
