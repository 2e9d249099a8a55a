"""An ASGI app driven in this process, as the probe's transport (the pytest plugin, a server's own tests): the
request handed to the app as one ``http.request`` message, the reply read from its ``send`` messages as they
come, one at a time (the app waits while the probe reads, as a socket's buffer would make it), so the size cap
and the deadline stop an endless body as they do over the network. No HTTP client is involved."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

from verify_contract.probe._transport import BrokenReply, TransportError

Message = dict[str, Any]


class _AppCall:
    """One request to the app: the app runs as a task; its messages wait one at a time for the reader."""

    def __init__(self, app: Any, scope: dict[str, Any], body: bytes) -> None:
        self._body: bytes | None = body
        self._messages: asyncio.Queue[Message] = asyncio.Queue(maxsize=1)
        self._closed = asyncio.Event()
        self.task = asyncio.ensure_future(app(scope, self._receive, self._send))

    async def _receive(self) -> Message:
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self._closed.wait()  # an app waiting for a disconnect gets it when the probe is done
        return {"type": "http.disconnect"}

    async def _send(self, message: Message) -> None:
        if not self._closed.is_set():
            await self._messages.put(message)

    async def next(self) -> Message | None:
        """The app's next message, or None when it returned without one more."""
        if self._messages.empty() and self.task.done():
            self._raise_app_error()
            return None
        getter = asyncio.ensure_future(self._messages.get())
        try:
            await asyncio.wait({getter, self.task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not getter.done():
                getter.cancel()
        if getter.done() and not getter.cancelled():
            return getter.result()
        if not self._messages.empty():
            return self._messages.get_nowait()
        self._raise_app_error()
        return None

    def _raise_app_error(self) -> None:
        error = self.task.exception()
        if error is not None:
            raise error  # the app's own exception, for the test that drove it (as a server would log it)
        return None

    async def close(self, complete: bool) -> None:
        """After a whole reply the app runs to its end (its background tasks, a re-raised error), within the
        request's deadline; a reply cut at the cap or the deadline stops it."""
        self._closed.set()
        while not self._messages.empty():  # frees a send waiting on the full queue; later sends are dropped
            self._messages.get_nowait()
        if not complete and not self.task.done():
            self.task.cancel()
        await asyncio.wait({self.task})
        if not self.task.cancelled():
            self._raise_app_error()


class _AppAnswer:
    def __init__(self, call: _AppCall, start: Message) -> None:
        self._call = call
        self.complete = False
        self.status = int(start["status"])
        headers: dict[str, str] = {}
        for name, value in start.get("headers", ()):
            key = bytes(name).decode("latin-1").lower()
            headers[key] = (
                f"{headers[key]}, {bytes(value).decode('latin-1')}"
                if key in headers
                else bytes(value).decode("latin-1")
            )
        self.content_type = headers.get("content-type", "")
        self.content_encoding = headers.get("content-encoding", "")

    async def chunks(self) -> AsyncIterator[bytes]:
        while True:
            message = await self._call.next()
            if message is None:
                raise BrokenReply("the app returned mid-body")
            if message.get("type") != "http.response.body":
                continue
            if message.get("body"):
                yield bytes(message["body"])
            if not message.get("more_body", False):
                self.complete = True
                return


class AppTransport:
    """Requests to ``app`` in process; the URL's host and port fill the scope's ``server``."""

    def __init__(self, app: Any) -> None:
        self._app = app

    @asynccontextmanager
    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> AsyncIterator[_AppAnswer]:
        parts = urlsplit(url)
        pairs = [(b"host", parts.netloc.encode("ascii")), (b"content-length", str(len(body)).encode("ascii"))]
        pairs += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": parts.scheme or "http",
            "path": unquote(parts.path) or "/",
            "raw_path": (parts.path or "/").encode("ascii"),
            "query_string": parts.query.encode("ascii"),
            "root_path": "",
            "headers": pairs,
            "client": ("127.0.0.1", 123),
            "server": (parts.hostname or "app.test", parts.port or (443 if parts.scheme == "https" else 80)),
        }
        call = _AppCall(self._app, scope, body)
        answer: _AppAnswer | None = None
        try:
            start = await call.next()
            while start is not None and start.get("type") != "http.response.start":
                start = await call.next()
            if start is None:
                raise TransportError("the app returned without a reply")
            answer = _AppAnswer(call, start)
            yield answer
        finally:
            await call.close(complete=answer is not None and answer.complete)
