"""The products: the store example's seed file, read once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from django.conf import settings

from .svc_types import StoreProductProps


@dataclass(frozen=True)
class Product:
    id: int
    name: str
    description: str
    price: Decimal
    image: str

    def props(self, mode: str = "list") -> StoreProductProps:
        """The props of `store:product` (checked by mypy against its schema.json: svc_types.py)."""
        props: StoreProductProps = {
            "name": self.name,
            # JSON has no decimals: svc's schema says number.
            "price": float(self.price),
            "description": self.description,
            "imageUrl": f"/images/{self.image}",
        }
        if mode == "detail":
            props["mode"] = "detail"
        else:
            props["url"] = f"/product/{self.id}"
        return props


@lru_cache(maxsize=1)
def products() -> tuple[Product, ...]:
    rows = json.loads(settings.PRODUCTS_FILE.read_text(encoding="utf-8"))
    return tuple(
        Product(i, row["name"], row["description"], Decimal(row["price"]), row["image"])
        for i, row in enumerate(rows, start=1)
    )
