#!/usr/bin/env python3
"""The store's product pages on Django, islands rendered by svc: `npm run example -- django`
starts svc and this together (or see docs/frameworks/django.md to run them yourself)."""

import os
import sys
from pathlib import Path

if __name__ == "__main__":
    # The svc_islands client from this repository (`pip install ./clients/python` elsewhere).
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "store_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
