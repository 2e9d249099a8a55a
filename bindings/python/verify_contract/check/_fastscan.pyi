# The compiled pre-check (_fastscan.c): what mypy checks its callers (_fastpath) against. Each function's
# docstring in the C source says what it returns; keep the two in step when either changes.
from collections.abc import Callable
from typing import overload

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
Span = tuple[int, int, int]
KnownKinds = tuple[bytes, list[str]]
GroupIds = tuple[bytes, list[tuple[str, ...]], list[int], list[Span]]

@overload
def scan(buffer: Buffer, fields: Buffer, kinds: Buffer, budget: None = None) -> tuple[bytes, list[Other]]: ...
@overload
def scan(
    buffer: Buffer, fields: Buffer, kinds: Buffer, budget: tuple[bytes, str]
) -> tuple[bytes, list[Other], KnownKinds, list[Span]]: ...
@overload
def scan(
    buffer: Buffer, fields: Buffer, kinds: Buffer, budget: tuple[bytes, str, bytes, Callable[[bytes], str]]
) -> tuple[bytes, list[Other], KnownKinds, list[Span], GroupIds]: ...
def count_lines(buffer: Buffer) -> int: ...
def histogram(buffer: Buffer) -> list[int]: ...
def utf8_valid(buffer: Buffer, implementation: str) -> bool: ...
def scatter(target: bytearray, others: list[Other], states: dict[bytes | None, int]) -> None: ...
def group_tally(
    parts: list[tuple[Buffer, Buffer, Buffer]], count: int, table: Buffer
) -> list[tuple[int, list[int], list[int]]]: ...
def gather(states: Buffer, table: bytes, known: KnownKinds) -> tuple[list[int], list[str | None], bytes, int]: ...
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
) -> tuple[float, int, int, int, int, int, int, tuple[bool, ...], list[tuple[int, int, int, int, int, int]]]: ...
