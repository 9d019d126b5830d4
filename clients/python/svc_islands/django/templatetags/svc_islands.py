"""`{% load svc_islands %}`: `{% svc_island name props hydrate=… fallback=… %}` and
`{% svc_loader %}` (`{% svc_loader islands=True %}` for `islands.js`)."""

from __future__ import annotations

from typing import Any, Mapping

from django import template
from django.utils.safestring import SafeString

from svc_islands.client import Fallback
from svc_islands.django import loader_tag, render

register = template.Library()


@register.simple_tag
def svc_island(
    name: str,
    props: Mapping[str, Any] | None = None,
    hydrate: str | None = None,
    fallback: Fallback = "client",
) -> SafeString:
    """The island of component `name` with `props` (a dict from the context)."""
    return render(name, props, hydrate, fallback)


@register.simple_tag
def svc_loader(islands: bool = False) -> SafeString:
    """The loader's script tag, once per page (at the end of `<body>`)."""
    return loader_tag(islands)
