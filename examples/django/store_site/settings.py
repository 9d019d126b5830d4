"""Settings of the store example on Django: no database, one app, svc's template tags."""

import os
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2]

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "svc-example-not-secret")
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "store_site.urls"
INSTALLED_APPS = [
    "svc_islands.django",  # {% load svc_islands %}
    "store_site",
]
MIDDLEWARE: list[str] = []
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
    }
]
DATABASES: dict[str, dict[str, str]] = {}
USE_TZ = True

# Where this server reaches svc's API, and where browsers do (svc on another port here: svc
# runs with --public-url and --cors-origin for this site's origin).
SVC_URL = os.environ.get("SVC_URL", "http://127.0.0.1:3001/api")
SVC_PUBLIC_URL = os.environ.get("SVC_PUBLIC_URL") or None
SVC_TIMEOUT = 5

# The store example's seed data and pictures, shared with the Node versions.
PRODUCTS_FILE = EXAMPLES / "store" / "fixtures" / "products.json"
IMAGES_DIR = EXAMPLES / "store" / "fixtures" / "images"
STYLESHEET_DIR = EXAMPLES / "store" / "public"
