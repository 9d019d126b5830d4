"""The client against a real svc (see support.py): islands, batches, fallbacks, timeouts,
connection reuse."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
import time
import unittest
from unittest import mock

import svc_islands
from svc_islands import Client, SvcError

from .support import SVC_URL, closed_port, container, containers, requires_stats, requires_svc, seen, text

TRICKY = {
    "text": "</script><b>it's \"quoted\" & <escaped></b>",
    "unicode": "café ✓ \u2028",
    "nested": {"list": [1, 2.5, True, None], "empty": {}},
}


@requires_svc
class RenderTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(SVC_URL)
        self.addCleanup(self.client.close)

    def test_render_answers_the_island_rendered_on_the_server(self) -> None:
        html = self.client.render("counter", {"start": 3, "label": "one"}, hydrate="visible")
        attrs = container(html)
        self.assertEqual(attrs["data-svc-component"], "counter")
        self.assertIn("data-svc-ssr", attrs)
        self.assertEqual(attrs["data-svc-hydrate"], "visible")
        self.assertRegex(attrs["data-svc-hash"] or "", r"^[0-9a-f]{12}$")
        self.assertEqual(json.loads(attrs["data-svc-props"] or ""), {"start": 3, "label": "one"})
        self.assertIn("one: 3", text(html))

    def test_props_default_to_none_and_hydrate_to_load(self) -> None:
        attrs = container(self.client.render("counter"))
        self.assertEqual(attrs["data-svc-props"], "{}")
        self.assertEqual(attrs["data-svc-hydrate"], "load")

    def test_props_cross_as_they_are(self) -> None:
        html = self.client.render("echo", TRICKY)
        self.assertEqual(json.loads(container(html)["data-svc-props"] or ""), TRICKY)
        self.assertNotIn("</script>", html)

    @requires_stats
    def test_render_many_renders_a_page_of_islands_in_one_request_in_order(self) -> None:
        before = seen()["requests"]
        html = self.client.render_many(
            [
                {"name": "counter", "props": {"start": 1, "label": "a"}},
                {"name": "echo", "props": {"x": 1}, "hydrate": "idle"},
                {"name": "counter", "props": {"start": 2, "label": "b"}, "hydrate": "media:(min-width: 1px)"},
            ]
        )
        self.assertEqual(seen()["requests"][len(before) :], ["POST /api/islands"])
        self.assertEqual(len(html), 3)
        self.assertIn("a: 1", text(html[0]))
        self.assertEqual(container(html[1])["data-svc-hydrate"], "idle")
        self.assertEqual(container(html[2])["data-svc-hydrate"], "media:(min-width: 1px)")
        self.assertIn("b: 2", text(html[2]))
        self.assertEqual(self.client.render_many([]), [])

    @requires_stats
    def test_render_many_splits_past_256_islands(self) -> None:
        before = seen()["requests"]
        html = self.client.render_many([{"name": "echo", "props": {"i": i}} for i in range(300)])
        self.assertEqual(seen()["requests"][len(before) :], ["POST /api/islands"] * 2)
        self.assertEqual([json.loads(container(h)["data-svc-props"] or "")["i"] for h in html], list(range(300)))

    def test_async_variants_render_in_a_thread(self) -> None:
        async def page() -> tuple[str, list[str]]:
            return await asyncio.gather(
                self.client.arender("counter", {"start": 5}),
                self.client.arender_many([{"name": "counter", "props": {"start": 6}}]),
            )

        one, many = asyncio.run(page())
        self.assertIn("5</button>", text(one))
        self.assertIn("6</button>", text(many[0]))


@requires_svc
class ErrorsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(SVC_URL)
        self.addCleanup(self.client.close)

    def test_a_component_that_throws_falls_back_to_the_browser(self) -> None:
        props = {"why": "it's <broken> & \"loud\""}
        html = self.client.render("crasher", props, hydrate="visible")
        attrs = container(html)
        self.assertNotIn("data-svc-ssr", attrs)
        self.assertEqual(attrs["data-svc-fallback"], "RenderError")
        self.assertEqual(attrs["data-svc-hydrate"], "visible")
        self.assertEqual(json.loads(attrs["data-svc-props"] or ""), props)

    def test_without_fallback_a_render_error_raises(self) -> None:
        with self.assertRaises(SvcError) as caught:
            self.client.render("crasher", fallback=None)
        error = caught.exception
        self.assertEqual((error.kind, error.status, error.name), ("RenderError", 500, "crasher"))
        self.assertIn("boom", error.message)

    def test_one_failing_island_never_fails_the_others(self) -> None:
        html = self.client.render_many(
            [
                {"name": "counter", "props": {"start": 1}},
                {"name": "crasher", "props": {"n": 1}},
                {"name": "counter", "props": {"start": 2}},
            ]
        )
        self.assertIn("data-svc-ssr", container(html[0]))
        self.assertEqual(container(html[1])["data-svc-fallback"], "RenderError")
        self.assertIn("data-svc-ssr", container(html[2]))
        with self.assertRaises(SvcError) as caught:
            self.client.render_many(
                [{"name": "counter"}, {"name": "crasher", "fallback": None}], fallback="client"
            )
        self.assertEqual(caught.exception.kind, "RenderError")

    def test_the_fallback_container_matches_the_servers_byte_for_byte(self) -> None:
        server = self.client.render("crasher", TRICKY, hydrate="idle")
        ours = svc_islands.fallback_container(
            "crasher",
            json.dumps(TRICKY, separators=(",", ":"), ensure_ascii=False),
            "idle",
            "RenderError",
            self.client.public_url,
        )
        # svc adds the bundle's hash, which the client cannot know; the rest is the same.
        self.assertEqual(re.sub(r' data-svc-hash="[0-9a-f]+"', "", server), ours)

    def test_invalid_props_raise_whatever_the_fallback(self) -> None:
        for fallback in ("client", None):
            with self.assertRaises(SvcError) as caught:
                self.client.render("product", {"name": "Mug", "price": -1}, fallback=fallback)
            self.assertEqual((caught.exception.kind, caught.exception.status), ("InvalidProps", 422))
            self.assertIn("price", caught.exception.message)
        with self.assertRaises(SvcError) as caught:
            self.client.render_many([{"name": "product", "props": {"name": "Mug", "price": 1}}, {"name": "product"}])
        self.assertEqual((caught.exception.kind, caught.exception.status), ("InvalidProps", 422))

    def test_mistakes_in_the_call_raise_before_any_request(self) -> None:
        cases = [
            (("../x",), "InvalidComponentName"),
            (("counter", {"start": float("nan")}), "InvalidProps"),
            (("counter", {"when": object()}), "InvalidProps"),
            (("counter", ["not", "a", "dict"]), "InvalidProps"),
            (("counter", None, "sometimes"), "InvalidProps"),
        ]
        for args, kind in cases:
            with self.subTest(args=args), self.assertRaises(SvcError) as caught:
                self.client.render(*args)  # type: ignore[arg-type]
            self.assertEqual(caught.exception.kind, kind)

    def test_an_unknown_component_raises(self) -> None:
        with self.assertRaises(SvcError) as caught:
            self.client.render("nothing_here")
        self.assertEqual((caught.exception.kind, caught.exception.status), ("ComponentNotFound", 404))

    def test_too_slow_falls_back_within_the_timeout_or_raises(self) -> None:
        client = Client(SVC_URL, timeout=0.5)
        self.addCleanup(client.close)
        started = time.monotonic()
        with self.assertLogs("svc_islands", "WARNING"):
            html = client.render("slow", {"ms": 3000, "id": "fallback"})
        self.assertLess(time.monotonic() - started, 1.5)
        self.assertEqual(container(html)["data-svc-fallback"], "Timeout")
        with self.assertRaises(SvcError) as caught:
            client.render_many([{"name": "slow", "props": {"ms": 3000, "id": "raise"}}], fallback=None)
        self.assertEqual((caught.exception.kind, caught.exception.status), ("Timeout", None))
        # The connection a timed-out request was on is not reused: the next answer is its own.
        self.assertIn("data-svc-ssr", container(client.render("counter", {"start": 1})))


class UnavailableTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(f"http://127.0.0.1:{closed_port()}/api", public_url="https://cdn.example/svc")
        self.addCleanup(self.client.close)

    def test_svc_down_gives_containers_the_browser_renders_logged_once(self) -> None:
        with self.assertLogs("svc_islands", "DEBUG") as logs:
            one = self.client.render("counter", {"start": 1}, hydrate="visible")
            many = self.client.render_many([{"name": "counter"}, {"name": "echo", "props": TRICKY}])
        self.assertEqual(
            one,
            '<div data-svc-component="counter" data-svc-props=\'{"start":1}\' data-svc-hydrate="visible"'
            ' data-svc-fallback="Unavailable" data-svc-api="https://cdn.example/svc"></div>',
        )
        self.assertEqual([c["data-svc-fallback"] for c in containers("".join(many))], ["Unavailable"] * 2)
        self.assertEqual(json.loads(container(many[1])["data-svc-props"] or ""), TRICKY)
        self.assertEqual([r.levelname for r in logs.records], ["WARNING", "DEBUG"])
        self.assertIn("cannot reach svc", logs.records[0].getMessage())

    def test_without_fallback_svc_down_raises(self) -> None:
        with self.assertRaises(SvcError) as caught:
            self.client.render("counter", fallback=None)
        self.assertEqual((caught.exception.kind, caught.exception.status), ("Unavailable", None))


@requires_stats
class ConnectionsTest(unittest.TestCase):
    def test_renders_share_one_connection(self) -> None:
        client = Client(SVC_URL)
        self.addCleanup(client.close)
        before = seen()
        for start in range(5):
            client.render("counter", {"start": start})
        client.render_many([{"name": "counter"}, {"name": "echo"}])
        after = seen()
        self.assertEqual(len(after["requests"]) - len(before["requests"]), 6)
        self.assertEqual(after["connections"] - before["connections"], 1)

    def test_threads_share_the_pool(self) -> None:
        client = Client(SVC_URL)
        self.addCleanup(client.close)
        before = seen()["connections"]
        results: list[str] = []
        lock = threading.Lock()

        def work(n: int) -> None:
            for i in range(4):
                html = client.render("counter", {"start": n * 10 + i})
                with lock:
                    results.append(html)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(len(results), 24)
        self.assertTrue(all("data-svc-ssr" in html for html in results))
        self.assertLessEqual(seen()["connections"] - before, 6)


@requires_svc
class DefaultClientTest(unittest.TestCase):
    def test_module_functions_use_the_environment(self) -> None:
        with mock.patch.dict(os.environ, {"SVC_URL": SVC_URL, "SVC_PUBLIC_URL": "/svc"}):
            svc_islands.set_default_client(None)
            self.addCleanup(svc_islands.set_default_client, None)
            self.assertIn("data-svc-ssr", svc_islands.render("counter", {"start": 1}))
            self.assertEqual(len(svc_islands.render_many([{"name": "counter"}])), 1)
            self.assertEqual(
                svc_islands.loader_tag(),
                '<script src="/svc/loader.js" data-svc-api="/svc" defer></script>',
            )
            self.assertEqual(
                svc_islands.loader_tag(islands=True),
                '<script src="/svc/islands.js" data-svc-api="/svc" defer></script>',
            )


class ConfigurationTest(unittest.TestCase):
    def test_base_url_must_be_an_http_url(self) -> None:
        for url in ("127.0.0.1:8000", "ftp://x/api", "http://x/api?q=1", ""):
            with self.subTest(url=url), self.assertRaises(ValueError):
                Client(url)
        with self.assertRaises(ValueError):
            Client("http://x/api", timeout=0)
        self.assertEqual(Client("http://x:1/api/").public_url, "http://x:1/api")


if __name__ == "__main__":
    logging.basicConfig()
    unittest.main()
