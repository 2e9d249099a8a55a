"""The probe's network transport for https, proxies and credentials (plain http goes by ``_http1``): aiohttp,
whose connector keeps a pool of at most ``--concurrency`` connections. (httpx's pool, httpcore 1.0.9, assigns
requests to connections in time quadratic in its size: 1,000 requests 500 at a time against a 0.2 s server took
52 s and ~930 connections; aiohttp 2.5 s and 500.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType

import aiohttp

from verify_contract.contract import cap
from verify_contract.probe._http1 import environment_applies
from verify_contract.probe._transport import BrokenReply, CannotConnect, DroppedBeforeReply, TransportError


class _NetworkAnswer:
    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response
        self.status = response.status
        self.content_type = response.headers.get("content-type", "")
        self.content_encoding = response.headers.get("content-encoding", "")

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except aiohttp.ClientError as error:
            raise BrokenReply(_named(error)) from None


class NetworkTransport:
    """A session whose pool holds at most ``concurrency`` connections, kept alive between requests, and no
    cookies. Nothing is decompressed (the probe inflates under its cap), no redirect followed, and no timeout of
    its own: the probe's ``--timeout`` bounds each request as a whole. Proxies come from the environment
    (``HTTP_PROXY``, ``NO_PROXY``), as they did with httpx."""

    def __init__(self, concurrency: int) -> None:
        connector = aiohttp.TCPConnector(limit=max(1, concurrency), limit_per_host=0)
        # trust_env costs two trips to a worker thread a request (the proxy variables, the netrc file), most of
        # the probe's CPU once: it is asked for only when the environment has something for it to find.
        # No cookie jar: each case is sent as it is written, whatever an earlier reply set (as _http1 sends it).
        self._session = aiohttp.ClientSession(
            connector=connector,
            auto_decompress=False,
            timeout=aiohttp.ClientTimeout(),
            trust_env=environment_applies(),
            cookie_jar=aiohttp.DummyCookieJar(),
        )

    async def __aenter__(self) -> NetworkTransport:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self._session.close()

    @asynccontextmanager
    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> AsyncIterator[_NetworkAnswer]:
        try:
            response = await self._session.post(url, data=body, headers=headers, allow_redirects=False)
        except aiohttp.ClientConnectorError as error:
            raise CannotConnect(cap(str(error), 120)) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as error:
            raise DroppedBeforeReply(type(error).__name__) from None
        except aiohttp.ClientError as error:
            raise TransportError(_named(error)) from None
        try:
            yield _NetworkAnswer(response)
        finally:
            if response.content.at_eof():
                response.release()  # the connection goes back to the pool
            else:
                response.close()  # a body cut at the cap or the deadline: its connection is not reused


def _named(error: BaseException) -> str:
    return f"{type(error).__name__}: {cap(str(error), 120)}"
