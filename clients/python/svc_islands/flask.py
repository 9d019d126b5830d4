"""svc islands in Flask: `init_app(app)` makes a client from `app.config` and gives every
template `svc_island`, `svc_render_many` and `svc_loader` (see `svc_islands.jinja`).

    app.config["SVC_URL"] = "http://127.0.0.1:8000/api"
    svc_islands.flask.init_app(app)

Config: `SVC_URL` (default: the `SVC_URL` environment variable, else
http://127.0.0.1:8000/api), `SVC_PUBLIC_URL` (default: `SVC_URL`), `SVC_TIMEOUT` (seconds,
default 5), `SVC_HEADERS`. In a view, `render_many` renders a page's islands in one request.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from flask import Flask, current_app
from markupsafe import Markup

from .client import DEFAULT_URL, Client, Fallback, Island
from .jinja import globals_for

__all__ = ["get_client", "init_app", "loader_tag", "render", "render_many"]

EXTENSION = "svc_islands"


def init_app(app: Flask, client: Client | None = None) -> Client:
    """Registers the template globals and keeps the client in `app.extensions["svc_islands"]`."""
    if client is None:
        config = app.config
        client = Client(
            config.get("SVC_URL") or os.environ.get("SVC_URL") or DEFAULT_URL,
            public_url=config.get("SVC_PUBLIC_URL") or os.environ.get("SVC_PUBLIC_URL") or None,
            timeout=float(config.get("SVC_TIMEOUT") or 5.0),
            headers=config.get("SVC_HEADERS"),
        )
    app.extensions[EXTENSION] = client
    app.jinja_env.globals.update(globals_for(client))
    return client


def get_client() -> Client:
    """The client of the current app (`init_app` first)."""
    client = current_app.extensions.get(EXTENSION)
    if not isinstance(client, Client):
        raise RuntimeError("svc_islands.flask: call init_app(app) first")
    return client


def render(
    name: str,
    props: Mapping[str, Any] | None = None,
    hydrate: str | None = None,
    fallback: Fallback = "client",
) -> Markup:
    """The island, as Markup for the template."""
    return Markup(get_client().render(name, props, hydrate, fallback))


def render_many(islands: Iterable[Island], fallback: Fallback = "client") -> list[Markup]:
    """A page's islands in one request, in order, as Markup for the template."""
    return [Markup(html) for html in get_client().render_many(islands, fallback)]


def loader_tag(islands: bool = False) -> Markup:
    """The loader's script tag (`islands=True`: `islands.js`)."""
    return Markup(get_client().loader_tag(islands))
