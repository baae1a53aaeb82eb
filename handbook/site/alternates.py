"""No request that is bound to fail: the head's hreflang links are left to the sitemap.

Material's script fetches ``sitemap.xml`` below every ``<link rel="alternate" hreflang>`` of a page's head,
expecting those links to be language roots. mkdocs-static-i18n makes them point at the page itself in each
language (so that the language switch keeps the reader on the page), hence every page view asked for
``<page>/sitemap.xml`` twice and logged two 404s in the console. The switcher in the header is built from
the same data and keeps its links; search engines get the same hreflang pairs from sitemap.xml, which
mkdocs-static-i18n writes with an ``<xhtml:link rel="alternate" hreflang>`` per language for every page.
"""

from __future__ import annotations

import re

_HEAD_HREFLANG = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">\n?')


def without_head_alternates(html: str) -> str:
    """The page with its head's hreflang ``<link>`` elements removed (the body is left as it is)."""
    head, sep, body = html.partition("</head>")
    return _HEAD_HREFLANG.sub("", head) + sep + body if sep else html
