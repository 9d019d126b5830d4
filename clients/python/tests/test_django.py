"""The Django app: template tags, render_many from a view, settings."""

from __future__ import annotations

import unittest

import django
from django.conf import settings

from .support import SVC_URL, closed_port, container, containers, requires_svc, text

if not settings.configured:
    settings.configure(
        INSTALLED_APPS=["svc_islands.django"],
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}],
        SVC_URL=SVC_URL or "http://127.0.0.1:9/api",
        USE_TZ=True,
    )
    django.setup()

from django.apps import apps  # noqa: E402
from django.template import engines  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from django.utils.safestring import SafeString  # noqa: E402

import svc_islands.django as svc_django  # noqa: E402
from svc_islands import SvcError  # noqa: E402


def render(template: str, **context: object) -> str:
    return engines["django"].from_string("{% load svc_islands %}" + template).render(context)


@requires_svc
class TemplateTagsTest(unittest.TestCase):
    def test_svc_island_puts_the_island_into_the_page_as_it_is(self) -> None:
        page = render(
            '<main>{% svc_island "counter" props hydrate="visible" %}</main>{% svc_loader %}',
            props={"start": 7, "label": "<b>tag</b>"},
        )
        attrs = container(page)
        self.assertIn("data-svc-ssr", attrs)
        self.assertEqual(attrs["data-svc-hydrate"], "visible")
        # React escaped the label; Django did not escape svc's HTML a second time.
        self.assertIn("&lt;b&gt;tag&lt;/b&gt;: 7</button>", text(page))
        self.assertTrue(page.endswith(f'<script src="{SVC_URL}/loader.js" data-svc-api="{SVC_URL}" defer></script>'))

    def test_svc_loader_islands_is_the_small_script(self) -> None:
        self.assertIn("/islands.js", render("{% svc_loader islands=True %}"))

    def test_render_many_in_a_view_gives_safe_strings_for_the_template(self) -> None:
        cards = svc_django.render_many(
            [{"name": "counter", "props": {"start": n, "label": f"#{n}"}, "hydrate": "visible"} for n in range(3)]
        )
        self.assertTrue(all(isinstance(card, SafeString) for card in cards))
        page = render("{% for card in cards %}<li>{{ card }}</li>{% endfor %}", cards=cards)
        self.assertEqual(len(containers(page)), 3)
        self.assertIn("#2: 2</button>", text(page))

    def test_without_fallback_an_error_reaches_the_view(self) -> None:
        with self.assertRaises(SvcError) as caught:
            render('{% svc_island "crasher" fallback=None %}')
        self.assertEqual(caught.exception.kind, "RenderError")
        self.assertEqual(container(render('{% svc_island "crasher" %}'))["data-svc-fallback"], "RenderError")


class SettingsTest(unittest.TestCase):
    def test_settings_choose_the_client_and_the_public_url(self) -> None:
        down = f"http://127.0.0.1:{closed_port()}/api"
        with override_settings(SVC_URL=down, SVC_PUBLIC_URL="/svc", SVC_TIMEOUT=2):
            client = svc_django.get_client()
            self.assertEqual((client.base_url, client.public_url, client.timeout), (down, "/svc", 2.0))
            self.assertIs(svc_django.get_client(), client)
            with self.assertLogs("svc_islands", "WARNING"):
                page = render('{% svc_island "counter" props %}{% svc_loader %}', props={"start": 1})
        self.assertEqual(container(page)["data-svc-fallback"], "Unavailable")
        self.assertEqual(container(page)["data-svc-api"], "/svc")
        self.assertIn('<script src="/svc/loader.js"', page)

    def test_the_app_is_named_svc_islands(self) -> None:
        self.assertEqual(apps.get_app_config("svc_islands").name, "svc_islands.django")


if __name__ == "__main__":
    unittest.main()
