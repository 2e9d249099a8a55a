"""Inputs of ``check`` and ``upgrade``: files, directories, globs and ``-`` (stdin); plain or gzip-compressed.

Everything is read as a stream of chunks that end on a line boundary, so memory stays flat whatever the
size of the input; only a single line longer than a chunk is ever held whole.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import sys
import zlib
from collections.abc import Callable, Iterator

from verify_contract.check._source import GZIP_MAGIC, SUFFIXES, InputError, ObjectChanged, Source

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any, BinaryIO

STDIN = "-"
CHUNK_BYTES = 1 << 20
_GLOB_CHARS = frozenset("*?[")


def is_url(argument: str) -> bool:
    """Whether an input names an fsspec URL (``s3://bucket/key``, ``memory://...``): a scheme, then ``://``.
    A one-letter scheme is a Windows drive (``C://data``), not a URL."""
    scheme, separator, _ = argument.partition("://")
    return (
        bool(separator) and len(scheme) > 1 and scheme[0].isalpha() and all(c.isalnum() or c in "+.-" for c in scheme)
    )


def _has_suffix(path: str) -> bool:
    return os.path.basename(path).lower().endswith(SUFFIXES)


def resolve(
    arguments: list[str], *, urls: bool = False, storage_options: dict[str, Any] | None = None, glob: bool = True
) -> tuple[list[Source], list[str]]:
    """Expand the command-line inputs into sources, in order; the second list holds input errors.

    A directory contributes its ``.json``/``.jsonl``/``.ndjson`` files (``.gz`` too), recursively and
    sorted; a pattern with ``*``, ``?`` or ``[`` that names no existing path is expanded as a glob
    (``**`` recurses); with ``glob`` False (``--no-glob``) never. A file named explicitly is read whatever
    its suffix. With ``urls``, an fsspec URL (``s3://bucket/prefix/*.jsonl``) is resolved the same way in
    its filesystem (``remote``), opened with ``storage_options``: a key is a pattern only when no object
    has that exact name.
    """
    sources: list[Source] = []
    errors: list[str] = []
    for argument in arguments:
        if argument == STDIN:
            sources.append(Source("<stdin>", None))
            continue
        if urls and is_url(argument) and not os.path.lexists(argument):
            from verify_contract.check import _remote as remote  # only for URLs: a local run imports no fsspec

            found_sources, found_errors = remote.resolve_url(argument, storage_options or {}, glob)
            sources.extend(found_sources)
            errors.extend(found_errors)
            continue
        if os.path.isdir(argument):
            from pathlib import Path  # only here: a clean run over named files does without pathlib

            found = sorted(p for p in Path(argument).rglob("*") if p.is_file() and _has_suffix(p.name))
            sources.extend(Source(str(p), p) for p in found)
            if not found:
                errors.append(f"{argument}: no .json or .jsonl files in this directory")
        elif os.path.lexists(argument):
            sources.append(Source(argument, argument))
        elif glob and _GLOB_CHARS & set(argument):
            import glob as globbing
            from pathlib import Path

            matches = sorted(Path(m) for m in globbing.glob(argument, recursive=True))
            files = [m for m in matches if m.is_file()]
            sources.extend(Source(str(m), m) for m in files)
            if not files:
                errors.append(f"{argument}: no file matches this pattern")
        else:
            errors.append(f"{argument}: no such file or directory")
    return sources, errors


def _describe(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def open_stream(source: Source) -> BinaryIO:
    """A binary stream of the source's decompressed bytes (gzip is detected by its magic number)."""
    try:
        raw: BinaryIO = sys.stdin.buffer if source.file is None else source.open_raw()
    except InputError:  # already one line that names the input (a URL's source)
        raise
    except OSError as error:
        raise InputError(f"{source.name}: {_describe(error)}") from error
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[type-var]
    try:
        head = buffered.peek(2)[:2]
    except OSError as error:
        raise InputError(f"{source.name}: {_describe(error)}") from error
    if head == GZIP_MAGIC:
        import gzip

        return gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[return-value]
    hint = utf16_hint(buffered.peek(4)[:4])
    if hint:
        raise InputError(f"{source.name}: {hint}")
    return buffered


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def utf16_hint(head: bytes) -> str | None:
    """A hint when a file starts like UTF-16 text (a UTF-16 byte order mark, or ASCII interleaved with NULs):
    every line would be invalid UTF-8, so one clear error beats a finding per line."""
    if head[:2] in _UTF16_BOMS or (len(head) == 4 and (head[1::2] == b"\0\0" or head[0::2] == b"\0\0")):
        return "UTF-16 text; verify responses are UTF-8 (convert it: iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8)"
    return None


def document_hint(name: str, data: bytes) -> str | None:
    """A one-line hint when a ``.json`` file holds several documents rather than one: a JSON array of
    them, or JSON Lines. Both are refused (each would be one huge finding), with the way to check them."""
    text = data.lstrip(b" \t\r\n")
    if text.startswith(b"["):
        return (
            f"{name}: a JSON array, not one verify response; check its elements as JSON Lines: "
            f"jq -c '.[]' {name} | verify-contract check -"
        )
    first, newline, rest = text.partition(b"\n")
    if newline and rest.strip() and first.strip().startswith(b"{") and first.strip().endswith(b"}"):
        try:
            json.loads(first)
        except ValueError:
            return None
        return f"{name}: JSON Lines (one document per line) in a .json file; name it .jsonl, or check it as - < {name}"
    return None


def read_all(source: Source) -> bytes:
    """The whole content of a one-document source (a ``.json`` file)."""
    with open_stream(source) as stream:
        try:
            data = stream.read()
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(f"{source.name}: {_describe(error)}") from error
    hint = document_hint(source.name, data)
    if hint:
        raise InputError(hint)
    return data


def line_views(source: Source, chunk_bytes: int | None = None) -> Iterator[memoryview]:
    """Chunks of whole lines (each ends with a newline, except perhaps the very last one), as views into
    one buffer that is read into and reused: no byte is copied after the read. A view is valid until the
    next one is asked for. A line longer than the buffer makes it grow to hold that line. An object behind
    a URL is cut in the pieces its reader fetched, with no read into a buffer at all (``_piece_views``)."""
    stream = open_stream(source)
    pieces = getattr(getattr(stream, "raw", None), "pieces", None)
    if pieces is not None and isinstance(stream, io.BufferedReader):
        yield from _piece_views(stream, pieces, source.name, chunk_bytes or CHUNK_BYTES)
    else:
        yield from _buffer_views(stream, source, chunk_bytes)


def _buffer_views(stream: BinaryIO, source: Source, chunk_bytes: int | None) -> Iterator[memoryview]:
    buffer = bytearray(chunk_bytes or CHUNK_BYTES)  # read at the call: tests vary it
    filled = 0  # bytes at the start of ``buffer``: the unfinished line carried over from the last read
    try:
        while True:
            if filled == len(buffer):  # one line fills the buffer: a new, larger one (views may hold the old)
                larger = bytearray(2 * len(buffer))
                larger[:filled] = buffer
                buffer = larger
            try:
                read = stream.readinto(memoryview(buffer)[filled:])  # type: ignore[attr-defined]
            except (OSError, EOFError, zlib.error) as error:
                # A truncated or corrupt gzip member: what was read so far still gets checked (not the line an
                # object's replacement cut: its end is in another version).
                if filled and not isinstance(error, ObjectChanged):
                    yield memoryview(buffer)[:filled]
                raise InputError(f"{source.name}: {_describe(error)}") from error
            if not read:
                break
            end = filled + read
            cut = buffer.rfind(b"\n", filled, end) + 1
            if not cut:
                filled = end  # no line ends in what was read: keep reading
                continue
            yield memoryview(buffer)[:cut]
            buffer[: end - cut] = buffer[cut:end]  # the unfinished last line moves to the front
            filled = end - cut
        if filled:
            yield memoryview(buffer)[:filled]
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _piece_views(
    stream: io.BufferedReader, pieces: Callable[[], Iterator[tuple[Any, int]]], name: str, chunk_bytes: int
) -> Iterator[memoryview]:
    """``line_views`` of a URL reader's pieces (``_remote._Reader.pieces``): chunks of about ``chunk_bytes``
    cut at newlines inside each piece are views of it; only a line that spans two pieces is copied, joined."""
    carry = b""  # the unfinished line at the end of the last piece
    try:
        try:
            held = stream.read1(len(stream.peek()))  # all the buffered reader holds (its peek at the head)
            for data, length in itertools.chain([(held, len(held))], pieces()):
                begin = 0
                if carry:
                    newline = data.find(b"\n", 0, length)
                    if newline < 0:  # a line longer than the piece
                        carry += data[:length]
                        continue
                    yield memoryview(carry + data[: newline + 1])
                    begin, carry = newline + 1, b""
                view = memoryview(data)
                while begin < length:
                    cut = data.rfind(b"\n", begin, min(begin + chunk_bytes, length)) + 1
                    if not cut:  # no newline within a chunk: to the line's end, or carried to the next piece
                        cut = data.find(b"\n", begin + chunk_bytes, length) + 1
                        if not cut:
                            break
                    yield view[begin:cut]
                    begin = cut
                carry = bytes(view[begin:length])
        except (OSError, EOFError) as error:
            # What was read so far is still checked, as ``_buffer_views`` does (not the line a replacement cut).
            if carry and not isinstance(error, ObjectChanged):
                yield memoryview(carry)
            raise InputError(f"{name}: {_describe(error)}") from error
        if carry:
            yield memoryview(carry)
    finally:
        stream.close()


def chunks(source: Source, chunk_bytes: int | None = None) -> Iterator[bytes]:
    """``line_views`` as ``bytes`` (each a copy the caller may keep)."""
    for view in line_views(source, chunk_bytes):
        yield bytes(view)


def plain_file(source: Source) -> bool:
    """Whether the source is a regular file read as it is (not stdin, not gzip): one that can be read by
    byte ranges (``check --jobs``). Raises ``InputError`` as ``open_stream`` does."""
    if source.file is None or not os.path.isfile(source.file):
        return False
    stream = open_stream(source)
    stream.close()
    return isinstance(stream, io.BufferedReader)


def describe_error(error: BaseException) -> str:
    return _describe(error)


__all__ = [
    "STDIN",
    "InputError",
    "Source",
    "chunks",
    "describe_error",
    "document_hint",
    "is_url",
    "line_views",
    "open_stream",
    "plain_file",
    "read_all",
    "resolve",
    "utf16_hint",
]
