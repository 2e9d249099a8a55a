# The compiled pre-check (_fastscan.c): what mypy checks its callers (_fastpath) against. Each function's
# docstring in the C source says what it returns; keep the two in step when either changes.
from collections.abc import Callable
from typing import final

from typing_extensions import Buffer

STATUS_TEXT: int
STATUS_CONTRACT: int
SEM_LEGACY: int
SEM_KIND: int
MAX_FIELDS: int
MAX_DEPTH: int
CLASS_PLAIN: int
CLASS_KIND: int
CLASS_UNSURE: int
ROLE_MASK: int
ROLE_LEGACY_MASK: int
ROLE_KIND: int
ROLE_GROUP: int
MAX_GROUP_PATHS: int
KIND_GRAMMAR: str
TYPE_BITS: dict[str, int]
SYNTAX_TAGS: tuple[str, ...]
CODED_TAGS: tuple[str, ...]
UTF8_TAGS: tuple[str, ...]
UTF8_IMPLEMENTATIONS: tuple[str, ...]
UTF8_IMPLEMENTATION: str

Other = tuple[int, int, int, bytes | None]
"""(line index, start, end, memo key or None) of a line neither blank nor clean."""
Span = tuple[int, int, int]
"""(line index, start, end) of a line in its chunk."""

# The named results: struct sequences (tuples whose items also have names), each stated once here and once in
# the C (its PyStructSequence_Field list), field for field; test_fastscan_boundary.py holds the two together.
@final
class Scan(tuple[bytes, list[Other]]):
    @property
    def statuses(self) -> bytes: ...
    @property
    def others(self) -> list[Other]: ...

@final
class LineKinds(tuple[bytes, list[str]]):
    @property
    def where(self) -> bytes: ...
    @property
    def kinds(self) -> list[str]: ...

@final
class ChunkGroups(tuple[bytes, list[tuple[str, ...]], list[int], list[Span]]):
    @property
    def ids(self) -> bytes: ...
    @property
    def combinations(self) -> list[tuple[str, ...]]: ...
    @property
    def firsts(self) -> list[int]: ...
    @property
    def unread(self) -> list[Span]: ...

@final
class BudgetScan(tuple[bytes, list[Other], LineKinds, list[Span], ChunkGroups | None]):
    @property
    def statuses(self) -> bytes: ...
    @property
    def others(self) -> list[Other]: ...
    @property
    def line_kinds(self) -> LineKinds: ...
    @property
    def reread(self) -> list[Span]: ...
    @property
    def groups(self) -> ChunkGroups | None: ...

@final
class Gathered(tuple[list[int], list[str | None], bytes, int]):
    @property
    def indices(self) -> list[int]: ...
    @property
    def kinds(self) -> list[str | None]: ...
    @property
    def states(self) -> bytes: ...
    @property
    def unknown(self) -> int: ...

@final
class WindowEvent(tuple[int, int, int, int, int, int]):
    @property
    def k(self) -> int: ...
    @property
    def order(self) -> int: ...
    @property
    def inside(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def start(self) -> int: ...
    @property
    def run(self) -> int: ...

@final
class WindowScan(tuple[float, int, int, int, int, int, int, tuple[bool, ...], list[WindowEvent]]):
    @property
    def worst(self) -> float: ...
    @property
    def worst_at(self) -> int: ...
    @property
    def worst_inside(self) -> int: ...
    @property
    def worst_size(self) -> int: ...
    @property
    def longest(self) -> int: ...
    @property
    def longest_at(self) -> int: ...
    @property
    def last_run(self) -> int: ...
    @property
    def active(self) -> tuple[bool, ...]: ...
    @property
    def events(self) -> list[WindowEvent]: ...

def scan(buffer: Buffer, fields: Buffer, kinds: Buffer) -> Scan: ...
def scan_budget(
    buffer: Buffer,
    fields: Buffer,
    kinds: Buffer,
    member: Buffer,
    no_kind: str,
    group_fields: bytes | None = None,
    label: Callable[[bytes], str] | None = None,
) -> BudgetScan: ...
def count_lines(buffer: Buffer) -> int: ...
def histogram(buffer: Buffer) -> list[int]: ...
def utf8_valid(buffer: Buffer, implementation: str) -> bool: ...
def scatter(target: bytearray, others: list[Other], states: dict[bytes | None, int]) -> None: ...
def group_tally(
    parts: list[tuple[Buffer, Buffer, Buffer]], count: int, table: Buffer
) -> list[tuple[int, list[int], list[int]]]: ...
def gather(states: Buffer, table: bytes, known: tuple[bytes, list[str]]) -> Gathered: ...
def window_scan(
    carried: list[int],
    offsets: list[int],
    first: int,
    window: int,
    judged: int,
    bounds: tuple[float, ...],
    active: tuple[bool, ...],
    carried_run: int,
    follows_carried: bool,
    limit: int,
) -> WindowScan: ...
