"""One file followed as ``tail -F`` follows a log (``check --follow``): complete lines as they are appended,
across rotation and truncation, read in bounded chunks, losing nothing it could read.

- A backlog (the file as it is when followed, or a burst) is read ``chunk_bytes`` at a time: memory is a chunk
  and the longest line, whatever the file's size.
- Rotation by rename (logrotate's ``create``): the name now holds another file, but a writer that has not
  reopened it still appends to the old one. The old file is read until it has been idle for
  ``drain_seconds``, then the new one from its start.
- Truncation in place (logrotate's ``copytruncate``): the same file (device and inode) holds other bytes. It is
  recognised by its size (smaller than the offset read to) and, when it has grown back past that offset
  within one poll, by its head (the first bytes read) or the bytes just before the offset no longer being
  the ones read. It is read again from its start; a rotated copy beside it (``rollouts.jsonl.1``: same head,
  same bytes up to the offset) gives the lines written to the old content after the last read.
- A line that could not be read (an unfinished line when its file went away, lines written before a
  truncation that no copy holds) is counted in ``lost_lines`` and told in a notice, never skipped silently.
- Only a regular file is followed: a device (``/dev/zero`` reads forever), a FIFO or a socket is refused.
"""

from __future__ import annotations

import os
import stat
import time

from verify_contract.check._source import GZIP_MAGIC

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

CHUNK_BYTES = 1 << 20
"""Bytes read at a time: what a backlog costs in memory (plus the longest line)."""
DRAIN_SECONDS = 1.0
"""After a rename, the old file is read until it has been idle this long (ten polls of ``check --follow``): a
writer that has not reopened the name yet still appends to it."""
MARK_BYTES = 256
"""Bytes of the file's head, and of what precedes the offset read to, kept to recognise a file truncated and
written again past that offset between two looks."""


class TailError(Exception):
    """The file cannot be followed (gzip, not a regular file): one line, exit 2."""


class Tail:
    """One followed file: ``read`` gives the complete lines appended since the last call."""

    def __init__(
        self,
        path: str,
        notice: Callable[[str], None],
        chunk_bytes: int = CHUNK_BYTES,
        drain_seconds: float = DRAIN_SECONDS,
    ) -> None:
        self.path = path
        self.notice = notice
        self.chunk_bytes = chunk_bytes
        self.drain_seconds = drain_seconds
        self.stream: BinaryIO | None = None
        self.identity: tuple[int, int] | None = None
        self.position = 0  # of the next byte to read in the current file
        self.pending = b""  # an unfinished last line, waiting for its newline
        self.line = 1  # number of the next complete line in the current file
        self.head = b""  # the file's first bytes as read (up to MARK_BYTES)
        self.mark = b""  # the bytes read just before ``position`` (up to MARK_BYTES)
        self.more = False  # the last read filled a chunk: call again before waiting
        self.lost_lines = 0
        self._rotated_at: float | None = None  # when the name was seen to hold another file
        self._last_data = 0.0

    # -- opening --------------------------------------------------------------------------------------------
    def _open(self) -> bool:
        try:
            # Non-blocking: opening a FIFO for reading would otherwise wait for a writer before it can be refused.
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            return False
        except OSError as error:
            raise TailError(f"{self.path}: {error.strerror or error}") from None
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            os.close(descriptor)
            what = "a directory" if stat.S_ISDIR(status.st_mode) else "not a regular file (a device, FIFO or socket)"
            raise TailError(f"{self.path}: {what}; --follow reads a regular file as it grows")
        stream = os.fdopen(descriptor, "rb")
        if stream.read(2) == GZIP_MAGIC:
            stream.close()
            raise TailError(f"{self.path}: gzip-compressed; --follow reads a growing plain file (check it without)")
        stream.seek(0)
        self.stream, self.identity = stream, (status.st_dev, status.st_ino)
        self._restart()
        self._rotated_at = None
        return True

    def _restart(self) -> None:
        self.position, self.pending, self.line, self.head, self.mark = 0, b"", 1, b"", b""
        if self.stream is not None:
            self.stream.seek(0)

    # -- reading --------------------------------------------------------------------------------------------
    def read(self) -> list[tuple[bytes, int]]:
        """The complete lines appended since the last call, at most about a chunk, as (lines, number of the
        first) pieces: two after a truncation (the old content's last lines from its copy, then the new
        content's first), else one or none."""
        self.more = False
        if self.stream is None and not self._open():
            return []
        pieces = []
        if self._rotated_at is None:  # the same file still under the name: was it truncated since?
            assert self.stream is not None
            size = os.fstat(self.stream.fileno()).st_size
            if self._truncated(size):
                pieces.append(self._from_copy())
                self._reread(size)
        data = self._chunk()
        pieces.append(self._complete(data))
        if len(data) == self.chunk_bytes:
            self.more = True  # a backlog: the name is looked at again once it is read
        else:
            if data:
                self._last_data = time.monotonic()
            self._look_at_the_name(bool(data))
        return [(whole, first) for whole, first in pieces if whole]

    def _look_at_the_name(self, read_some: bool) -> None:
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return  # moved away, nothing new yet: the old file is still read
        if (status.st_dev, status.st_ino) != self.identity:
            self._rotated(read_some)

    def _chunk(self) -> bytes:
        assert self.stream is not None
        data = self.stream.read(self.chunk_bytes)
        if data:
            if self.position < MARK_BYTES:
                self.head = (self.head + data)[:MARK_BYTES]
            self.position += len(data)
            self.mark = (self.mark + data)[-MARK_BYTES:]
        return data

    def _complete(self, data: bytes) -> tuple[bytes, int]:
        first = self.line
        data = self.pending + data
        cut = data.rfind(b"\n") + 1
        self.pending = data[cut:]
        whole = data[:cut]
        self.line += whole.count(b"\n")
        return whole, first

    # -- rotation -------------------------------------------------------------------------------------------
    def _rotated(self, read_some: bool) -> None:
        """The name holds another file: the old one is read until idle for ``drain_seconds``, then left."""
        now = time.monotonic()
        if self._rotated_at is None:
            self._rotated_at = now
            self.notice(
                f"{self.path}: rotated; reading the old file until it has been idle for {self.drain_seconds:g} s, "
                "then the new one from its start"
            )
        if read_some or now - max(self._rotated_at, self._last_data) < self.drain_seconds:
            return
        self._lose_pending("the old file was left after its rotation")
        assert self.stream is not None
        self.stream.close()
        self.stream = None
        self.notice(f"{self.path}: the old file has been idle for {self.drain_seconds:g} s; following the new one")
        self._open()

    def _lose_pending(self, why: str) -> None:
        if self.pending:
            self.lost_lines += 1
            self.notice(
                f"{self.path}: {why} with an unfinished last line ({len(self.pending):,} bytes): 1 line not read"
            )
            self.pending = b""

    # -- truncation -----------------------------------------------------------------------------------------
    def _truncated(self, size: int) -> bool:
        """Whether the file no longer holds what was read: smaller than the offset, or not the same head or
        bytes before the offset (written again past it between two looks)."""
        if size < self.position:
            return True
        if not self.position:
            return False
        assert self.stream is not None
        descriptor = self.stream.fileno()
        if os.pread(descriptor, len(self.head), 0) != self.head:
            return True
        return os.pread(descriptor, len(self.mark), self.position - len(self.mark)) != self.mark

    def _reread(self, size: int) -> None:
        self.notice(
            f"{self.path}: truncated from {self.position:,} bytes (now {size:,}); reading it again from its start "
            "(lines counted so far stay counted)"
        )
        self._lose_pending("truncated")
        self._restart()

    def _from_copy(self) -> tuple[bytes, int]:
        """After a truncation: the lines written past the offset read to before it, from a copy beside the file
        (logrotate's copytruncate: ``NAME.1``, ``NAME-20260101``) that begins with the bytes read and goes on
        past them; (lines, the number of the first), numbered on from the old content."""
        folder = os.path.dirname(self.path) or "."
        base = os.path.basename(self.path)
        try:
            names = sorted(name for name in os.listdir(folder) if name.startswith(base) and name != base)
        except OSError:
            names = []
        for name in names:
            try:
                with open(os.path.join(folder, name), "rb") as stream:
                    if os.fstat(stream.fileno()).st_size <= self.position or stream.read(len(self.head)) != self.head:
                        continue
                    stream.seek(self.position - len(self.mark))
                    if stream.read(len(self.mark)) != self.mark:
                        continue
                    rest = stream.read()  # what the writer added within one poll interval
            except OSError:
                continue
            found = self._complete(rest)
            count = found[0].count(b"\n")
            self.notice(f"{self.path}: {count:,} lines written before the truncation were read from its copy {name}")
            return found
        return b"", self.line

    def finish(self) -> None:
        """At the end of a follow: an unfinished last line is counted as not read."""
        self._lose_pending("stopped")

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None


__all__ = ["CHUNK_BYTES", "DRAIN_SECONDS", "Tail", "TailError"]
