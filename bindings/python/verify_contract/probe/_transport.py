"""What the probe needs from a way of sending a request: one POST, its reply's status and two headers, and the
body's bytes as they come (still content-coded: the probe inflates them itself, under its cap). Two transports
give it: a network client (``_network``, aiohttp) and an ASGI app driven in process (``_in_process``), so the
reply is judged by one code path whichever sent the request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Protocol


class Answer(Protocol):
    """A reply whose status line and headers have come; its body is read from ``chunks``."""

    status: int
    content_type: str
    content_encoding: str

    def chunks(self) -> AsyncIterator[bytes]:
        """The body as it comes, content coding left on; raises ``BrokenReply`` if it stops short."""
        ...


class Transport(Protocol):
    def post(self, url: str, body: bytes, headers: dict[str, str]) -> AbstractAsyncContextManager[Answer]:
        """Send ``body``; entered, the reply's head has come. Leaving closes what the body did not finish."""
        ...


class TransportError(Exception):
    """The request got no reply; the message says why (a transport's own error named, never its traceback)."""


class CannotConnect(TransportError):
    """No connection could be opened: the server is not there or refuses."""


class DroppedBeforeReply(TransportError):
    """The connection dropped before any byte of the reply: the server cannot have acted on the request twice
    if it is sent again."""


class BrokenReply(TransportError):
    """The connection broke after the reply's head, mid-body."""
