"""Connection reuse without svc: a server that closes kept-alive connections unannounced."""

from __future__ import annotations

import http.server
import threading
import unittest

from svc_islands import Client

from .support import container


class _ClosingHandler(http.server.BaseHTTPRequestHandler):
    """Answers as if keeping the connection alive, then closes it (as svc does after 5 s idle)."""

    protocol_version = "HTTP/1.1"
    connections: set[int] = set()
    requests = 0

    def do_POST(self) -> None:
        type(self).connections.add(id(self.connection))
        type(self).requests += 1
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = b'<div data-svc-component="x" data-svc-props=\'{}\' data-svc-ssr=""></div>'
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


class StaleConnectionTest(unittest.TestCase):
    def test_a_connection_the_server_closed_is_replaced_once(self) -> None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ClosingHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        client = Client(f"http://127.0.0.1:{server.server_address[1]}/api")
        self.addCleanup(client.close)
        for _ in range(3):
            with self.assertNoLogs("svc_islands"):
                html = client.render("x", fallback=None)
            self.assertIn("data-svc-ssr", container(html))
        self.assertEqual(_ClosingHandler.requests, 3)


if __name__ == "__main__":
    unittest.main()
