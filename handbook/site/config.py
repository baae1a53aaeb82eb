"""What the package needs from mkdocs.yml, read without running it: the site's published URL."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from handbook.core.paths import MKDOCS_YML


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml where PyYAML was built with it
    """Plain YAML plus MkDocs' tags: ``!ENV`` is resolved as MkDocs does; ``!!python/…`` is skipped."""


def _env(loader: yaml.SafeLoader, node: yaml.Node) -> str | None:
    # pyyaml_env_tag: `!ENV NAME` or `!ENV [NAME, OTHER_NAME, default]`; the last item is the default
    if isinstance(node, yaml.ScalarNode):
        return os.environ.get(loader.construct_scalar(node))
    *names, default = loader.construct_sequence(node)
    for name in names:
        if name in os.environ:
            return os.environ[name]
    return default


_Loader.add_constructor("!ENV", _env)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def site_url(config: Path = MKDOCS_YML) -> str:
    """``site_url`` as the build sees it, with a final slash; "" when the file sets none."""
    try:
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_Loader) or {}
    except OSError:
        return ""
    url = data.get("site_url") or ""
    return url if not url or url.endswith("/") else url + "/"
