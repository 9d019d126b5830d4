"""What the client writes itself: containers, escaping, script tags, names and strategies."""

from __future__ import annotations

import json
import unittest

from svc_islands import Client, escape_html, escape_single_quoted, fallback_container, is_valid_hydrate, is_valid_name

from .support import container


class HtmlTest(unittest.TestCase):
    def test_props_are_escaped_for_a_single_quoted_attribute(self) -> None:
        self.assertEqual(escape_single_quoted("a&b<c>d'e\"f"), "a&amp;b&lt;c&gt;d&#39;e\"f")
        self.assertEqual(escape_html("a&b<c>d'e\"f"), "a&amp;b&lt;c&gt;d&#39;e&quot;f")
        props = {"q": "it's </div><script>alert(1)</script> & \"x\"", "é": "\u2028"}
        text = json.dumps(props, separators=(",", ":"), ensure_ascii=False)
        html = fallback_container("store:product", text, None, "Unavailable", "/svc")
        self.assertNotIn("</script>", html)
        self.assertNotIn("'", html.split("data-svc-props='", 1)[1].split("'", 1)[0])
        attrs = container(html)
        self.assertEqual(json.loads(attrs["data-svc-props"] or ""), props)
        self.assertEqual(attrs["data-svc-component"], "store:product")
        self.assertEqual(attrs["data-svc-hydrate"], "load")
        self.assertEqual(attrs["data-svc-api"], "/svc")

    def test_script_tags_name_the_public_url(self) -> None:
        client = Client("http://svc.internal:8000/api", public_url='https://shop.example/svc/"x"')
        self.assertEqual(
            client.loader_tag(),
            '<script src="https://shop.example/svc/&quot;x&quot;/loader.js"'
            ' data-svc-api="https://shop.example/svc/&quot;x&quot;" defer></script>',
        )
        self.assertIn("/islands.js", client.loader_tag(islands=True))

    def test_names_and_strategies_follow_svcs_grammar(self) -> None:
        for name in ("counter", "store:product", "ui.button", "_a.b_2"):
            self.assertTrue(is_valid_name(name), name)
        for name in ("", "a..b", "1a", "a/b", "a:b:c", "a-b", "x" * 201, "../x", None):
            self.assertFalse(is_valid_name(name), name)
        for value in ("load", "idle", "visible", "none", "media:(min-width: 800px)"):
            self.assertTrue(is_valid_hydrate(value), value)
        for value in ("", "media:", "later", "Load", None):
            self.assertFalse(is_valid_hydrate(value), value)


if __name__ == "__main__":
    unittest.main()
