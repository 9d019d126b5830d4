from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

import svc_islands.django as svc

from .catalog import products


def product_list(request: HttpRequest) -> HttpResponse:
    # Every card in one request to svc; each hydrates when it scrolls into view.
    cards = svc.render_many(
        [{"name": "store:product", "props": p.props(), "hydrate": "visible"} for p in products()]
    )
    return render(request, "store/products.html", {"cards": cards})


def product(request: HttpRequest, pk: int) -> HttpResponse:
    found = next((p for p in products() if p.id == pk), None)
    if found is None:
        raise Http404("No such product")
    # The template renders this one with {% svc_island %}.
    return render(request, "store/product.html", {"product": found, "props": found.props("detail")})


def stylesheet(request: HttpRequest) -> HttpResponse:
    css = (settings.STYLESHEET_DIR / "store.css").read_bytes()
    return HttpResponse(css, content_type="text/css; charset=utf-8")
