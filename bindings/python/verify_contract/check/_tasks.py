"""The tasks ``check`` cuts its inputs into, one record type per kind: a ``.json``
document read whole, a chunk of whole lines the parent read (stdin, gzip, one process), or a byte range of
a plain file that the process running it reads itself (``--jobs``)."""

from __future__ import annotations

from verify_contract.records import FrozenRecord


class DocumentTask(FrozenRecord):
    """A ``.json`` input: one document, its whole text."""

    __slots__ = ("name", "text")
    name: str
    text: bytes

    def __init__(self, name: str, text: bytes) -> None:
        self._freeze(name, text)


class LinesTask(FrozenRecord):
    """A chunk of whole lines of a JSONL input; ``first``: the input's first chunk (its line numbers start)."""

    __slots__ = ("chunk", "first", "name")
    chunk: bytes | memoryview
    first: bool
    name: str

    def __init__(self, chunk: bytes | memoryview, first: bool, name: str) -> None:
        self._freeze(chunk, first, name)


class RangeTask(FrozenRecord):
    """The lines that start in bytes [start, stop) of a plain file (``path``), shown as ``name``."""

    __slots__ = ("path", "start", "stop", "first", "name")  # noqa: RUF023 (the constructor's order)
    path: str
    start: int
    stop: int
    first: bool
    name: str

    def __init__(self, path: str, start: int, stop: int, name: str) -> None:
        self._freeze(path, start, stop, start == 0, name)

    def __reduce__(self) -> tuple[type[RangeTask], tuple[str, int, int, str]]:
        return RangeTask, (self.path, self.start, self.stop, self.name)


Task = DocumentTask | LinesTask | RangeTask
