"""The compiled pre-check (``_fastscan.c``), the field table it reads, and what its status bytes mean.

``scan`` answers for each line of a chunk: blank, certainly valid and clean (with what it counts), or
"ask the reference" (``STATUS_TEXT``: the text may break a JSON rule; ``STATUS_CONTRACT``: the text is
strict JSON but a contract field needs the reference). A line of the second kind may come with a memo key:
bytes that determine the reference's whole outcome for it (see ``_fastscan.c``). Without the compiled
module every non-blank line asks the reference, without a key: slower, same report.

The C code knows no contract field: ``field_table`` compiles the resolved ``Contract`` (a version's model
and a profile) into the table it scans with. Whatever the table cannot express (a constraint keyword other than
the failure-kind grammar, a constraint on the document itself, too many fields, a depth limit other than
the C one) makes the pre-check hand
the line to the reference, or decline the whole version: it never calls clean what it cannot prove.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache

from verify_contract.contract import Field, Profile, ResolvedModel, json_pointer, mask_paths
from verify_contract.generated.contract_names import ROLE_FAILURE_KIND, ROLE_LEGACY_MASK, ROLE_MASK

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.contract import Contract

try:  # typed by _fastscan.pyi
    from verify_contract.check import _fastscan as _native
except ImportError:  # no C compiler when the package was installed
    _native = None  # type: ignore[assignment]

STATUS_BLANK = 0
# The C scanner's own bytes; without it only _slow_scan writes them, and any distinct values would do.
STATUS_TEXT: int = getattr(_native, "STATUS_TEXT", 254)
STATUS_CONTRACT: int = getattr(_native, "STATUS_CONTRACT", 253)
CLEAN_STATUSES = range(1, 13)
KIND_CLASSES = ("registered", "namespaced", "unregistered")
"""The failure-kind classes ``check`` counts; a clean status byte's kind code 1 and 2 are the first two."""
# The SPEC roles the pre-check acts on: the effective mask (both places) and the failure-kind registry.
_ROLE_CODES = {
    ROLE_MASK: "ROLE_MASK",
    ROLE_LEGACY_MASK: "ROLE_LEGACY_MASK",
    ROLE_FAILURE_KIND: "ROLE_KIND",
    "group": "ROLE_GROUP",
}
_BLANK = b" \t\r\n"  # JSON whitespace (RFC 8259): \x0b and \x0c are not blank


def available() -> bool:
    return _native is not None


def clean_outcome(status: int) -> tuple[bool, bool, str | None]:
    """(masked, legacy mask in use, failure-kind class) of a clean status byte."""
    code = status - 1
    kind = code >> 2
    return bool(code & 1), bool(code & 2), KIND_CLASSES[kind - 1] if kind else None


class Unsupported(ValueError):
    """The model holds a construct the pre-check cannot prove: every line of the version goes to the reference."""


def _native_int(name: str) -> int:
    assert _native is not None
    value: int = getattr(_native, name)
    return value


def _type_bits(types: Iterable[str]) -> int:
    assert _native is not None
    bits: dict[str, int] = _native.TYPE_BITS
    found = 0
    for name in types:
        if name not in bits:
            raise Unsupported(f"JSON type {name!r} has no type bits in the pre-check")
        found |= bits[name]
    return found


def _constraint_class(model: ResolvedModel, field: Field, role: str | None) -> int:
    """PLAIN (types only), KIND (the failure-kind grammar the C implements, plus the registry) or UNSURE."""
    if not field.constraints:
        return _native_int("CLASS_PLAIN")
    kinds = model.failure_kinds
    if (
        role == ROLE_FAILURE_KIND
        and kinds is not None
        and field.constraints == {"pattern": kinds["grammar"]}
        and kinds["grammar"] == getattr(_native, "KIND_GRAMMAR", None)
    ):
        return _native_int("CLASS_KIND")
    return _native_int("CLASS_UNSURE")


def _entry(parent: int, types: int, klass: int, role: int, required: bool, name: str) -> bytes:
    raw = name.encode()
    if len(raw) > 255:
        raise Unsupported(f"member name {name[:40]!r}... is longer than the pre-check's 255 bytes")
    return bytes([parent, types & 0xFF, types >> 8, klass, role, int(required), len(raw)]) + raw


def build_field_table(model: ResolvedModel, profile: Profile, group_paths: tuple[tuple[str, ...], ...] = ()) -> bytes:
    """The pre-check's field table of one profile (format: ``load_table`` in ``_fastscan.c``), with the
    members of ``group_paths`` (the failure budget's ``--group-by``) where no contract field is one already.

    Raises ``Unsupported`` for a model the table cannot express: the caller then scans without the C code.
    """
    assert _native is not None
    if model.max_depth != _native_int("MAX_DEPTH"):
        # The C scanner's nesting limit is compiled in: with another limit its text verdicts would be wrong.
        limit = _native_int("MAX_DEPTH")
        raise Unsupported(f"the model's depth limit {model.max_depth} is not the pre-check's {limit}")
    definition = model.definitions[model.profiles[profile].definition]
    if definition["constraints"] or definition["additional_properties"] not in (None, True):
        # A keyword on the document itself (a closed object, minProperties, dependentRequired, ...) may
        # relate members: neither the clean verdict nor the memo key could account for it.
        raise Unsupported(f"the {profile} profile constrains the document itself: {sorted(definition['constraints'])}")
    roles = {pointer: role for role, pointer in model.roles.items()}
    numbers: dict[str, int] = {"": 0}
    entries: list[bytes] = []

    def add(pointer: str, parent: str, name: str, types: int, klass: int, role: str | None, required: bool) -> None:
        if len(entries) >= _native_int("MAX_FIELDS"):
            raise Unsupported(f"more than {_native_int('MAX_FIELDS')} fields")
        if parent not in numbers:
            raise Unsupported(f"{pointer}: its parent {parent} has no table entry")
        code = _native_int(_ROLE_CODES[role]) if role in _ROLE_CODES else 0
        entries.append(_entry(numbers[parent], types, klass, code, required, name))
        numbers[pointer] = len(entries)

    for field in model.fields_of(profile):
        role = roles.get(field.pointer)
        add(
            field.pointer,
            field.parent,
            field.name,
            _type_bits(field.types),
            _constraint_class(model, field, role),
            role,
            profile in field.required_in,
        )
    # effective_mask reads the mask where the latest contract puts it, at every version (a version that does
    # not declare it lets any value through the schema, but a non-boolean mask is still refused there).
    any_type = _type_bits(("null", "boolean", "object", "array", "number", "string"))
    plain = _native_int("CLASS_PLAIN")
    for role, path in mask_paths().items():
        for depth in range(1, len(path) + 1):
            pointer = json_pointer(path[:depth])
            if pointer not in numbers:
                parent = pointer[: pointer.rindex("/")]
                add(pointer, parent, path[depth - 1], any_type, plain, role if depth == len(path) else None, False)
    # The budget's group members: recorded like fields, keyed by no rule (ROLE_GROUP), so memo keys do not change.
    for path in group_paths:
        for depth in range(1, len(path) + 1):
            pointer = json_pointer(path[:depth])
            if pointer not in numbers:
                add(pointer, json_pointer(path[: depth - 1]), path[depth - 1], any_type, plain, "group", False)
    semantic = 0
    if ROLE_LEGACY_MASK in model.roles:
        semantic |= _native_int("SEM_LEGACY")
    if ROLE_FAILURE_KIND in model.roles:
        semantic |= _native_int("SEM_KIND")
    return bytes([len(entries), semantic]) + b"".join(entries)


@cache
def field_table(contract: Contract) -> bytes | None:
    """The field table of the contract's profile, or None when the pre-check declines its version."""
    if _native is None:
        return None
    try:
        return build_field_table(contract.model, contract.profile)
    except Unsupported:
        return None


@cache
def group_field_table(contract: Contract, group_paths: tuple[tuple[str, ...], ...]) -> tuple[bytes, bytes] | None:
    """The field table with the members of ``group_paths``, and each path's field number (a byte each); None
    when the pre-check declines the version or the table cannot hold them (the budget then parses lines)."""
    if field_table(contract) is None or not 1 <= len(group_paths) <= _native_int("MAX_GROUP_PATHS"):
        return None
    try:
        table = build_field_table(contract.model, contract.profile, group_paths)
    except Unsupported:
        return None
    # Field numbers follow the table's order (from 1): find each path's entry by walking the table.
    numbers: dict[str, int] = {"": 0}
    at, number = 2, 0
    parents: dict[int, str] = {0: ""}
    while at < len(table):
        number += 1
        parent, size = table[at], table[at + 6]
        name = table[at + 7 : at + 7 + size].decode()
        pointer = parents[parent] + json_pointer((name,))
        parents[number] = pointer
        numbers.setdefault(pointer, number)  # the first of two equal names is the one the scan finds
        at += 7 + size
    return table, bytes(numbers[json_pointer(path)] for path in group_paths)


def kinds_table(model: ResolvedModel) -> bytes:
    """Registered kinds that draw no warning at the model's version (deprecated ones do), as ``\\0a\\0b\\0``."""
    kinds = model.failure_kinds
    names = sorted(k["id"] for k in kinds["registered"] if not k["deprecated"]) if kinds else []
    return b"\0" + b"".join(name.encode() + b"\0" for name in names)


@cache
def clean_kinds(model: ResolvedModel) -> bytes:
    return kinds_table(model)


Other = tuple[int, int, int, bytes | None]
"""(line index, start, end, memo key or None) of a line the pre-check did not settle."""


def _slow_scan(chunk: bytes) -> tuple[bytes, list[Other]]:
    statuses = bytearray()
    others: list[Other] = []
    start = 0
    size = len(chunk)
    while start < size:
        cut = chunk.find(b"\n", start)
        stop = size if cut < 0 else cut + 1
        index = len(statuses)
        if chunk[start:stop].strip(_BLANK):
            statuses.append(STATUS_TEXT)
            others.append((index, start, stop, None))
        else:
            statuses.append(STATUS_BLANK)
        start = stop
    return bytes(statuses), others


def scan_with(chunk: bytes, table: bytes, kinds: bytes) -> tuple[bytes, list[Other]]:
    """``scan`` with an explicit field table and kind list (tests feed synthetic models through this)."""
    assert _native is not None
    return _native.scan(chunk, table, kinds)


def scan(chunk: bytes, contract: Contract, fast: bool = True) -> tuple[bytes, list[Other]]:
    """One status byte per line of ``chunk``, and (index, start, end, memo key) of every line to ask the
    reference about."""
    table = field_table(contract) if fast else None
    if table is not None:
        return scan_with(chunk, table, clean_kinds(contract.model))
    return _slow_scan(chunk)


Span = tuple[int, int, int]
"""(line index, start, end) of a line in its chunk."""
KnownKinds = tuple[bytes, list[str]]
"""The lines whose failure kind the pre-check knows: their indices (uint32, native order) and their kinds."""


GroupIds = tuple[bytes, list[tuple[str, ...]], list[int], list[Span]]
"""A chunk's groups (``scan_budget``'s with group fields): a uint32 combination id per line (``NO_GROUP``
for a blank line or one the scan did not read whole), the combinations' labels, the first line of each, and the
spans of the lines without an id that are not blank."""
NO_GROUP = 0xFFFFFFFF


def scan_kinds(
    chunk: bytes,
    contract: Contract,
    fast: bool,
    reread_member: bytes,
    no_kind: str,
    groups: tuple[tuple[tuple[str, ...], ...], Callable[[bytes], str]] | None = None,
) -> tuple[bytes, list[Other], KnownKinds, list[Span], GroupIds | None]:
    """``scan``, plus the failure kinds the compiled scan can say (a line it read whole that is not clean and
    unmasked: its kind, ``no_kind`` without one; a line whose memo key names a JSON-text defect: ``no_kind``),
    for ``gather``, and the spans of the lines read whole whose kind it leaves to a parse (an escape, or
    ``reread_member``, a quoted member name that may carry the kind, in the line). The failure budget reads
    the kinds without parsing the lines. With ``groups`` (the group paths and a function that labels a value
    from its JSON text), also each line's group (``GroupIds``) where the compiled scan can say, else None.
    Without the compiled scan it knows none."""
    table = field_table(contract) if fast else None
    if table is None:
        statuses, others = _slow_scan(chunk)
        return statuses, others, (b"", []), [], None
    assert _native is not None
    grouped = group_field_table(contract, groups[0]) if groups is not None else None
    kinds = clean_kinds(contract.model)
    if groups is None or grouped is None:
        return _native.scan_budget(chunk, table, kinds, reread_member, no_kind)
    return _native.scan_budget(chunk, grouped[0], kinds, reread_member, no_kind, grouped[1], groups[1])


def gather(
    states: bytes | bytearray, table: bytes, known: KnownKinds
) -> tuple[list[int], list[str | None], bytes, int]:
    """For each byte of ``states`` whose entry in ``table`` (256 bytes) is not zero, in order: its index, its
    kind in ``known`` (``scan_kinds``'; None where not known) and the table's entry (as bytes); and how many
    of the kinds picked are None."""
    if _native is not None:
        return _native.gather(states, table, known)
    where, kinds = known
    kind_of = dict(zip(memoryview(where).cast("I"), kinds, strict=True))
    indices = [index for index, byte in enumerate(states) if table[byte]]
    picked = [kind_of.get(index) for index in indices]
    return indices, picked, bytes(table[states[index]] for index in indices), picked.count(None)


def scatter(target: bytearray, others: list[Other], states: dict[bytes | None, int]) -> None:
    """``target[index] = states[key]`` for each (index, start, end, key) of ``others`` whose key ``states``
    has."""
    if _native is not None:
        _native.scatter(target, others, states)
        return
    for index, _start, _stop, key in others:
        if key in states:
            target[index] = states[key]


def group_tally(
    parts: Sequence[tuple[bytes | memoryview, bytes, bytes]], count: int, table: bytes
) -> list[tuple[int, list[int], list[int]]]:
    """For each of ``count`` scopes, across consecutive chunks (``parts``: (states, ids, slots) each): its
    rollouts among the lines (a state not 0), and the offsets among them and positions among all picked lines
    of those whose ``table`` entry is not 0; a line's scope is ``slots[ids[line]]`` (both uint32, native order)."""
    if _native is not None:
        return _native.group_tally(list(parts), count, table)
    found: list[tuple[int, list[int], list[int]]] = [(0, [], []) for _ in range(count)]
    seen = [0] * count
    position = 0
    for states, ids, slots in parts:
        line_ids, scope_of = memoryview(ids).cast("I"), memoryview(slots).cast("I")
        for index, state in enumerate(bytes(states)):
            if not state:
                continue
            scope = scope_of[line_ids[index]]
            seen[scope] += 1
            if table[state]:
                found[scope][1].append(seen[scope] - 1)
                found[scope][2].append(position)
                position += 1
    return [(seen[scope], offsets, positions) for scope, (_, offsets, positions) in enumerate(found)]


def count_lines(chunk: bytes) -> int:
    """Newlines in ``chunk``, plus one if it does not end with one (the lines ``scan`` reports)."""
    if _native is not None:
        lines: int = _native.count_lines(chunk)
        return lines
    return chunk.count(b"\n") + (bool(chunk) and not chunk.endswith(b"\n"))


def status_counts(statuses: bytes) -> list[int]:
    """How many lines have each status byte (index = status)."""
    if _native is not None:
        counts: list[int] = _native.histogram(statuses)
        return counts
    return [statuses.count(status) for status in range(256)]
