"""Inputs named by fsspec URLs: ``s3://bucket/run-7/*.jsonl.gz``, ``gs://...``, ``memory://...``, ``file://...``.

Imported only when an input is a URL, so a local run loads no fsspec. A URL resolves like a local path (an
object, a prefix whose ``.json``/``.jsonl``/``.ndjson`` objects are read recursively and sorted, or a glob)
into ``RemoteSource``s, which ``inputs.open_stream`` reads like files: gzip is still recognised by its magic
bytes, not by the name. Every error of the filesystem (a missing key, no credentials, an endpoint that does
not answer) becomes an ``InputError`` of one line that names the URL: ``check`` exits 2 without a traceback.

The storage options (endpoint, credentials, ...) travel with each source as JSON text, so a source can be
pickled to a Ray worker and opened there; its repr leaves them out (they may hold secrets).
"""

from __future__ import annotations

import io
import json
import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from verify_contract.check._source import GZIP_MAGIC, SUFFIXES, InputError, ObjectChanged, Source
from verify_contract.contract import cap

EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs"}
"""The package extra that brings each protocol's filesystem (``pip install 'verify-contract[s3]'``)."""

READ_BLOCK_BYTES = 16 << 20
"""Bytes fetched per ranged request when an object is read from start to end (two requests in flight): large
enough that a request's round trip is small against its transfer, small enough that memory stays flat."""

_GLOB_CHARS = frozenset("*?[")

_SPARE_BLOCKS: list[bytearray] = []
"""Buffers of ``READ_BLOCK_BYTES`` that objects' blocks were read into, for the next reader to reuse: a new one
costs a page fault per 4 KiB when first written, with the GIL held (about 25 ms a 16 MiB block, measured);
at most ``SPARE_BLOCKS`` are kept, ``clear_spare_blocks`` drops them."""
SPARE_BLOCKS = 4


def clear_spare_blocks() -> None:
    _SPARE_BLOCKS.clear()


def describe(error: BaseException) -> str:
    """One line about a filesystem error (fsspec's own errors often hold nothing but the path)."""
    name = type(error).__name__
    if isinstance(error, FileNotFoundError):
        return "no such object (or bucket)"
    if isinstance(error, ImportError):
        return str(error)
    if name == "NoCredentialsError":
        return "no credentials found (set them in the environment, or pass key and secret in --storage-options)"
    if isinstance(error, PermissionError):
        text = str(error) or "permission denied"
    elif isinstance(error, OSError) and error.strerror:
        text = error.strerror
    else:
        text = f"{name}: {error}" if str(error) else name
    text = " ".join(text.split())
    return cap(text)


POOL_CONNECTIONS = 32
"""Connections an S3 client keeps (botocore's default is 10), unless the storage options say otherwise: at least
``OPEN_AHEAD`` + 1 objects opened ahead and a large object's ranged GETs in flight."""

_FILESYSTEMS: dict[tuple[int, str, str], Any] = {}
"""The filesystem of each (process, protocol, storage options) once made: fsspec parses the URL and hashes the
options again on every ``url_to_fs`` (about 0.1 ms, several times per object in a run of many small ones)."""


def filesystem(url: str, options_json: str) -> tuple[Any, str]:
    """The fsspec filesystem of a URL and the path in it: one client per protocol and storage options in a
    process, so that a worker that opens many ranges of one bucket opens one client."""
    protocol = url.partition("://")[0].lower()
    key = (os.getpid(), protocol, options_json)  # a forked process makes its own (fsspec's loop is not forked)
    # Kept for the object stores, whose URLs carry options only in a query (``?versionId=``), which is parsed.
    kept = protocol in EXTRAS and "?" not in url
    fs = _FILESYSTEMS.get(key) if kept else None
    if fs is not None:
        return fs, fs._strip_protocol(url)
    try:
        import fsspec
    except ImportError as error:
        raise InputError(f"{url}: reading URLs needs fsspec: pip install 'verify-contract[s3]'") from error
    options = json.loads(options_json)
    if protocol in ("s3", "s3a") and isinstance(options, dict):
        # botocore's pool holds 10 connections; a run keeps up to OPEN_AHEAD + 1 GETs in flight, and more would
        # wait for a connection, each a round trip later.
        config = options.get("config_kwargs")
        if config is None or (isinstance(config, dict) and "max_pool_connections" not in config):
            options["config_kwargs"] = {**(config or {}), "max_pool_connections": POOL_CONNECTIONS}
    try:
        fs, path = fsspec.core.url_to_fs(url, **options)
    except ImportError as error:
        extra = EXTRAS.get(protocol)
        hint = (
            f"pip install 'verify-contract[{extra}]'" if extra else f"install the fsspec filesystem for {protocol}://"
        )
        raise InputError(f"{url}: no filesystem for {protocol}:// ({hint})") from error
    except (ValueError, TypeError) as error:  # an unknown protocol, or a storage option the filesystem refuses
        raise InputError(f"{url}: {describe(error)}") from error
    if kept:
        _FILESYSTEMS[key] = fs
    return fs, path


_INDEXES: dict[int, tuple[Any, dict[str, dict[str, Any]]]] = {}
"""Cached listings indexed by name (``listed_info``), by the identity of the listing object; a few at a time."""


def listed_info(fs: Any, path: str) -> dict[str, Any]:
    """``fs.info(path)``; for s3fs, found by name in the cached listing of the object's prefix (``_from_listing``).
    Raises as ``info``."""
    return _from_listing(fs, path) or fs.info(path)


def _from_listing(fs: Any, path: str) -> dict[str, Any] | None:
    """An s3fs object's info found by name in the cached listing of its prefix (no request, as s3fs finds it
    there: an object the listing does not hold is absent, ``FileNotFoundError``; but s3fs scans the whole
    listing on each call, so a run over N listed objects cost N² comparisons: 10^8 for 10,000 objects). None
    when ``fs.info`` must answer: another filesystem, a versioned one, a prefix not listed, not a file."""
    parent = fs._parent(path) if hasattr(fs, "_call_s3") and not getattr(fs, "version_aware", False) else None
    try:
        listing = fs.dircache[parent] if parent is not None and path.rstrip("/") not in fs.dircache else None
    except KeyError:
        listing = None
    if listing is None:
        return None
    held = _INDEXES.get(id(listing))
    if held is None or held[0] is not listing:
        if len(_INDEXES) >= 8:
            _INDEXES.clear()
        held = _INDEXES[id(listing)] = (listing, {item["name"]: item for item in listing})
    found = held[1].get(path)
    if found is None:
        raise FileNotFoundError(path)
    return found if found.get("type") == "file" else None


IDENTITY_KEYS = ("ETag", "etag", "generation")
"""What names one version of an object in fsspec's ``info`` (S3's ETag, GCS's generation): the first present."""


def current_identity(fs: Any, path: str) -> str:
    """The version the store holds now (one HEAD request). ``refresh`` asks past the cached listing without
    dropping it: ``invalidate_cache`` would drop the whole prefix's listing (s3fs drops every parent), so that
    each later object of the run would cost a request of its own to open."""
    try:
        info = fs.info(path, refresh=True)
    except TypeError:  # a filesystem whose info takes no refresh
        fs.invalidate_cache(path)
        info = fs.info(path)
    return identity(info)


def identity(info: dict[str, Any]) -> str:
    """The version an object's ``info`` (or a reply's headers) describes (``ETag 9b2c...``), or "" when the store
    tells none. An ETag's quotes (and a weak one's ``W/``) are left out: a listing and a reply may differ there."""
    for key in IDENTITY_KEYS:
        value = info.get(key)
        if value not in (None, ""):
            named = str(value).strip().removeprefix("W/").strip('"')
            return f"{key} {named}"
    return ""


def get_object(
    fs: Any, path: str, start: int | None = None, end: int | None = None, into: bytearray | None = None
) -> tuple[list[Any], str]:
    """One GET of an object (bytes ``start`` to ``end`` when given, else the whole object): its bytes, in pieces
    (joining them would copy every byte once more; with ``into``, S3's body is read into that buffer and the one
    piece is a view of it), and the version its reply names (``identity``), so that a read checks its version
    with no request of its own; "" when the reply is not seen (a filesystem other than S3's) or names none: the
    caller then asks ``current_identity``. Checked here, not by the server: a store may ignore ``If-Match``
    (gofakes3 does) and serve a replacement. S3 is read by plain HTTP (``_s3_http``) where it can be, else, and
    for whatever that path leaves (an error, a retry), through s3fs's client."""
    if not hasattr(fs, "_call_s3"):  # not s3fs: its filesystem reads and keeps the reply's headers to itself
        data = fs.cat_file(path) if start is None else fs.cat_file(path, start=start, end=end)
        return [bytes(data)], ""
    if start is not None and end is not None and end <= start:
        return [], ""
    from verify_contract.check import _s3_http

    if _s3_http.plain_http_ok(fs):
        try:
            body, etag = _s3_http.get(fs, path, start, end, into)
        except _s3_http.S3Fallback:
            pass
        else:
            return [body], identity({"ETag": etag})
    from fsspec.asyn import sync

    return sync(fs.loop, _s3_get, fs, path, start, end)  # type: ignore[no-any-return]


async def _s3_get(fs: Any, path: str, start: int | None, end: int | None) -> tuple[list[bytes], str]:
    """``get_object`` through s3fs's client, as s3fs's own ``cat_file`` makes the request (its extra arguments, its
    retries, its errors), keeping the reply's ETag, which s3fs drops."""
    bucket, key, version_id = fs.split_path(path)
    extra: dict[str, str] = {"VersionId": version_id} if version_id else {}
    if start is not None and end is not None:
        if end <= start:
            return [], ""
        extra["Range"] = f"bytes={start}-{end - 1}"

    async def call_and_read() -> tuple[list[bytes], str]:
        reply = await fs._call_s3("get_object", Bucket=bucket, Key=key, **extra)
        try:
            pieces = await _pieces(reply["Body"], reply.get("ContentLength"))
        finally:
            reply["Body"].close()
        return pieces, identity({"ETag": reply.get("ETag")})

    try:
        from s3fs.core import _error_wrapper  # a body cut short is retried, as cat_file retries it
    except ImportError:
        return await call_and_read()
    return await _error_wrapper(call_and_read, retries=fs.retries)  # type: ignore[no-any-return]


async def _pieces(body: Any, length: int | None) -> list[bytes]:
    """A reply's body as aiohttp received it, piece by piece (``readchunk`` hands each one on without a copy;
    ``read`` joins them), with botocore's checks: a body shorter than its Content-Length, or a connection lost
    or timed out mid-body, is the error botocore raises there (s3fs retries the last two)."""
    content: Any = getattr(getattr(body, "raw_stream", None), "content", None)
    if not hasattr(content, "readchunk"):  # another HTTP backend than aiohttp
        return [await body.read()]
    import asyncio

    import aiohttp
    from botocore.exceptions import IncompleteReadError, ReadTimeoutError, ResponseStreamingError

    pieces: list[bytes] = []
    try:
        while True:
            piece, http_chunk_end = await content.readchunk()
            if piece:
                pieces.append(piece)
            elif not http_chunk_end:  # (b"", False): the end of the body
                break
    except asyncio.TimeoutError as error:
        raise ReadTimeoutError(endpoint_url=str(body.raw_stream.url), error=error) from error
    except aiohttp.ClientConnectionError as error:
        raise ResponseStreamingError(error=error) from error
    got = sum(map(len, pieces))
    if length is not None and got != int(length):
        raise IncompleteReadError(actual_bytes=got, expected_bytes=int(length))
    return pieces


class _Reader(io.RawIOBase):
    """An object read by ranged requests of ``block_bytes``, ``AHEAD`` of them in flight while the caller checks
    what came before (the transfer overlaps the checking, and a request's latency is paid once per block).
    Every failure is an ``OSError`` naming no secret: the readers of ``inputs`` turn an ``OSError`` into an
    input error, whatever the filesystem's own exception was. Measured against moto's server: fsspec's own
    buffered file (a read-ahead cache) read at 37-48 MB/s where ranged requests read at 120 MB/s and more.

    The object is read at one version: ``version`` (its ``identity``, pinned when it was listed or opened) must
    be the one every block's reply names (S3's ETag of the object, sent with each ranged GET; a store whose
    replies are not seen is asked again after each block, one small request), so a block fetched from a
    replacement is never handed on: the read stops with ``ObjectChanged`` instead."""

    AHEAD = 2
    FIRST_BLOCK_BYTES = 1 << 20
    """The first block after opening (or a seek) is at most this large, and each next one twice the one before
    up to the block size, so that the check starts at once and each block arrives while the one before is
    checked: a 16 MiB first block was about 18 ms of waiting an object on loopback, and a 16 MiB second block
    after a 1 MiB first one about 15 ms more."""

    def __init__(self, fs: Any, path: str, size: int, block_bytes: int, version: str = "") -> None:
        super().__init__()
        self._fs = fs
        self._path = path
        self._size = size
        self._block = block_bytes
        self._version = version
        self._position = 0  # of the next byte the caller reads
        self._current = memoryview(b"")  # the fetched bytes from ``_position`` on: the piece being read
        self._fetched: deque[bytes] = deque()  # and the pieces of its block after it
        self._pending: list[Any] = []  # futures of the next blocks, in order
        self._lent: bytearray | None = None  # the buffer the pieces being read are views of
        # Buffers read into before, their pages mapped: the process's when this reader's are of the usual size.
        self._spare: list[bytearray] = _SPARE_BLOCKS if block_bytes == READ_BLOCK_BYTES <= size else []
        self._next = 0  # the offset of the first block not yet asked for
        self._ramp = self.FIRST_BLOCK_BYTES  # the next block's size while blocks grow after opening or a seek
        self._pool: Any = None

    def _fetch(self, start: int, end: int) -> tuple[list[Any], bytearray | None]:
        """The pieces of bytes ``start`` to ``end``, and the buffer they are views of (None when they are not)
        for the caller to give back when it has read them: a block's buffer is reused, since a new one costs a
        page fault per 4 KiB when first written (a quarter of the CPU of a read from a local server, measured)."""
        try:
            buffer = self._spare.pop()
        except IndexError:
            buffer = bytearray(min(self._block, self._size))
        pieces, replied = get_object(self._fs, self._path, start, end, buffer)
        got = sum(map(len, pieces))
        if got != end - start:  # replaced or cut while read: its bytes would not join up
            raise ObjectChanged(f"the object changed while it was read (bytes {start}-{end} gave {got})")
        if self._version:
            now = replied or current_identity(self._fs, self._path)
            if now != self._version:
                raise ObjectChanged(
                    f"the object changed while it was read ({self._version} when listed or first read, "
                    f"{now or 'none'} at bytes {start}-{end}); read no further, so that no report mixes two versions"
                )
        if not any(isinstance(piece, memoryview) for piece in pieces):
            self._keep(buffer)
            return pieces, None
        return pieces, buffer

    def _keep(self, buffer: bytearray) -> None:
        if len(self._spare) < SPARE_BLOCKS:
            self._spare.append(buffer)

    def _ask(self) -> None:
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.AHEAD, thread_name_prefix="verify-contract-read")
        while len(self._pending) < self.AHEAD and self._next < self._size:
            end = min(self._next + min(self._block, self._ramp), self._size)
            self._pending.append(self._pool.submit(self._fetch, self._next, end))
            self._next, self._ramp = end, 2 * self._ramp

    def readable(self) -> bool:
        return True

    def _next_block(self) -> None:
        """Waits for the next block when nothing fetched is left (the last block's buffer goes back first)."""
        self._give_back()
        if self._position >= self._size:
            return
        self._ask()
        try:
            pieces, self._lent = self._pending.pop(0).result()
            self._fetched.extend(pieces)
        except OSError:
            raise
        except Exception as error:  # botocore's and aiohttp's errors are not OSErrors
            raise OSError(describe(error)) from error
        self._ask()

    def readinto(self, buffer: Any) -> int:
        """Fills ``buffer`` from the pieces fetched (each copied once, straight into it), waiting for the next
        block only when nothing fetched is left."""
        if not self._current and not self._fetched:
            self._next_block()
        count = 0
        room = len(buffer)
        while count < room:
            if not self._current:
                if not self._fetched:
                    break
                self._current = memoryview(self._fetched.popleft())
            take = min(room - count, len(self._current))
            buffer[count : count + take] = self._current[:take]
            self._current = self._current[take:]
            count += take
        self._position += count
        return count

    def pieces(self) -> Iterator[tuple[Any, int]]:
        """The bytes from the current position to the end, a fetched piece at a time and not copied (the check
        of a large object spent a tenth of its time copying them): ``(data, length)``, the piece being the first
        ``length`` bytes of ``data`` (a block's buffer, or ``bytes``), which supports ``find`` and ``rfind``.
        A piece is valid until the next one is asked for: its buffer is then read into again."""
        if self._current:  # the rest of a piece ``readinto`` began (a buffered reader's first read): a copy
            rest = bytes(self._current)
            self._current = memoryview(b"")
            self._position += len(rest)
            yield rest, len(rest)
        while True:
            if not self._fetched:
                self._next_block()
                if not self._fetched:
                    return
            piece = self._fetched.popleft()
            data = piece
            if isinstance(piece, memoryview):
                data = self._lent if piece.obj is self._lent else bytes(piece)
            self._position += len(piece)
            yield data, len(piece)

    def _give_back(self) -> None:
        """The read block's buffer to the spares (its pieces are all read: no view of it is handed on)."""
        if self._lent is not None:
            self._keep(self._lent)
            self._lent = None

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence] + offset
        if target != self._position:
            for future in self._pending:
                future.cancel()
            self._pending = []
            self._current = memoryview(b"")
            self._fetched.clear()
            self._give_back()
            self._position = self._next = max(target, 0)
            self._ramp = self.FIRST_BLOCK_BYTES
        return self._position

    def tell(self) -> int:
        return self._position

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        super().close()


def open_url(url: str, options_json: str, block_bytes: int | None = None, version: str = "") -> BinaryIO:
    """A buffered binary stream of the object's bytes as stored, at one version: ``version`` when given (the
    one listed), else the one this call finds. Raises ``InputError`` naming the URL."""
    fs, path = filesystem(url, options_json)
    try:
        info = listed_info(fs, path)  # from the listing when the object was listed: no request
        size = int(info["size"])
    except Exception as error:
        raise InputError(f"{url}: {describe(error)}") from error
    found = identity(info)
    if version and found != version:
        raise InputError(f"{url}: the object changed since it was listed ({version}, now {found or 'none'})")
    reader = _Reader(fs, path, size, block_bytes or READ_BLOCK_BYTES, version or found)
    return io.BufferedReader(reader, buffer_size=64 << 10)


class RemoteSource(Source):
    """A source read through fsspec: ``name`` and ``file`` are its URL; ``options_json`` its storage options;
    ``version`` the object's ``identity`` when it was listed ("" when unknown), which every read of it (a Ray
    task's byte range too) must find, so that all of a run reads one version."""

    __slots__ = ("options_json", "version")
    options_json: str
    version: str

    def __init__(self, url: str, options_json: str = "{}", version: str = "") -> None:
        # Source's slots and this class's own (``_freeze`` knows only the latter's setters).
        for set_slot, value in zip(
            (*Source._slot_setters, *RemoteSource._slot_setters), (url, url, options_json, version), strict=True
        ):
            set_slot(self, value)

    def _values(self) -> tuple[Any, ...]:
        return (self.name, self.options_json, self.version)

    def __reduce__(self) -> tuple[type[RemoteSource], tuple[Any, ...]]:
        return RemoteSource, (self.name, self.options_json, self.version)

    def __repr__(self) -> str:
        return f"RemoteSource({self.name!r})"  # never the options: they may hold credentials

    def sibling(self, name: str) -> Source | None:
        """The object ``name`` (a URL in the same store) if it exists; an error other than its absence is left
        for the read to report."""
        fs, path = filesystem(name, self.options_json)
        try:
            info = listed_info(fs, path)
        except FileNotFoundError:
            return None
        except Exception:
            return RemoteSource(name, self.options_json)
        return RemoteSource(name, self.options_json, identity(info)) if info.get("type") == "file" else None

    def size(self) -> int | None:
        fs, path = filesystem(self.name, self.options_json)
        try:
            return int(fs.size(path))
        except Exception:
            return None

    def open_raw(self) -> BinaryIO:
        return open_url(self.name, self.options_json, version=self.version)

    def stat(self) -> tuple[int, bool]:
        """The object's size and whether it is gzip-compressed (its first two bytes; one small ranged read,
        where opening the object would fetch a whole read block)."""
        fs, path = filesystem(self.name, self.options_json)
        try:
            size = int(fs.size(path))
            head = bytes(fs.cat_file(path, start=0, end=2)) if size >= 2 else b""
        except Exception as error:
            raise InputError(f"{self.name}: {describe(error)}") from error
        return size, head == GZIP_MAGIC


OPEN_AHEAD = 16
"""Objects opened at once ahead of the one being checked: a run of many small objects is bound by round trips,
not bandwidth (10,000 objects opened one after another took 118 s against moto)."""
WHOLE_OBJECT_BYTES = 1 << 20
"""An object opened ahead is fetched whole, in one GET, up to this size (at most ``OPEN_AHEAD`` of them held);
a larger one is read by ranged requests (``open_url``) when its turn comes."""


def _fetch_whole(source: RemoteSource) -> bytes | None:
    """A small object's bytes at the version it was listed at (one GET, whose reply names the version it
    served), or None for an object larger than ``WHOLE_OBJECT_BYTES``. Errors as ``open_url`` raises them."""
    fs, path = filesystem(source.name, source.options_json)
    try:
        info = listed_info(fs, path)  # from the listing when the object was listed: no request
        version = _listed_version(source, info)
        if int(info["size"]) > WHOLE_OBJECT_BYTES:
            return None
        pieces, replied = get_object(fs, path)
        now = (replied or current_identity(fs, path)) if version else ""
    except InputError:
        raise
    except Exception as error:
        raise InputError(f"{source.name}: {describe(error)}") from error
    return _one_version(pieces, version, now)


def _listed_version(source: RemoteSource, info: dict[str, Any]) -> str:
    """The version an object is to be read at: the one listed, which the store's ``info`` must still name."""
    listed = identity(info)
    if source.version and listed != source.version:
        raise InputError(f"{source.name}: the object changed since it was listed ({source.version}, now {listed})")
    return source.version or listed


def _one_version(pieces: list[bytes], version: str, now: str) -> bytes:
    if now != version:
        raise ObjectChanged(
            f"the object changed while it was read ({version} when listed, {now or 'none'} when fetched)"
        )
    return b"".join(pieces)


class _OpenedAhead(Source):
    """A ``RemoteSource`` whose bytes are being fetched (``fetch``, a future of ``_fetch_whole``): opened from
    memory, or as its ``remote`` source would be when it was too large to fetch whole."""

    __slots__ = ("remote", "fetch")  # noqa: RUF023 (the constructor's order)
    remote: RemoteSource
    fetch: Any

    def __init__(self, remote: RemoteSource, fetch: Any) -> None:
        for set_slot, value in zip(
            (*Source._slot_setters, *_OpenedAhead._slot_setters), (remote.name, remote.name, remote, fetch), strict=True
        ):
            set_slot(self, value)

    def open_raw(self) -> BinaryIO:
        data = self.fetch.result()
        if data is None:
            return self.remote.open_raw()
        return io.BufferedReader(_Fetched(data))


class _Fetched(io.BytesIO):
    """An object fetched whole, read as a file, or by ``line_views`` as one piece: with no buffer of its own to
    read into (a new 1 MiB one an object was most of the CPU of a run of small objects)."""

    def pieces(self) -> Iterator[tuple[bytes, int]]:
        rest = self.read()
        if rest:
            yield rest, len(rest)


def opened_ahead(sources: Iterable[Source], ahead: int | None = None) -> Iterator[Source]:
    """``sources`` in their order, each object in storage among them opened ``ahead`` at a time while the ones
    before it are checked (a small one fetched whole), by a pool of threads. Nothing
    is left running when the iteration ends, however it ends; an object's error is raised when it is opened,
    as it would be unfetched."""
    from concurrent.futures import ThreadPoolExecutor

    ahead = OPEN_AHEAD if ahead is None else ahead  # read at the call: the benchmark varies it
    pool = ThreadPoolExecutor(max(1, ahead), thread_name_prefix="verify-contract-open")
    waiting: deque[Source] = deque()
    try:
        for source in sources:
            waiting.append(
                _OpenedAhead(source, pool.submit(_fetch_whole, source)) if isinstance(source, RemoteSource) else source
            )
            while len(waiting) > ahead:
                yield waiting.popleft()
        while waiting:
            yield waiting.popleft()
    finally:
        for left in waiting:  # the iteration ended early: the fetches no one will open
            if isinstance(left, _OpenedAhead):
                left.fetch.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _has_suffix(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower().endswith(SUFFIXES)


def resolve_url(argument: str, storage_options: dict[str, Any], glob: bool = True) -> tuple[list[Source], list[str]]:
    """Expand one URL into sources (``inputs.resolve``'s rules for paths), and the errors, each naming it. A
    key with ``*``, ``?`` or ``[`` is taken literally when an object of that exact name exists, as a shell
    takes a file (a pattern only when none does); with ``glob`` False, always literally."""
    options_json = json.dumps(storage_options, sort_keys=True)
    try:
        fs, path = filesystem(argument, options_json)
    except InputError as error:
        return [], [str(error)]

    def source_of(name: str, info: dict[str, Any]) -> RemoteSource:
        return RemoteSource(str(fs.unstrip_protocol(name)), options_json, identity(info))

    try:
        info = _info_or_none(fs, path)
        if info is None and glob and _GLOB_CHARS & set(path):
            matches = fs.glob(path, detail=True)
            files = sorted((name, item) for name, item in matches.items() if item.get("type") == "file")
            if not files:
                return [], [f"{argument}: no object matches this pattern"]
            return [source_of(name, item) for name, item in files], []
        if info is None:
            return [], [f"{argument}: {describe(FileNotFoundError())}"]
        if info.get("type") != "directory":
            return [RemoteSource(argument, options_json, identity(info))], []
        found = fs.find(path, detail=True)
        files = sorted((name, item) for name, item in found.items() if item.get("type") == "file" and _has_suffix(name))
        if not files:
            return [], [f"{argument}: no .json or .jsonl objects under this prefix"]
        return [source_of(name, item) for name, item in files], []
    except Exception as error:
        return [], [f"{argument}: {describe(error)}"]


def _info_or_none(fs: Any, path: str) -> dict[str, Any] | None:
    try:
        info: dict[str, Any] = fs.info(path)
    except FileNotFoundError:
        return None
    return info


__all__ = [
    "ObjectChanged",
    "RemoteSource",
    "current_identity",
    "describe",
    "filesystem",
    "identity",
    "open_url",
    "opened_ahead",
    "resolve_url",
]
