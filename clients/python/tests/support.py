"""What the tests share: the svc under test (started by test/python/client.test.ts, which
passes its URL as SVC_TEST_URL and that of its request counts as SVC_TEST_STATS_URL), a port
nothing listens on, and a reader of containers' attributes.

    SVC_TEST_URL=http://127.0.0.1:8000/api python3 -m unittest   # in clients/python

runs them against an `svc serve` of the components in test/python/components.ts (the tests
that count requests need the stats URL too).
"""

from __future__ import annotations

import json
import os
import re
import socket
import unittest
import urllib.request
from html.parser import HTMLParser
from typing import Any

SVC_URL = os.environ.get("SVC_TEST_URL", "")
STATS_URL = os.environ.get("SVC_TEST_STATS_URL", "")

requires_svc = unittest.skipUnless(SVC_URL, "SVC_TEST_URL is not set (no svc to render with)")
requires_stats = unittest.skipUnless(
    SVC_URL and STATS_URL, "SVC_TEST_STATS_URL is not set (no request counts)"
)


def seen() -> dict[str, Any]:
    """What svc has seen so far: {"connections": n, "requests": ["POST /api/islands", …]}."""
    with urllib.request.urlopen(STATS_URL, timeout=5) as answer:
        return json.loads(answer.read())


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


def containers(html: str) -> list[dict[str, str | None]]:
    """The attributes of each `[data-svc-component]` element in `html`, as a browser reads them."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return [attrs for _, attrs in parser.elements if "data-svc-component" in attrs]


def container(html: str) -> dict[str, str | None]:
    found = containers(html)
    assert len(found) == 1, f"one container expected in {html!r}"
    return found[0]


def text(html: str) -> str:
    """`html` without comments (React parts adjacent texts with `<!-- -->`)."""
    return re.sub(r"<!--.*?-->", "", html)
