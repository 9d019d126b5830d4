"""Persistent HTTP/1.1 connections to one svc server, shared by the threads of a process.

`urllib.request` opens a connection per request; a page of islands would pay a TCP handshake
(and, over TLS, more) for each. This keeps idle `http.client` connections in a small stack:
a request takes one (or opens one), and gives it back once its answer is read whole.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Mapping

# svc closes a keep-alive connection after 5 s idle: one kept longer is likely closed already,
# and a request sent on it fails (it is then sent once more on a fresh one; see `request`).
IDLE_SECONDS = 4.0


@dataclass
class Answer:
    status: int
    content_type: str
    body: bytes


class Deadline:
    """A point in time, and what is left of it for the next step of a request."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        left = self.at - time.monotonic()
        if left <= 0:
            raise socket.timeout("timed out")
        return left


class ConnectionPool:
    """Idle connections to `scheme://host:port`, at most `max_idle` of them kept."""

    def __init__(self, scheme: str, host: str, port: int | None, *, max_idle: int = 8) -> None:
        self._scheme = scheme
        self._host = host
        self._port = port
        self._max_idle = max_idle
        self._idle: list[tuple[http.client.HTTPConnection, float]] = []
        self._lock = threading.Lock()
        self._context = ssl.create_default_context() if scheme == "https" else None

    def _open(self, timeout: float) -> http.client.HTTPConnection:
        if self._context is not None:
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=timeout, context=self._context
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _take(self) -> http.client.HTTPConnection | None:
        now = time.monotonic()
        stale: list[http.client.HTTPConnection] = []
        taken = None
        with self._lock:
            while self._idle:
                connection, since = self._idle.pop()
                if now - since < IDLE_SECONDS:
                    taken = connection
                    break
                stale.append(connection)
        for connection in stale:
            connection.close()
        return taken

    def _give_back(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < self._max_idle:
                self._idle.append((connection, time.monotonic()))
                return
        connection.close()

    def request(
        self,
        method: str,
        path: str,
        body: bytes,
        headers: Mapping[str, str],
        deadline: Deadline,
    ) -> Answer:
        """Sends the request and reads its whole answer before `deadline`. A reused connection
        the server has closed meanwhile is replaced once (svc's renders have no side effects,
        so sending a render twice is safe). Raises OSError (socket.timeout on the deadline) or
        http.client.HTTPException."""
        for attempt in (1, 2):
            connection = self._take() if attempt == 1 else None
            reused = connection is not None
            if connection is None:
                connection = self._open(deadline.left())
            try:
                if connection.sock is None:
                    connection.timeout = deadline.left()
                    connection.connect()
                connection.sock.settimeout(deadline.left())  # type: ignore[union-attr]
                connection.request(method, path, body=body, headers=dict(headers))
                response = connection.getresponse()
                connection.sock.settimeout(deadline.left())  # type: ignore[union-attr]
                data = response.read()
            except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError):
                # `http.client.RemoteDisconnected` is a ConnectionResetError: no answer at all.
                connection.close()
                if reused:
                    continue
                raise
            except BaseException:
                connection.close()
                raise
            if response.will_close:
                connection.close()
            else:
                self._give_back(connection)
            return Answer(response.status, response.getheader("content-type") or "", data)
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        """Closes the idle connections (those in use close when their request ends)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for connection, _ in idle:
            connection.close()
