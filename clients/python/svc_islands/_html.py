"""The HTML svc writes, as the Python side needs to write it itself: escaping, the container
the browser renders when the server could not (the same bytes svc's own fallback writes,
packages/server/src/ssr/islandRenderer.ts), and the loader's script tag."""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

# The grammar of packages/protocol/src/names.ts: dot-joined identifiers, optionally behind
# one "prefix:". Nothing else can be a component, so nothing else goes into a URL path.
_SEGMENT = r"[A-Za-z_][A-Za-z0-9_]*"
_NAME = re.compile(rf"(?:{_SEGMENT}:)?{_SEGMENT}(?:\.{_SEGMENT})*")
MAX_NAME_LENGTH = 200

HYDRATE_STRATEGIES = ("load", "idle", "visible", "none")


def is_valid_name(name: object) -> bool:
    """Whether `name` is a well-formed component name (`product`, `store:product`, `ui.button`)."""
    return isinstance(name, str) and len(name) <= MAX_NAME_LENGTH and _NAME.fullmatch(name) is not None


def is_valid_hydrate(value: object) -> bool:
    """Whether `value` names a hydration strategy: load, idle, visible, none or media:(<query>)."""
    if not isinstance(value, str):
        return False
    if value in HYDRATE_STRATEGIES:
        return True
    return value.startswith("media:") and len("media:") < len(value) < 500


def escape_single_quoted(text: str) -> str:
    """Text for a single-quoted attribute value: `&`, `<`, `>` and `'` (not `"`), as svc does
    for the props' JSON, whose every `"` then goes out as it is."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
    )


def escape_html(text: str) -> str:
    """Text for element content or a double-quoted attribute value."""
    return escape_single_quoted(text).replace('"', "&quot;")


def props_json(props: Mapping[str, Any]) -> str:
    """The props as the JSON svc reads and writes: compact, UTF-8 as it is, no NaN or Infinity
    (which JSON cannot carry). Raises TypeError or ValueError for what JSON cannot hold."""
    return json.dumps(props, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def fallback_container(
    name: str, props_text: str, hydrate: str | None, kind: str, public_url: str
) -> str:
    """The container the loader renders in the browser (no `data-svc-ssr`), for the same props;
    `data-svc-fallback` says why the server did not render it. `props_text` is the props' JSON."""
    return (
        f'<div data-svc-component="{escape_html(name)}"'
        f" data-svc-props='{escape_single_quoted(props_text)}'"
        f' data-svc-hydrate="{escape_html(hydrate or "load")}"'
        f' data-svc-fallback="{escape_html(kind)}"'
        f' data-svc-api="{escape_html(public_url)}"></div>'
    )


def script_tag(public_url: str, file: str) -> str:
    """`<script src="{public_url}/{file}" data-svc-api="{public_url}" defer></script>`."""
    url = escape_html(public_url)
    return f'<script src="{url}/{escape_html(file)}" data-svc-api="{url}" defer></script>'
