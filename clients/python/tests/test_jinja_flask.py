"""Jinja2 globals (Flask, FastAPI, plain Jinja2) and the Flask helper."""

from __future__ import annotations

import unittest

from flask import Flask, render_template_string
from jinja2 import Environment
from markupsafe import Markup

import svc_islands.flask as svc_flask
from svc_islands import Client
from svc_islands.jinja import install

from .support import SVC_URL, closed_port, container, containers, requires_svc, text

PAGE = """<main>{{ svc_island("counter", props, hydrate="idle") }}
{% for card in svc_render_many(cards) %}{{ card }}{% endfor %}</main>{{ svc_loader(islands=True) }}"""


@requires_svc
class JinjaTest(unittest.TestCase):
    def test_globals_return_markup_autoescaping_leaves_alone(self) -> None:
        env = Environment(autoescape=True)
        client = Client(SVC_URL, public_url="/svc")
        self.addCleanup(client.close)
        install(env, client)
        page = env.from_string(PAGE).render(
            props={"start": 1, "label": "x<y"},
            cards=[{"name": "counter", "props": {"start": 2}}, {"name": "echo", "props": {"q": "'"}}],
        )
        found = containers(page)
        self.assertEqual([c["data-svc-component"] for c in found], ["counter", "counter", "echo"])
        self.assertEqual(found[0]["data-svc-hydrate"], "idle")
        self.assertIn("x&lt;y: 1</button>", text(page))
        self.assertTrue(page.endswith('<script src="/svc/islands.js" data-svc-api="/svc" defer></script>'))

    def test_the_extension_takes_the_environments_client(self) -> None:
        env = Environment(autoescape=True, extensions=["svc_islands.jinja.SvcIslandsExtension"])
        env.svc_client = Client(SVC_URL)  # type: ignore[attr-defined]
        html = env.from_string('{{ svc_island("counter", {"start": 4}) }}').render()
        self.assertIn("data-svc-ssr", container(html))
        self.assertIsInstance(env.globals["svc_loader"](), Markup)  # type: ignore[operator]


class FlaskTest(unittest.TestCase):
    def app(self, url: str) -> Flask:
        app = Flask(__name__)
        app.config.update(SVC_URL=url, SVC_PUBLIC_URL="http://127.0.0.1:8000/api")
        svc_flask.init_app(app)

        @app.get("/")
        def home() -> str:
            cards = svc_flask.render_many([{"name": "counter", "props": {"start": n}} for n in (10, 20)])
            return render_template_string(
                '{{ svc_island("counter", {"start": 1}) }}{% for c in cards %}{{ c }}{% endfor %}{{ svc_loader() }}',
                cards=cards,
            )

        return app

    @requires_svc
    def test_init_app_registers_the_globals_from_the_config(self) -> None:
        answer = self.app(SVC_URL).test_client().get("/")
        self.assertEqual(answer.status_code, 200)
        page = answer.get_data(as_text=True)
        self.assertEqual([("data-svc-ssr" in c) for c in containers(page)], [True, True, True])
        self.assertIn("20</button>", text(page))
        self.assertIn('<script src="http://127.0.0.1:8000/api/loader.js"', page)

    def test_with_svc_down_the_page_still_comes(self) -> None:
        with self.assertLogs("svc_islands", "WARNING"):
            answer = self.app(f"http://127.0.0.1:{closed_port()}/api").test_client().get("/")
        self.assertEqual(answer.status_code, 200)
        found = containers(answer.get_data(as_text=True))
        self.assertEqual([c["data-svc-fallback"] for c in found], ["Unavailable"] * 3)
        self.assertEqual({c["data-svc-api"] for c in found}, {"http://127.0.0.1:8000/api"})

    def test_helpers_need_init_app(self) -> None:
        with Flask(__name__).app_context(), self.assertRaises(RuntimeError):
            svc_flask.get_client()


if __name__ == "__main__":
    unittest.main()
