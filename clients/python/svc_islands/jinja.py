"""svc islands in Jinja2 templates (Flask, FastAPI's `Jinja2Templates`, Starlette, plain
Jinja2): globals that return `markupsafe.Markup`, so autoescaping leaves svc's HTML as it is.

    svc_islands.jinja.install(env, Client("http://127.0.0.1:8000/api"))

    {{ svc_island("product", product, hydrate="visible") }}
    {% for card in cards %}{{ card }}{% endfor %}   {# cards = svc_render_many([...]) #}
    {{ svc_loader() }}

Or as an extension: `Environment(extensions=["svc_islands.jinja.SvcIslandsExtension"])`, with
the client from `env.svc_client` (set it after creating the environment) or the environment
variables `SVC_URL`, `SVC_PUBLIC_URL`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from jinja2 import Environment
from jinja2.ext import Extension
from markupsafe import Markup

from .client import Client, Fallback, Island, default_client

__all__ = ["SvcIslandsExtension", "globals_for", "install"]


def globals_for(client: Client | Callable[[], Client]) -> dict[str, Callable[..., Any]]:
    """`svc_island`, `svc_render_many` and `svc_loader` for `client` (or a function that
    gives the client at call time)."""
    if isinstance(client, Client):
        fixed = client

        def get() -> Client:
            return fixed

    else:
        get = client

    def svc_island(
        name: str,
        props: Mapping[str, Any] | None = None,
        hydrate: str | None = None,
        fallback: Fallback = "client",
    ) -> Markup:
        return Markup(get().render(name, props, hydrate, fallback))

    def svc_render_many(islands: Iterable[Island], fallback: Fallback = "client") -> list[Markup]:
        return [Markup(html) for html in get().render_many(islands, fallback)]

    def svc_loader(islands: bool = False) -> Markup:
        return Markup(get().loader_tag(islands))

    return {"svc_island": svc_island, "svc_render_many": svc_render_many, "svc_loader": svc_loader}


def install(environment: Environment, client: Client | Callable[[], Client] | None = None) -> None:
    """Adds the globals to `environment`, rendering with `client` (default: the environment
    variables' client, `svc_islands.default_client()`)."""
    environment.globals.update(globals_for(client if client is not None else default_client))


class SvcIslandsExtension(Extension):
    """The globals as a Jinja2 extension; the client is `environment.svc_client` when set,
    else the environment variables' (`SVC_URL`, `SVC_PUBLIC_URL`)."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.extend(svc_client=None)

        def current() -> Client:
            client = getattr(environment, "svc_client", None)
            return client if isinstance(client, Client) else default_client()

        environment.globals.update(globals_for(current))
