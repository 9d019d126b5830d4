"""The store's product pages on Flask, islands rendered by svc: `npm run example -- flask`
starts svc and this together (or see docs/frameworks/flask.md to run them yourself)."""

from __future__ import annotations

import json
import os
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

# The svc_islands client from this repository (`pip install ./clients/python` elsewhere).
EXAMPLES = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(EXAMPLES.parent / "clients" / "python"))

from flask import Flask, abort, render_template, send_from_directory  # noqa: E402

import svc_islands.flask as svc  # noqa: E402

STORE = EXAMPLES / "store"

app = Flask(__name__)
# Where this server reaches svc's API, and where browsers do (svc on another port here: svc
# runs with --public-url and --cors-origin for this site's origin).
app.config["SVC_URL"] = os.environ.get("SVC_URL", "http://127.0.0.1:3001/api")
app.config["SVC_PUBLIC_URL"] = os.environ.get("SVC_PUBLIC_URL")
svc.init_app(app)


def load_products() -> list[dict[str, Any]]:
    rows = json.loads((STORE / "fixtures" / "products.json").read_text(encoding="utf-8"))
    return [
        {"id": i, "name": r["name"], "description": r["description"], "price": Decimal(r["price"]), "image": r["image"]}
        for i, r in enumerate(rows, start=1)
    ]


PRODUCTS = load_products()


def card_props(product: dict[str, Any], mode: str = "list") -> dict[str, Any]:
    """The props of `store:product` (its schema.json: name, price required)."""
    props: dict[str, Any] = {
        "name": product["name"],
        "price": float(product["price"]),  # JSON has no decimals
        "description": product["description"],
        "imageUrl": f"/images/{product['image']}",
    }
    if mode == "detail":
        props["mode"] = "detail"
    else:
        props["url"] = f"/product/{product['id']}"
    return props


@app.get("/")
def product_list() -> str:
    # Every card in one request to svc; each hydrates when it scrolls into view.
    cards = svc.render_many(
        [{"name": "store:product", "props": card_props(p), "hydrate": "visible"} for p in PRODUCTS]
    )
    return render_template("products.html", cards=cards)


@app.get("/product/<int:pk>")
def product(pk: int) -> str:
    found = next((p for p in PRODUCTS if p["id"] == pk), None)
    if found is None:
        abort(404)
    # The template renders this one with svc_island().
    return render_template("product.html", product=found, props=card_props(found, "detail"))


@app.get("/static/store.css")
def stylesheet() -> Any:
    return send_from_directory(STORE / "public", "store.css")


@app.get("/images/<path:name>")
def image(name: str) -> Any:
    return send_from_directory(STORE / "fixtures" / "images", name)


if __name__ == "__main__":
    app.run(host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "3000")))
