"""One input of ``check`` and ``upgrade`` (``Source``: a file or stdin), the suffixes it is known by, and
the error for one that cannot be read. Apart from ``_inputs`` so that ``_remote`` (URL sources) builds on it
without importing the readers that import ``_remote``."""

from __future__ import annotations

import os

from verify_contract.records import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

GZIP_MAGIC = b"\x1f\x8b"
JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
SUFFIXES = tuple(s + gz for s in JSON_SUFFIXES + JSONL_SUFFIXES for gz in ("", ".gz"))


class InputError(OSError):
    """A path cannot be read (missing, unreadable, not a JSON file, corrupt gzip): exit code 2."""


class ObjectChanged(OSError):
    """An object in storage was replaced since it was listed or since its first bytes were read: what follows
    would be a blend of two versions, so the read stops there, and the line it cut is not checked (exit 2,
    naming the URL)."""


class Source(FrozenRecord):
    """One input: a file (``file``, its path as given), or stdin (``file`` None)."""

    __slots__ = ("name", "file")  # noqa: RUF023 (the constructor's order: repr and pickling use it)
    name: str
    file: str | None

    def __init__(self, name: str, file: str | os.PathLike[str] | None) -> None:
        self._freeze(name, None if file is None else os.fspath(file))

    @property
    def path(self) -> Path | None:
        """``file`` as a ``pathlib.Path`` (imported here: check's start-up does without pathlib)."""
        if self.file is None:
            return None
        from pathlib import Path

        return Path(self.file)

    @property
    def is_document(self) -> bool:
        """A ``.json`` file holds one document (possibly pretty-printed); anything else is JSONL."""
        if self.file is None:
            return False
        name = os.path.basename(self.file).lower()
        name = name.removesuffix(".gz")
        return name.endswith(JSON_SUFFIXES)

    def size(self) -> int | None:
        if self.file is None:
            return None
        try:
            return os.stat(self.file).st_size
        except OSError:
            return None

    def sibling(self, name: str) -> Source | None:
        """The input named ``name`` in this one's store (a local path here; a URL's source looks in its bucket),
        if a file of that name exists: how a failures file beside a main file is found (SPEC 11.1)."""
        return Source(name, name) if os.path.isfile(name) else None

    def open_raw(self) -> BinaryIO:
        """The file's bytes as stored (a URL's source, ``remote.RemoteSource``, opens through fsspec)."""
        assert self.file is not None
        return open(self.file, "rb")
