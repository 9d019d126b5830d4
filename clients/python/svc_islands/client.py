"""The client of svc's island endpoints: `POST {base}/bundles/{name}/html` for one island,
`POST {base}/islands` for a page's islands in one request."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import os
import socket
import threading
import urllib.parse
from typing import Any, Iterable, Literal, Mapping, Optional, Sequence, TypedDict

from ._html import (
    fallback_container,
    is_valid_hydrate,
    is_valid_name,
    props_json,
    script_tag,
)
from ._pool import Answer, ConnectionPool, Deadline

logger = logging.getLogger("svc_islands")

Fallback = Optional[Literal["client"]]

#: The most islands svc renders in one request, and the largest body it reads.
MAX_BATCH_ISLANDS = 256
MAX_BODY_BYTES = 1024 * 1024

#: svc serve's API on its default port: the base URL when neither the code nor SVC_URL says.
DEFAULT_URL = "http://127.0.0.1:8000/api"


class SvcError(Exception):
    """What svc answered instead of an island, or why it could not be asked.

    `kind` is svc's error kind (`InvalidProps`, `ComponentNotFound`, `RenderError`,
    `RenderTimeout`, `Overloaded`, …) or the client's own: `Unavailable` (no connection, or an
    answer that is not svc's) and `Timeout` (no answer within the client's timeout). `status`
    is the HTTP status (None when there was none); `name` the component, when known.
    """

    def __init__(
        self, kind: str, message: str, *, status: int | None = None, name: str | None = None
    ) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.status = status
        self.name = name

    @property
    def is_callers(self) -> bool:
        """The request itself is wrong (a 4xx: invalid props, an unknown component or name, a
        body too large): a programming error, raised whatever the fallback — the browser could
        not render it either."""
        return self.status is not None and 400 <= self.status < 500 and self.status not in (408, 429)


class _IslandRequired(TypedDict):
    name: str


class Island(_IslandRequired, total=False):
    """One island of `render_many`: the component's name and its props (JSON-able)."""

    props: Mapping[str, Any]
    hydrate: Optional[str]
    fallback: Fallback


class _Prepared:
    """An island checked and serialised, ready to be sent or to fall back."""

    __slots__ = ("name", "props_text", "hydrate", "fallback")

    def __init__(self, name: str, props_text: str, hydrate: str | None, fallback: Fallback) -> None:
        self.name = name
        self.props_text = props_text
        self.hydrate = hydrate
        self.fallback = fallback


class Client:
    """Renders islands with svc over HTTP.

    `base_url` is svc's API prefix as this process reaches it (`http://127.0.0.1:8000/api`),
    `public_url` the same as browsers reach it (default: `base_url`): the loader tag and the
    containers the client writes itself name it. `timeout` bounds each request, in seconds.
    `headers` go with every request (e.g. a proxy's authorisation). Safe to share between
    threads; keeps up to 8 idle connections for reuse.
    """

    def __init__(
        self,
        base_url: str,
        *,
        public_url: str | None = None,
        timeout: float = 5.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"svc_islands: base_url must be an http(s) URL such as {DEFAULT_URL}, not {base_url!r}"
            )
        if parts.query or parts.fragment:
            raise ValueError(f"svc_islands: base_url {base_url!r} must not have a query or fragment")
        if timeout <= 0:
            raise ValueError(f"svc_islands: timeout must be above 0 seconds, not {timeout!r}")
        self.base_url = base_url.rstrip("/")
        self.public_url = (public_url if public_url is not None else base_url).rstrip("/")
        self.timeout = float(timeout)
        self._prefix = parts.path.rstrip("/")
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "text/html, application/json",
            "User-Agent": "svc-islands-python/0.1",
            **(headers or {}),
        }
        self._pool = ConnectionPool(parts.scheme, parts.hostname, parts.port)
        self._lock = threading.Lock()
        self._outage: str | None = None

    # -- the API -------------------------------------------------------------------------

    def render(
        self,
        name: str,
        props: Mapping[str, Any] | None = None,
        hydrate: str | None = None,
        fallback: Fallback = "client",
    ) -> str:
        """The island of component `name` with `props`, as HTML to put into the page.

        With `fallback="client"` (the default) a failure of svc's — unreachable, too slow, a
        component that throws or times out, svc overloaded — gives a container the browser
        renders itself, and is logged; with `fallback=None` it raises `SvcError`. A wrong
        request (invalid props, an unknown component) raises `SvcError` either way.
        """
        island = self._prepare(name, props, hydrate, fallback)
        query = {"hydrate": hydrate} if hydrate is not None else {}
        if fallback == "client":
            query["fallback"] = "client"
        path = f"{self._prefix}/bundles/{urllib.parse.quote(name, safe=':.')}/html"
        if query:
            path += "?" + urllib.parse.urlencode(query)
        try:
            answer = self._post(path, island.props_text.encode("utf-8"))
            if answer.status == 200 and answer.content_type.startswith("text/html"):
                return answer.body.decode("utf-8")
            raise _error_of(answer, name)
        except SvcError as error:
            return self._fail([island], error)

    def render_many(
        self, islands: Iterable[Island], fallback: Fallback = "client"
    ) -> list[str]:
        """The islands of a page, rendered together in one request (one per 256 islands or
        1 MiB of props): their HTML in the same order. Each item is a dict with `name`,
        `props` and optionally `hydrate` and `fallback` (the call's `fallback` otherwise).
        One island's failure never fails the others: each falls back or raises as `render`.
        """
        prepared = [
            self._prepare(
                item["name"],
                item.get("props"),
                item.get("hydrate"),
                item["fallback"] if "fallback" in item else fallback,
            )
            for item in islands
        ]
        results: list[str] = []
        for chunk in _chunks(prepared):
            results.extend(self._render_chunk(chunk))
        return results

    async def arender(
        self,
        name: str,
        props: Mapping[str, Any] | None = None,
        hydrate: str | None = None,
        fallback: Fallback = "client",
    ) -> str:
        """`render` in a worker thread, for async views (FastAPI, Django's async views)."""
        return await asyncio.to_thread(self.render, name, props, hydrate, fallback)

    async def arender_many(
        self, islands: Iterable[Island], fallback: Fallback = "client"
    ) -> list[str]:
        """`render_many` in a worker thread, for async views."""
        return await asyncio.to_thread(self.render_many, list(islands), fallback)

    def loader_tag(self, islands: bool = False) -> str:
        """The script tag a page of islands needs once: `loader.js`, or with `islands=True`
        the small `islands.js`, which fetches the loader when a first island hydrates."""
        return script_tag(self.public_url, "islands.js" if islands else "loader.js")

    def close(self) -> None:
        """Closes the idle connections."""
        self._pool.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client({self.base_url!r}, public_url={self.public_url!r}, timeout={self.timeout})"

    # -- the parts -----------------------------------------------------------------------

    def _prepare(
        self, name: str, props: Mapping[str, Any] | None, hydrate: str | None, fallback: Fallback
    ) -> _Prepared:
        if not is_valid_name(name):
            raise SvcError(
                "InvalidComponentName",
                f"{name!r} is no component name: dot-joined identifiers, optionally behind one prefix: (store:product)",
                status=422,
            )
        if hydrate is not None and not is_valid_hydrate(hydrate):
            raise SvcError(
                "InvalidProps",
                f"hydrate={hydrate!r} is no strategy: use load, idle, visible, none or media:(<query>)",
                status=400,
                name=name,
            )
        if fallback not in (None, "client"):
            raise ValueError(f'svc_islands: fallback must be "client" or None, not {fallback!r}')
        if props is None:
            props = {}
        if not isinstance(props, Mapping):
            raise SvcError(
                "InvalidProps",
                f"props must be a dict, not {type(props).__name__}",
                status=400,
                name=name,
            )
        try:
            text = props_json(props)
        except (TypeError, ValueError) as error:
            raise SvcError(
                "InvalidProps",
                f"props are not JSON ({error}); convert such values first, e.g. float(price) for a Decimal",
                status=400,
                name=name,
            ) from error
        return _Prepared(name, text, hydrate, fallback)

    def _render_chunk(self, chunk: Sequence[_Prepared]) -> list[str]:
        items = []
        for index, island in enumerate(chunk):
            item = f'{{"id":"{index}","name":{json.dumps(island.name)},"props":{island.props_text}'
            if island.hydrate is not None:
                item += f',"hydrate":{json.dumps(island.hydrate)}'
            if island.fallback == "client":
                item += ',"fallback":"client"'
            items.append(item + "}")
        body = ('{"islands":[' + ",".join(items) + "]}").encode("utf-8")
        try:
            answer = self._post(f"{self._prefix}/islands", body)
            if answer.status != 200:
                raise _error_of(answer, None)
            try:
                entries = json.loads(answer.body)["islands"]
                by_id = {entry["id"]: entry for entry in entries}
            except (ValueError, KeyError, TypeError) as error:
                raise SvcError(
                    "Unavailable",
                    f"svc answered no islands ({error})",
                    status=answer.status,
                ) from error
        except SvcError as error:
            return [self._fail(chunk, error)] if len(chunk) == 1 else self._fail_all(chunk, error)
        results: list[str] = []
        for index, island in enumerate(chunk):
            entry = by_id.get(str(index))
            if entry is not None and entry.get("status") == 200 and isinstance(entry.get("html"), str):
                results.append(entry["html"])
                continue
            results.append(self._fail([island], _entry_error(entry, island.name)))
        return results

    def _fail_all(self, chunk: Sequence[_Prepared], error: SvcError) -> list[str]:
        """Every island of a request that failed as a whole: one log line for them all."""
        if error.is_callers or any(island.fallback is None for island in chunk):
            raise error
        self._log(error, f"{len(chunk)} islands")
        return [self._container(island, error.kind) for island in chunk]

    def _fail(self, chunk: Sequence[_Prepared], error: SvcError) -> str:
        """The fallback container of one island, or `error` raised (see `SvcError.is_callers`)."""
        island = chunk[0]
        if error.is_callers or island.fallback is None:
            raise error
        self._log(error, f'island "{island.name}"')
        return self._container(island, error.kind)

    def _container(self, island: _Prepared, kind: str) -> str:
        return fallback_container(island.name, island.props_text, island.hydrate, kind, self.public_url)

    def _post(self, path: str, body: bytes) -> Answer:
        """POSTs `body`, raising SvcError `Unavailable` or `Timeout` when no answer comes."""
        try:
            answer = self._pool.request("POST", path, body, self._headers, Deadline(self.timeout))
        except socket.timeout as error:
            raise SvcError(
                "Timeout", f"svc at {self.base_url} did not answer within {self.timeout:g} s"
            ) from error
        except (OSError, http.client.HTTPException) as error:
            raise SvcError(
                "Unavailable", f"cannot reach svc at {self.base_url} ({_describe(error)})"
            ) from error
        self._recovered()
        return answer

    def _log(self, error: SvcError, what: str) -> None:
        """Logs a fallback once: an outage (no answer) when it starts, then at DEBUG until svc
        answers again; each render failure svc reports, as it happens."""
        message = "svc_islands: %s rendered in the browser instead: %s"
        if error.status is None:
            with self._lock:
                first = self._outage is None
                self._outage = self._outage or error.kind
            logger.log(logging.WARNING if first else logging.DEBUG, message, what, error)
        else:
            logger.warning(message, what, _first_line(str(error)))

    def _recovered(self) -> None:
        if self._outage is None:
            return
        with self._lock:
            was, self._outage = self._outage, None
        if was is not None:
            logger.info("svc_islands: svc at %s answers again", self.base_url)


def _chunks(prepared: Sequence[_Prepared]) -> Iterable[Sequence[_Prepared]]:
    """Batches of at most 256 islands and about 1 MiB of props each (svc's bounds)."""
    start, size = 0, 0
    for index, island in enumerate(prepared):
        size += len(island.props_text.encode("utf-8")) + len(island.name) + 64
        if index > start and (index - start >= MAX_BATCH_ISLANDS or size > MAX_BODY_BYTES - 1024):
            yield prepared[start:index]
            start, size = index, len(island.props_text.encode("utf-8")) + len(island.name) + 64
    if start < len(prepared):
        yield prepared[start:]


def _error_of(answer: Answer, name: str | None) -> SvcError:
    """The SvcError of an answer that is not the island: svc's JSON error, or `Unavailable`
    for anything else (a proxy's error page, say)."""
    if answer.content_type.startswith("application/json"):
        try:
            body = json.loads(answer.body)
            if isinstance(body, dict) and isinstance(body.get("error"), str):
                return SvcError(
                    body["error"],
                    str(body.get("message", "")),
                    status=answer.status,
                    name=body.get("name", name),
                )
        except ValueError:
            pass
    kind = "Unavailable" if answer.status >= 500 or answer.status < 400 else "HttpError"
    return SvcError(
        kind,
        f"svc answered {answer.status} {answer.content_type or 'without a type'}",
        status=answer.status,
        name=name,
    )


def _entry_error(entry: Any, name: str) -> SvcError:
    if not isinstance(entry, dict) or not isinstance(entry.get("error"), dict):
        return SvcError("Unavailable", "svc's answer left this island out", name=name)
    error = entry["error"]
    status = entry.get("status")
    return SvcError(
        str(error.get("error", "InternalError")),
        str(error.get("message", "")),
        status=status if isinstance(status, int) else 500,
        name=name,
    )


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


# -- the default client, from the environment ---------------------------------------------

_default: Client | None = None
_default_lock = threading.Lock()


def default_client() -> Client:
    """The client of the module-level functions: `SVC_URL` (default
    http://127.0.0.1:8000/api), `SVC_PUBLIC_URL` (default: `SVC_URL`), `SVC_TIMEOUT` in
    seconds (default 5), read once on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Client(
                os.environ.get("SVC_URL") or DEFAULT_URL,
                public_url=os.environ.get("SVC_PUBLIC_URL") or None,
                timeout=float(os.environ.get("SVC_TIMEOUT") or 5.0),
            )
        return _default


def set_default_client(client: Client | None) -> None:
    """Replaces the default client (None: made again from the environment on next use)."""
    global _default
    with _default_lock:
        previous, _default = _default, client
    if previous is not None and previous is not client:
        previous.close()


def render(
    name: str,
    props: Mapping[str, Any] | None = None,
    hydrate: str | None = None,
    fallback: Fallback = "client",
) -> str:
    """`Client.render` on the default client (see `default_client`)."""
    return default_client().render(name, props, hydrate, fallback)


def render_many(islands: Iterable[Island], fallback: Fallback = "client") -> list[str]:
    """`Client.render_many` on the default client."""
    return default_client().render_many(islands, fallback)


def loader_tag(islands: bool = False) -> str:
    """`Client.loader_tag` on the default client."""
    return default_client().loader_tag(islands)
