"""svc islands in Django: add `"svc_islands.django"` to `INSTALLED_APPS`, set `SVC_URL` (and
`SVC_PUBLIC_URL` when browsers reach svc elsewhere), then in a template:

    {% load svc_islands %}
    {% svc_island "product" product_props hydrate="visible" %}
    {% svc_loader %}

From a view, `render_many` renders a page's islands in one request (safe strings for the
template). Settings: `SVC_URL` (default http://127.0.0.1:8000/api), `SVC_PUBLIC_URL`
(default: `SVC_URL`), `SVC_TIMEOUT` (seconds, default 5), `SVC_HEADERS` (a dict).
"""

from __future__ import annotations

import threading
from typing import Any, Iterable, Mapping

from django.utils.safestring import SafeString, mark_safe

from ..client import DEFAULT_URL, Client, Fallback, Island

__all__ = ["get_client", "loader_tag", "render", "render_many"]

_clients: dict[tuple[Any, ...], Client] = {}
_lock = threading.Lock()


def get_client() -> Client:
    """The client of the current settings (made once per distinct settings, so
    `override_settings` in tests gets its own)."""
    from django.conf import settings

    url = getattr(settings, "SVC_URL", None) or DEFAULT_URL
    public_url = getattr(settings, "SVC_PUBLIC_URL", None) or None
    timeout = float(getattr(settings, "SVC_TIMEOUT", None) or 5.0)
    headers = dict(getattr(settings, "SVC_HEADERS", None) or {})
    key = (url, public_url, timeout, tuple(sorted(headers.items())))
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = Client(url, public_url=public_url, timeout=timeout, headers=headers)
            _clients[key] = client
        return client


def render(
    name: str,
    props: Mapping[str, Any] | None = None,
    hydrate: str | None = None,
    fallback: Fallback = "client",
) -> SafeString:
    """The island as a safe string (svc escapes what it writes)."""
    return mark_safe(get_client().render(name, props, hydrate, fallback))


def render_many(islands: Iterable[Island], fallback: Fallback = "client") -> list[SafeString]:
    """A page's islands in one request, in order, as safe strings for the template."""
    return [mark_safe(html) for html in get_client().render_many(islands, fallback)]


def loader_tag(islands: bool = False) -> SafeString:
    """The loader's script tag (`islands=True`: `islands.js`)."""
    return mark_safe(get_client().loader_tag(islands))
