"""The tasks ``check`` cuts its inputs into, one record type per kind, for every engine (one process,
``--jobs``, Ray): a ``.json`` document, a chunk of whole lines the planner read, a whole input that cannot be
cut, or a byte range of a plain file. Each but ``LinesTask`` names its input (``Source``) and is read where it
runs: in a worker process, on a Ray node; ``ordinal`` is its input's place among the inputs (a file may be
given twice), ``first`` whether its line numbers start the input's."""

from __future__ import annotations

from verify_contract.check._source import Source
from verify_contract.records import FrozenRecord

# The Ray engine's defaults (check._ray), here where check's start-up already is, so that `--help` names them
# without importing the engine.
RAY_BLOCKS_PER_CPU = 2
"""Tasks the Ray engine cuts the plain input bytes into, per CPU of the cluster, unless told (``blocks``)."""
RAY_MAX_RETRIES = 3
"""Times Ray runs a task again when its worker dies (a node lost, a worker killed, out of memory), unless told
(``max_retries``)."""


class DocumentTask(FrozenRecord):
    """A ``.json`` input: one document, read whole."""

    __slots__ = ("source", "ordinal")  # noqa: RUF023 (the constructor's order)
    source: Source
    ordinal: int

    def __init__(self, source: Source, ordinal: int) -> None:
        self._freeze(source, ordinal)

    @property
    def first(self) -> bool:
        return True


class LinesTask(FrozenRecord):
    """A chunk of whole lines of a JSONL input that the planner read (stdin, gzip, one process)."""

    __slots__ = ("chunk", "first", "name")
    chunk: bytes | memoryview
    first: bool
    name: str

    def __init__(self, chunk: bytes | memoryview, first: bool, name: str) -> None:
        self._freeze(chunk, first, name)


class StreamTask(FrozenRecord):
    """A whole JSONL input that cannot be cut into ranges (gzip), read where the task runs (Ray)."""

    __slots__ = ("source", "ordinal")  # noqa: RUF023 (the constructor's order)
    source: Source
    ordinal: int

    def __init__(self, source: Source, ordinal: int) -> None:
        self._freeze(source, ordinal)

    @property
    def first(self) -> bool:
        return True


class RangeTask(FrozenRecord):
    """The lines that start in bytes [start, stop) of a plain file, local or behind a URL."""

    __slots__ = ("source", "start", "stop", "ordinal")  # noqa: RUF023 (the constructor's order)
    source: Source
    start: int
    stop: int
    ordinal: int

    def __init__(self, source: Source, start: int, stop: int, ordinal: int) -> None:
        self._freeze(source, start, stop, ordinal)

    @property
    def first(self) -> bool:
        return self.start == 0


Task = DocumentTask | LinesTask | StreamTask | RangeTask
