"""svc islands from Python: React components rendered to HTML by svc, hydrated in the browser.

    import svc_islands

    client = svc_islands.Client("http://127.0.0.1:8000/api")
    card = client.render("product", {"name": "Mug", "price": 12.5}, hydrate="visible")
    cards = client.render_many([{"name": "product", "props": p} for p in products])
    script = client.loader_tag()

The module-level `render`, `render_many` and `loader_tag` use a client made from the
environment (`SVC_URL`, `SVC_PUBLIC_URL`, `SVC_TIMEOUT`). Django: `svc_islands.django`
(template tags); Jinja2 and Flask: `svc_islands.jinja`, `svc_islands.flask`.
"""

from ._html import escape_html, escape_single_quoted, fallback_container, is_valid_hydrate, is_valid_name
from .client import (
    DEFAULT_URL,
    MAX_BATCH_ISLANDS,
    Client,
    Fallback,
    Island,
    SvcError,
    default_client,
    loader_tag,
    render,
    render_many,
    set_default_client,
)

__all__ = [
    "DEFAULT_URL",
    "MAX_BATCH_ISLANDS",
    "Client",
    "Fallback",
    "Island",
    "SvcError",
    "default_client",
    "escape_html",
    "escape_single_quoted",
    "fallback_container",
    "is_valid_hydrate",
    "is_valid_name",
    "loader_tag",
    "render",
    "render_many",
    "set_default_client",
]

__version__ = "0.1.0"
