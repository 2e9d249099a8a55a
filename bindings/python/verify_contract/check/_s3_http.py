"""S3 GETs as plain HTTP requests: botocore signs the object's URL (a presigned GET, made once per object and
reused for each of its ranges), ``http.client`` sends it, and the body is read straight into the caller's
buffer, the socket's ``recv_into`` running without the GIL.

Why not s3fs's own ``get_object``: through aiobotocore a GET costs about 2 ms of CPU on s3fs's one event loop
(endpoint rules, parameters, events, the reply parsed), which bounds a run of many small objects however many
are in flight; and its body arrives as aiohttp's pieces, each one handled in Python on that loop with the GIL
held, while the check wants the GIL for the same bytes. Measured on loopback against the compiled S3 server
(benchmarks/README.md, "S3 over plain HTTP"): the URL's signature costs about 0.35 ms once per object, the GET
a small fraction of that.

What this path does not do, it leaves to s3fs's: any reply other than the bytes asked for (an error status, a
redirect to another region), a connection lost or timed out, a body cut short. ``S3Fallback`` says so, and the
caller makes the same request through s3fs (its retries, its errors as OSErrors naming no secret). Stores this
path is not used for at all (``plain_http_ok``): a proxy between (the storage options' or the environment's),
request arguments s3fs adds to each GET (requester pays, a customer's encryption key).
"""

from __future__ import annotations

import http.client
import os
import ssl
import threading
import time
import urllib.parse
import urllib.request
from typing import Any

PRESIGNED_SECONDS = 3600
"""How long a presigned URL is valid; it is signed again after ``RESIGN_AFTER`` seconds of use."""
RESIGN_AFTER = 600

IDLE_CONNECTIONS = 32
"""Idle connections kept per server and process (a run holds up to ``OPEN_AHEAD`` + 1 objects and a large
object's ranged GETs in flight)."""


class S3Fallback(Exception):
    """This request is to be made through s3fs instead (its reason, for the debugger only)."""


_PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY")
_DECIDED: dict[tuple[int, int, tuple[str | None, ...]], bool] = {}
"""``plain_http_ok`` per (process, filesystem, proxy variables): urllib's proxy lookup scans the whole
environment (150 us, measured: a sixth of a small object's CPU when asked at every GET)."""


def plain_http_ok(fs: Any) -> bool:
    """Whether ``fs`` (s3fs) can be read by plain HTTP GETs: nothing it adds to a GET, no proxy configured."""
    key = (os.getpid(), id(fs), tuple(os.environ.get(name) for name in _PROXY_VARIABLES))
    decided = _DECIDED.get(key)
    if decided is None:
        if len(_DECIDED) >= 64:
            _DECIDED.clear()
        decided = _DECIDED[key] = _plain_http_ok(fs)
    return decided


def _plain_http_ok(fs: Any) -> bool:
    if not hasattr(fs, "_call_s3") or getattr(fs, "req_kw", None) or getattr(fs, "s3_additional_kwargs", None):
        return False
    if (getattr(fs, "config_kwargs", None) or {}).get("proxies"):
        return False
    endpoint = (getattr(fs, "client_kwargs", None) or {}).get("endpoint_url") or getattr(fs, "endpoint_url", None)
    parts = urllib.parse.urlsplit(str(endpoint or "https://s3.amazonaws.com"))
    proxied = urllib.request.getproxies().get(parts.scheme)
    return not (proxied and not urllib.request.proxy_bypass(parts.hostname or ""))


_URLS: dict[tuple[int, int, str], tuple[str, float]] = {}
"""The presigned URL of each (process, filesystem, path), kept while it is fresh; a few thousand at most."""
_URLS_KEPT = 4096


def presigned_url(fs: Any, path: str) -> str:
    """A GET URL of the object ``path`` signed with ``fs``'s credentials (its region, endpoint and addressing,
    as botocore resolves them for a request of its own)."""
    key = (os.getpid(), id(fs), path)
    now = time.monotonic()
    url, signed_at = _URLS.get(key, ("", 0.0))
    if url and now - signed_at < RESIGN_AFTER:
        return url
    from fsspec.asyn import sync

    url = str(sync(fs.loop, _presign, fs, path))
    if len(_URLS) >= _URLS_KEPT:
        _URLS.clear()
    _URLS[key] = (url, now)
    return url


async def _presign(fs: Any, path: str) -> str:
    await fs.set_session()
    bucket, key, version_id = fs.split_path(path)
    params = {"Bucket": bucket, "Key": key, **({"VersionId": version_id} if version_id else {})}
    url: str = await fs.s3.generate_presigned_url("get_object", Params=params, ExpiresIn=PRESIGNED_SECONDS)
    return url


class _Pool:
    """Idle keep-alive connections per (process, scheme, host, port), taken by one request at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[tuple[int, str, str, int], list[http.client.HTTPConnection]] = {}

    def take(self, scheme: str, host: str, port: int) -> http.client.HTTPConnection | None:
        with self._lock:
            idle = self._idle.get((os.getpid(), scheme, host, port))
            return idle.pop() if idle else None

    def give_back(self, scheme: str, host: str, port: int, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault((os.getpid(), scheme, host, port), [])
            if len(idle) < IDLE_CONNECTIONS:
                idle.append(connection)
                return
        connection.close()


_POOL = _Pool()


def _tls_context(fs: Any) -> ssl.SSLContext:
    """The certificate check botocore would make: the client's ``verify`` (False, a CA bundle's path), else the
    configured ``ca_bundle`` (``AWS_CA_BUNDLE``), else botocore's own bundle."""
    verify = (getattr(fs, "client_kwargs", None) or {}).get("verify")
    if verify is None:
        session = getattr(fs, "session", None)
        verify = (session.get_config_variable("ca_bundle") if session is not None else None) or True
    if verify is False:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    from botocore.httpsession import get_cert_path

    return ssl.create_default_context(cafile=get_cert_path(verify))


def _timeouts(fs: Any) -> tuple[float, float]:
    config = getattr(getattr(getattr(fs, "s3", None), "meta", None), "config", None)
    return float(getattr(config, "connect_timeout", 60) or 60), float(getattr(config, "read_timeout", 60) or 60)


def _connect(fs: Any, scheme: str, host: str, port: int) -> http.client.HTTPConnection:
    connect_timeout, read_timeout = _timeouts(fs)
    connection: http.client.HTTPConnection
    if scheme == "https":
        connection = http.client.HTTPSConnection(host, port, timeout=connect_timeout, context=_tls_context(fs))
    else:
        connection = http.client.HTTPConnection(host, port, timeout=connect_timeout)
    connection.connect()
    assert connection.sock is not None
    connection.sock.settimeout(read_timeout)
    return connection


def get(fs: Any, path: str, start: int | None, end: int | None, into: bytearray | None = None) -> tuple[Any, str]:
    """One GET of ``path`` (bytes ``start`` to ``end`` when given, else the whole object) and the ETag its reply
    names: the body read into ``into`` (a memoryview of its first bytes is returned) or as ``bytes``. Raises
    ``S3Fallback`` for anything but a reply of the bytes asked for, read whole."""
    try:
        url = presigned_url(fs, path)
    except Exception as error:  # no credentials, a bad region: s3fs's own request raises it as it always did
        raise S3Fallback(type(error).__name__) from error
    parts = urllib.parse.urlsplit(url)
    scheme, host = parts.scheme, parts.hostname or ""
    port = parts.port or (443 if scheme == "https" else 80)
    target = f"{parts.path}?{parts.query}" if parts.query else parts.path
    headers = {"Range": f"bytes={start}-{end - 1}"} if start is not None and end is not None else {}
    reused = _POOL.take(scheme, host, port)
    for connection in (reused, None):  # a reused connection the server closed while idle: once more, anew
        fresh = connection is None
        try:
            if connection is None:
                connection = _connect(fs, scheme, host, port)
            connection.request("GET", target, headers=headers)
            reply = connection.getresponse()
        except (OSError, http.client.HTTPException) as error:
            if connection is not None:
                connection.close()
            if fresh:
                raise S3Fallback(f"{type(error).__name__}: {error}") from error
            continue
        return _read(reply, connection, (scheme, host, port), into)
    raise AssertionError("unreachable: the fresh connection returns or raises")


def _read(
    reply: http.client.HTTPResponse, connection: http.client.HTTPConnection, server: tuple[str, str, int], into: Any
) -> tuple[Any, str]:
    length = reply.getheader("Content-Length")
    if reply.status not in (200, 206) or length is None or reply.getheader("Content-Encoding"):
        connection.close()
        raise S3Fallback(f"status {reply.status}")
    size = int(length)
    try:
        if into is not None and size <= len(into):
            view = memoryview(into)[:size]
            got = 0
            while got < size:
                read = reply.readinto(view[got:])  # the socket's recv_into, without the GIL
                if not read:
                    break
                got += read
            body: Any = view[:got]
        else:
            body = reply.read()
            got = len(body)
    except (OSError, http.client.HTTPException) as error:
        connection.close()
        raise S3Fallback(f"{type(error).__name__}: {error}") from error
    if got != size:
        connection.close()
        raise S3Fallback(f"a body cut short ({got} of {size} bytes)")
    if reply.will_close:
        connection.close()
    else:
        _POOL.give_back(*server, connection)
    return body, reply.getheader("ETag") or ""


__all__ = ["S3Fallback", "get", "plain_http_ok", "presigned_url"]
