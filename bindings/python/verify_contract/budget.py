"""Failure budgets (SPEC 11): is the share of masked and failed rollouts in a stream within bounds?

``FailureBudget`` watches a stream of rollouts in order, one ``observe`` (a verify response) or
``observe_failure`` (a row of a collector's failures file) each (``ordered_rollouts`` merges a main file with
its failures file in SPEC 11.1's order), and answers what changed: a warning or a breach of the masked rate
over the last ``window`` rollouts (overall and in each group), or a run of consecutive masked rollouts too
long. ``summary()`` says where the stream stands. ``verify-contract check``
feeds the same state machine, so the library, the CLI and the stream vectors count alike.

Pure Python and cheap: no pydantic, no jsonschema, a few attribute updates per rollout (benchmarks/bench.py
has a row: ``observe`` against ``orjson.loads`` of the same line).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import repeat
from operator import add, floordiv, itemgetter

from verify_contract._budget_caps import COUNT_LIMIT, DEFAULT_WINDOW, MAX_DISTINCT
from verify_contract._counted import counted
from verify_contract.contract import ABSENT, MaskTypeError, contract_model, effective_mask, value_at
from verify_contract.generated import LATEST_VERSION
from verify_contract.generated.contract_names import (
    ROLE_FAILURE_KIND,
    RULE_BUDGET_CONSECUTIVE_MASKED,
    RULE_BUDGET_MASKED_RATE,
)
from verify_contract.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ABSENT_GROUP",
    "BUDGET_RULES",
    "BudgetError",
    "BudgetEvent",
    "FailureBudget",
    "GroupPath",
    "identity_of",
    "ordered_rollouts",
    "parse_group_path",
]

OK, MASKED, FAILED = 0, 1, 2
"""A rollout's state: usable, masked by its producer (effective mask, SPEC 7.1), or failed (no usable verify
response: a failures-file row, or a document that breaks the contract)."""

STATE_NAMES = ("ok", "masked", "failed")

_MODEL = contract_model(LATEST_VERSION)
# Rule id -> summary of the budget's findings, stable like the contract's (schema/contract.yaml states them,
# SPEC 11.5 lists them; a test holds the two together). Each is a warning or a breach; the severity follows
# the level, not the rule.
BUDGET_RULES: dict[str, str] = {rule["id"]: rule["summary"] for rule in _MODEL.budget_rules}

ABSENT_GROUP = "(absent)"
"""A group path's value in a rollout that does not have it: its own group (SPEC 11.2)."""
OTHER = "(other)"
"""Where distinct values past ``MAX_DISTINCT`` are counted."""
NO_KIND = "(none)"
"""The failure kind of a masked or failed rollout that names none."""
IDENTITY_KEYS: tuple[str, ...] = _MODEL.rollout_keys.identity
"""A rollout's identity across attempts, as NeMo Gym's rollout collection keys it (SPEC 11.1)."""
FAILURE_CLASS_KEY: str = _MODEL.rollout_keys.failure_class
"""The class of a failures-file row (NeMo Gym 0.7.0): its failure kind when the row names no ``failure_kind``."""
VALUE_CAP = 120
"""Characters of a group value kept (a value is a label, never a payload)."""

GroupPath = tuple[str, ...]


def _whole(value: Any, minimum: int) -> bool:
    """An int (not a bool) between ``minimum`` and ``COUNT_LIMIT``."""
    return isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= COUNT_LIMIT


def _expected_ok(expected: Any) -> bool:
    if isinstance(expected, tuple):
        return len(expected) == 2 and all(_whole(v, 1) for v in expected) and expected[0] * expected[1] <= COUNT_LIMIT
    return _whole(expected, 0)


class BudgetError(ValueError):
    """A budget's settings are out of range (a rate outside [0, 1], a window of 0, ...)."""


def parse_group_path(text: str) -> GroupPath:
    """``agent_ref.name`` -> ("agent_ref", "name"); refuses an empty path or an empty part."""
    parts = tuple(text.strip().split("."))
    if not text.strip() or any(not part for part in parts):
        raise BudgetError(f"group path {text!r} is not a dotted member path (e.g. agent_ref.name)")
    return parts


def group_label(value: Any) -> str:
    """A group value as text: strings as they are, numbers and booleans in JSON spelling, containers by
    type (a container is not a group key anyone meant), capped. Absent and null are one group, ``(absent)``."""
    if value is ABSENT or value is None:
        return ABSENT_GROUP
    if isinstance(value, str):
        return value if len(value) <= VALUE_CAP else value[:VALUE_CAP] + "..."
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return "(object)" if isinstance(value, Mapping) else "(array)"


def group_of(row: Any, paths: tuple[GroupPath, ...]) -> tuple[str, ...]:
    return tuple(group_label(value_at(row, path)) for path in paths)


def identity_of(row: Any) -> tuple[Any, ...] | None:
    """(task index, rollout index) when the row carries both as integers, else None."""
    if not isinstance(row, Mapping):
        return None
    values = tuple(row.get(key) for key in IDENTITY_KEYS)
    # type() is int: an int and not a bool (JSON has no other int types)
    return values if all(type(value) is int for value in values) else None


def failure_row_first(main_identity: tuple[Any, ...] | None, failure_identity: tuple[Any, ...] | None) -> bool:
    """SPEC 11.1's order of the next row of a main file and the next row of its failures file: the failures row
    comes first when both carry an identity and its identity is not above the main row's (on a tie it is an
    earlier attempt of that rollout); otherwise the main row does (file order: main file, then failures file)."""
    return main_identity is not None and failure_identity is not None and failure_identity <= main_identity


def ordered_rollouts(rows: Iterable[Any], failure_rows: Iterable[Any]) -> Iterator[tuple[Any, bool]]:
    """A main file's rows and its failures file's rows as one stream in SPEC 11.1's order, as
    ``(row, is_failure_row)``: the two merged by identity (``failure_row_first``), each file's own order
    kept. Each is read once and one row of each is held, so two files of any size merge in constant memory.
    Files in identity order (as NeMo Gym writes them) come out in identity order; files that are not come
    out merged as stated, not sorted.

    ``for row, failed in ordered_rollouts(main, failures): budget.observe_failure(row) if failed else
    budget.observe(row)`` feeds a budget as ``check`` does."""
    failures = iter(failure_rows)
    pending = next(failures, _END)
    for row in rows:
        identity = identity_of(row)
        while pending is not _END and failure_row_first(identity, identity_of(pending)):
            yield pending, True
            pending = next(failures, _END)
        yield row, False
    while pending is not _END:
        yield pending, True
        pending = next(failures, _END)


_END = object()


def document_state(document: Any) -> tuple[int, str | None]:
    """(state, failure kind) of a verify response, as SPEC 11.1 counts it: not an object, or a mask that is
    not a boolean, is failed (a consumer refuses it, SPEC 4.2); an effective mask of true is masked."""
    if not isinstance(document, Mapping):
        return FAILED, None
    try:
        masked = effective_mask(document)
    except MaskTypeError:
        return FAILED, kind_of(document)
    return (MASKED if masked else OK), kind_of(document)


_KIND_FIELD = _MODEL.role(ROLE_FAILURE_KIND)
if _KIND_FIELD is None:  # the newest version declares every role
    raise RuntimeError(f"the newest contract model has no {ROLE_FAILURE_KIND} role")
# The failure kind's member path and name are the model's (its role's field), not typed here.
_KIND_PATH: GroupPath = _KIND_FIELD.path
_KIND_KEY = _KIND_FIELD.name


def kind_of(row: Mapping[str, Any]) -> str | None:
    """A row's failure kind as the budget counts it: its ``failure_kind`` string, else a failures-file row's
    failure class; None for neither. ``check`` reads a line's kind with it where its pre-check cannot."""
    kind = value_at(row, _KIND_PATH)
    if isinstance(kind, str) and kind:
        return kind
    failure_class = row.get(FAILURE_CLASS_KEY)
    return failure_class if isinstance(failure_class, str) and failure_class else None


def _picked(values: Sequence[Any], positions: list[int], kind: Callable[[Any], Any] = list) -> Any:
    """``values`` at ``positions`` (increasing) as a ``kind`` (list or tuple), in one C call; all of them as
    they are when they are a list (not copied)."""
    if len(positions) == len(values) and isinstance(values, list):
        return values
    if len(positions) < 2:
        return kind(values[at] for at in positions)
    picked = itemgetter(*positions)(values)
    return picked if kind is tuple else kind(picked)


class BudgetEvent(Record):
    """What changed at one rollout: a scope (all rollouts, or one group) entered a warning or a breach."""

    __slots__ = ("rule", "level", "rollout", "group", "rate", "bad", "size", "run", "kinds", "where")  # noqa: RUF023
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        rule: str,
        level: str,
        rollout: int,
        group: dict[str, str] | None,
        rate: float,
        bad: int,
        size: int,
        run: int,
        kinds: list[tuple[str, int]],
        where: tuple[str, int | None] | None,
    ) -> None:
        self.rule = rule
        self.level = level  # "warning" or "breach"
        self.rollout = rollout  # 1-based ordinal in the whole stream
        self.group = group  # None: all rollouts
        self.rate = rate  # masked rate of the window (rule budget-masked-rate)
        self.bad = bad  # masked or failed rollouts in the window
        self.size = size  # rollouts in the window
        self.run = run  # consecutive masked or failed rollouts (rule budget-consecutive-masked)
        self.kinds = kinds  # the window's failure kinds, most frequent first
        self.where = where  # (file, line) of the rollout, when known

    @property
    def scope(self) -> str:
        if self.group is None:
            return "all rollouts"
        return " ".join(f"{path}={value}" for path, value in self.group.items())

    @property
    def message(self) -> str:
        kinds = ", ".join(f"{kind} {count:,}" for kind, count in self.kinds[:3]) or "none named"
        if self.rule == RULE_BUDGET_CONSECUTIVE_MASKED:
            return f"{self.scope}: {counted(self.run, 'consecutive rollout')} masked or failed (kinds: {kinds})"
        return (
            f"{self.scope}: {self.rate:.1%} masked or failed in the last {counted(self.size, 'rollout')} "
            f"({self.bad:,} of {self.size:,}; kinds: {kinds})"
        )

    def __str__(self) -> str:
        """What ``print(event)`` shows: the message with its level, rule and place, as ``check`` prints it."""
        where = "" if self.where is None else f"{self.where[0]}:{self.where[1]}: "
        return f"{where}{self.level} [{self.rule}] {self.message} (rollout {self.rollout:,})"

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rule": self.rule,
            "level": self.level,
            "rollout": self.rollout,
            "group": self.group,
            "message": self.message,
            "rate": round(self.rate, 6),
            "masked": self.bad,
            "window": self.size,
            "consecutive": self.run,
            "kinds": dict(self.kinds),
        }
        if self.where is not None:
            data["file"], data["line"] = self.where
        return data


class _Scope:
    """The window, counts and states of one scope (all rollouts, or one group)."""

    __slots__ = (
        "bad",
        "block_sizes",
        "blocks",
        "breached",
        "counts",
        "kinds",
        "longest",
        "longest_at",
        "run",
        "seen",
        "warned",
        "worst",
        "worst_at",
    )

    def __init__(self) -> None:
        self.seen = 0  # rollouts of this scope
        self.counts = [0, 0, 0]  # by state
        self.bad: deque[tuple[int, str]] = deque()  # (ordinal in the scope, kind) of masked or failed in the window
        self.kinds: Counter[str] = Counter()  # every masked or failed rollout's kind
        self.run = 0
        self.longest = 0
        self.longest_at = 0  # stream ordinal where the longest run ended
        self.worst = -1.0
        self.worst_at = (0, 0, 0)  # (stream ordinal, bad, size) of the worst window
        self.warned = False
        self.breached = False
        # Tumbling blocks of ``window`` rollouts of the whole stream, for the plot: block number (from 0) -> kinds
        # counted in it. Numbered by the stream's ordinal, not the scope's, so that every scope's blocks line up.
        self.blocks: dict[int, Counter[str]] = {}
        self.block_sizes: Counter[int] = Counter()  # a group's rollouts in each block (the whole stream's: all)


class FailureBudget:
    """Bounds on the masked rate of a rollout stream (SPEC 11), as Great Expectations' ``mostly`` bounds a
    share, with Soda's separate warn and fail levels and Prometheus's minimum volume.

    - ``max_masked`` / ``warn_masked``: a breach / a warning when more than this share of the last
      ``window`` rollouts (of the stream, or of any one group) is masked or failed; None: no bound (0 is
      a bound, the strictest: any masked rollout in a judged window).
    - ``min_samples``: a window is judged only once it holds this many rollouts (default: ``window``, a
      full window).
    - ``max_consecutive_masked``: a breach when more consecutive rollouts (of the stream, or of a group)
      than this are masked or failed.
    - ``group_by``: dotted member paths (``agent_ref.name``, ``_ng_environment_server``, ``failure_kind``);
      rollouts are counted and bounded per combination of their values, a missing one being ``(absent)``.
    - ``expected``: the rollouts the run should hold, a count or a (tasks, repeats) grid, counted (never
      listed); with it, or ``track_identities`` (a retry list), every identity seen is kept.
    - ``track_blocks``: keep each window's counts for a plot (``blocks()``), a dict entry per window; off by
      default, so the memory of a budget fed for weeks stays constant.
    Counts are whole numbers up to ``COUNT_LIMIT``.
    """

    def __init__(
        self,
        max_masked: float | None = None,
        warn_masked: float | None = None,
        window: int = DEFAULT_WINDOW,
        min_samples: int | None = None,
        max_consecutive_masked: int | None = None,
        group_by: Iterable[str] = (),
        expected: int | tuple[int, int] | None = None,
        track_identities: bool = False,
        track_blocks: bool = False,
    ) -> None:
        for name, rate in (("max_masked", max_masked), ("warn_masked", warn_masked)):
            if rate is not None and not (isinstance(rate, (int, float)) and 0.0 <= rate <= 1.0):
                raise BudgetError(f"{name} must be a rate between 0 and 1, not {rate!r}")
        if not _whole(window, 1):
            raise BudgetError(f"window must be a whole number of rollouts from 1 to {COUNT_LIMIT:,}, not {window!r}")
        if min_samples is None:
            min_samples = window
        if not _whole(min_samples, 1) or min_samples > window:
            raise BudgetError(f"min_samples must be between 1 and the window ({window}), not {min_samples!r}")
        if max_consecutive_masked is not None and not _whole(max_consecutive_masked, 0):
            raise BudgetError(
                f"max_consecutive_masked must be a whole number from 0 to {COUNT_LIMIT:,}, "
                f"not {max_consecutive_masked!r}"
            )
        if expected is not None and not _expected_ok(expected):
            raise BudgetError(
                f"expected must be a count from 0, or (tasks, repeats) from 1, up to {COUNT_LIMIT:,} rollouts, "
                f"not {expected!r}"
            )
        if isinstance(group_by, str):
            group_by = [group_by]
        self.group_names = tuple(text.strip() for text in group_by)
        self.group_paths = tuple(parse_group_path(text) for text in self.group_names)
        self.max_masked = max_masked
        self.warn_masked = warn_masked
        self.window = window
        self.min_samples = min_samples
        self.max_consecutive = max_consecutive_masked
        self.total = _Scope()
        self.groups: dict[tuple[str, ...], _Scope] = {}
        self.resolved = [False] * len(self.group_paths)  # whether each group path ever held a value
        self.first_warning: BudgetEvent | None = None
        self.first_breach: BudgetEvent | None = None
        self.warnings = 0
        self.breaches = 0
        self.longest_where: tuple[str, int | None] | None = None
        self.expected = expected
        # The per-window counts a plot draws: a dict entry per window, so off unless asked for (``check --plot``),
        # and the budget's memory stays constant in a long-lived process (a trainer loop, the middleware).
        self.track_blocks = track_blocks
        # Identities (SPEC 11.1, 11.3): every rollout's when asked (``expected``, a retry list), else none.
        self.track_identities = track_identities or expected is not None
        self.identities: dict[tuple[Any, ...], tuple[int, str | None, tuple[str, int | None] | None, bool]] = {}
        self.anonymous: list[tuple[int, str | None, tuple[str, int | None] | None]] = []
        self.unidentified = 0
        self.grid_present = 0  # identities seen inside the expected grid: missing is the grid's size less these

    # -- feeding -------------------------------------------------------------------------------------------
    def observe(
        self, document: Any, where: tuple[str, int | None] | None = None, *, valid: bool = True
    ) -> list[BudgetEvent]:
        """One verify response (a dict, as parsed): counted as masked when its effective mask is true, as
        failed when it is not an object or its mask is not a boolean, or when the caller found it breaks the
        contract (``valid=False``: this class does not validate, to stay cheap). Returns what it changed."""
        state, kind = document_state(document)
        if not valid:
            state = FAILED
        group = group_of(document, self.group_paths) if self.group_paths else ()
        identity = identity_of(document) if self.track_identities else None
        return self.record(state, kind, group, where, identity)

    def observe_failure(self, row: Any, where: tuple[str, int | None] | None = None) -> list[BudgetEvent]:
        """One failed attempt with no usable verify response (a failures-file row): counted as failed, under
        its ``failure_kind``, else its ``_ng_failure_class``."""
        kind = kind_of(row) if isinstance(row, Mapping) else None
        group = group_of(row, self.group_paths) if self.group_paths else ()
        identity = identity_of(row) if self.track_identities else None
        return self.record(FAILED, kind, group, where, identity, failure_row=True)

    def record(
        self,
        state: int,
        kind: str | None,
        group: tuple[str, ...] = (),
        where: tuple[str, int | None] | None = None,
        identity: tuple[Any, ...] | None = None,
        failure_row: bool = False,
    ) -> list[BudgetEvent]:
        """The primitive the others use: one rollout of a known state, kind, group and identity
        (``failure_row``: a failures-file row, an earlier attempt where a main row has the identity)."""
        events: list[BudgetEvent] = []
        self._remember(identity, state, kind, where, failure_row)
        label = (kind or NO_KIND) if state else ""
        if state and label not in self.total.kinds and len(self.total.kinds) >= MAX_DISTINCT:
            label = OTHER
        self._step(self.total, None, state, label, where, events)
        if self.group_paths:
            scope = self.groups.get(group)
            if scope is None:
                if len(self.groups) >= MAX_DISTINCT:
                    group = (OTHER,) * len(self.group_paths)
                    scope = self.groups.get(group)
                if scope is None:
                    scope = self.groups[group] = _Scope()
            for i, value in enumerate(group):
                if value != ABSENT_GROUP:
                    self.resolved[i] = True
            self._step(scope, group, state, label, where, events)
        return events

    def _remember(
        self,
        identity: tuple[Any, ...] | None,
        state: int,
        kind: str | None,
        where: tuple[str, int | None] | None,
        failure_row: bool,
    ) -> None:
        if identity is None:
            self.unidentified += 1
            if state != OK and self.track_identities:
                self.anonymous.append((state, kind, where))
            return
        known = self.identities.get(identity)
        if known is not None and failure_row and not known[3]:
            return  # an attempt of a rollout a main row decides
        if known is None and self._in_grid(identity):
            self.grid_present += 1
        self.identities[identity] = (state, kind, where, failure_row)

    def _in_grid(self, identity: tuple[Any, ...]) -> bool:
        if not isinstance(self.expected, tuple):
            return False
        task, rollout = identity
        return bool(0 <= task < self.expected[0] and 0 <= rollout < self.expected[1])

    # -- the state machine ---------------------------------------------------------------------------------
    def _evict(self, scope: _Scope) -> None:
        floor = scope.seen - self.window
        bad = scope.bad
        while bad and bad[0][0] <= floor:
            bad.popleft()

    def _step(
        self,
        scope: _Scope,
        group: tuple[str, ...] | None,
        state: int,
        label: str,
        where: tuple[str, int | None] | None,
        events: list[BudgetEvent],
        ordinal: int | None = None,
        sized: bool = True,
    ) -> None:
        """One rollout of ``scope``; ``ordinal``: its stream ordinal (default: the last of the whole stream);
        ``sized``: counted in its block's size (``record_groups`` counts a group's sizes a run at a time)."""
        scope.seen += 1
        if ordinal is None:
            ordinal = self.total.seen
        scope.counts[state] += 1
        if self.track_blocks:
            block = (ordinal - 1) // self.window  # the stream's block (the whole stream is counted first)
            if scope is not self.total and sized:
                scope.block_sizes[block] += 1
        if state:
            scope.bad.append((scope.seen, label))
            scope.kinds[label] += 1
            if self.track_blocks:
                scope.blocks.setdefault(block, Counter())[label] += 1
            scope.run += 1
            if scope.run > scope.longest:
                scope.longest = scope.run
                scope.longest_at = ordinal
                if scope is self.total:
                    self.longest_where = where
        else:
            scope.run = 0
        self._evict(scope)
        if state or scope.seen == self.min_samples:
            self._judge(scope, group, where, events, ordinal)

    def record_run(
        self,
        count: int,
        offsets: Sequence[int],
        states: bytes,
        kinds: Sequence[str | None],
        where_of: Callable[[int], tuple[str, int | None]],
        *,
        labelled: bool = False,
    ) -> list[BudgetEvent]:
        """``count`` rollouts in a row, none grouped or identified, of which the masked or failed ones are at
        ``offsets`` (in the run, increasing), with their ``states`` (a byte each: ``MASKED`` or ``FAILED``) and
        ``kinds``: what ``check`` feeds per chunk. The same as ``record`` for each rollout (a test holds the two
        together), computed a list at a time: the windows, runs and level changes in one pass (``_window_run``,
        compiled where the package was built with it). ``where_of(offset)`` locates a rollout, asked
        only for an event. Only without ``group_by`` and identity tracking (``record_groups`` groups)."""
        if self.group_paths or self.track_identities:
            raise BudgetError("record_run() counts ungrouped, unidentified rollouts; record each rollout instead")
        labels = self._count_kinds(kinds, labelled)
        base = self.total.seen
        offsets = offsets if isinstance(offsets, list) else list(offsets)
        return self._scope_run(self.total, None, count, offsets, states, labels, offsets, base + 1, where_of, None)

    def record_groups(
        self,
        count: int,
        offsets: list[int],
        states: bytes,
        kinds: Sequence[str | None],
        where_of: Callable[[int], tuple[str, int | None]],
        groups: Sequence[tuple[tuple[str, ...], int, list[int], list[int]]],
        nth: Callable[[tuple[str, ...], int], int],
        *,
        labelled: bool = False,
        block_sizes: Mapping[tuple[str, ...], Counter[int]] | None = None,
    ) -> list[BudgetEvent]:
        """``record_run`` with groups: ``groups`` holds each group's share of the run, in the order each first
        appears in it (group values, its rollouts, the offsets of its masked or failed ones among its rollouts,
        their positions in ``offsets``); ``nth(group, k)`` is the offset in the run of the group's k-th rollout
        (asked only for a usable one that fills a group's first window); with ``track_blocks``, ``block_sizes``
        holds each group's rollouts in each of the stream's blocks (block number from 0: (ordinal - 1) //
        window), which the lists do not tell (a group's blocks are the stream's). A group past ``MAX_DISTINCT`` must
        already be folded into ``OTHER`` by the caller (``fold_groups``). The same as ``record`` for each
        rollout (a test holds the two together): the scopes are passed one at a time and their events put
        back in rollout order."""
        if self.track_identities or not self.group_paths:
            raise BudgetError("record_groups() counts grouped, unidentified rollouts")
        if self.track_blocks and block_sizes is None:
            raise BudgetError("record_groups() keeps blocks (track_blocks) only given each group's block_sizes")
        warned, breached = self.first_warning is not None, self.first_breach is not None
        labels = self._count_kinds(kinds, labelled)
        first = self.total.seen + 1
        found = [
            (event, 0)
            for event in self._scope_run(
                self.total, None, count, offsets, states, labels, offsets, first, where_of, None
            )
        ]
        for group, size, group_offsets, positions in groups:
            scope = self.groups.get(group)
            if scope is None:
                scope = self.groups[group] = _Scope()
            for i, value in enumerate(group):
                if value != ABSENT_GROUP:
                    self.resolved[i] = True
            if block_sizes is not None:
                scope.block_sizes.update(block_sizes[group])
            group_labels = _picked(labels, positions)
            scope.kinds.update(group_labels)
            found += (
                (event, 1)
                for event in self._scope_run(
                    scope,
                    group,
                    size,
                    group_offsets,
                    states if len(positions) == len(states) else bytes(_picked(states, positions, tuple)),
                    group_labels,
                    _picked(offsets, positions),
                    first,
                    where_of,
                    lambda k, group=group: nth(group, k),  # type: ignore[misc]
                )
            )
        found.sort(key=lambda item: (item[0].rollout, item[1]))  # as record() emits them: stable
        events = [event for event, _ in found]
        # The first warning and breach are the first in rollout order, not in the order the scopes ran.
        if not warned:
            self.first_warning = next((event for event in events if event.level != "breach"), None)
        if not breached:
            self.first_breach = next((event for event in events if event.level == "breach"), None)
        return events

    def fold_groups(self, groups: Iterable[tuple[str, ...]]) -> list[tuple[str, ...]]:
        """The scope each group is counted in, for groups in the order they first appear in a run still to be
        recorded: its own, or ``OTHER`` once ``MAX_DISTINCT`` groups are tracked, as ``record`` folds them."""
        known, pending, folded = self.groups, set[tuple[str, ...]](), []
        for group in groups:
            if group not in known and group not in pending:
                if len(known) + len(pending) >= MAX_DISTINCT:
                    group = (OTHER,) * len(self.group_paths)
                if group not in known:
                    pending.add(group)
            folded.append(group)
        return folded

    def _count_kinds(self, kinds: Sequence[str | None], labelled: bool) -> list[str]:
        """The labels of masked or failed rollouts' kinds (``NO_KIND`` for none, ``OTHER`` past ``MAX_DISTINCT``
        kinds), counted in the whole stream's kinds one after another, as ``record`` does."""
        if labelled and isinstance(kinds, list):
            labels: list[str] = kinds  # the caller says: no None in it
        else:
            labels = [kind or NO_KIND for kind in kinds]
        known = self.total.kinds
        if len(known) + len(set(labels).difference(known)) > MAX_DISTINCT:  # the (other) label: one at a time
            capped = []
            for label in labels:
                if label not in known and len(known) >= MAX_DISTINCT:
                    label = OTHER
                known[label] += 1
                capped.append(label)
            return capped
        known.update(labels)
        return labels

    def _scope_run(
        self,
        scope: _Scope,
        group: tuple[str, ...] | None,
        count: int,
        offsets: list[int],
        states: bytes,
        labels: list[str],
        stream: list[int],
        first: int,
        where_of: Callable[[int], tuple[str, int | None]],
        nth: Callable[[int], int] | None,
    ) -> list[BudgetEvent]:
        """One scope's ``count`` rollouts in a row (kinds already counted): its masked or failed ones at
        ``offsets`` among them, which are at ``stream`` offsets in the whole run, whose first rollout has the
        ordinal ``first``; ``nth(offset)``: the run offset of a usable rollout of the scope (None: the same)."""
        base = scope.seen
        if base < self.min_samples <= base + count:
            # The first judged window falls in this run: if on a usable rollout, split the run there.
            cut = self.min_samples - base - 1  # offset of the rollout that fills it
            at = bisect_left(offsets, cut)
            if at == len(offsets) or offsets[at] != cut:
                split = self._scope_run(
                    scope, group, cut, offsets[:at], states[:at], labels[:at], stream[:at], first, where_of, None
                )
                position = cut if nth is None else nth(cut)
                self._step(scope, group, OK, "", where_of(position), split, first + position, sized=False)
                if scope is self.total:
                    self.unidentified += 1
                rest = [offset - cut - 1 for offset in offsets[at:]]
                split += self._scope_run(
                    scope, group, count - cut - 1, rest, states[at:], labels[at:], stream[at:], first, where_of, None
                )
                return split
        if scope is self.total:
            self.unidentified += count
        n = len(offsets)
        scope.counts[OK] += count - n
        if not n:
            scope.seen = base + count
            scope.run = 0
            self._evict(scope)
            return []
        window = self.window
        scope.counts[MASKED] += states.count(MASKED)
        scope.counts[FAILED] += states.count(FAILED)
        if self.track_blocks:  # the stream's blocks: (stream ordinal - 1) // window
            blocks = map(floordiv, map(add, stream, repeat(first - 1, n)), repeat(window, n))
            for (block, label), times in Counter(zip(blocks, labels, strict=True)).items():
                scope.blocks.setdefault(block, Counter())[label] += times
        carried = len(scope.bad)
        all_labels = [label for _, label in scope.bad] + labels
        return self._window_run(scope, group, all_labels, carried, offsets, labels, count, stream, first, where_of)

    def _window_run(
        self,
        scope: _Scope,
        group: tuple[str, ...] | None,
        all_labels: list[str],
        carried: int,
        offsets: Sequence[int],
        labels: list[str],
        count: int,
        stream: list[int],
        stream_first: int,
        where_of: Callable[[int], tuple[str, int | None]],
    ) -> list[BudgetEvent]:
        """``_scope_run``'s windows, runs and level changes in one pass (``_window.window_scan``, compiled where
        the package was built with it): the scope's worst window, longest run, run, levels and masked rollouts
        in the window updated, and the events returned. A rollout at ``offsets[k]`` has the scope ordinal
        ``first + offsets[k]`` and the stream ordinal ``stream_first + stream[k]``."""
        from verify_contract._window import window_scan

        base, window = scope.seen, self.window
        first = base + 1
        levels = [
            (bound, level)
            for bound, level in ((self.max_masked, "breach"), (self.warn_masked, "warning"))
            if bound is not None
        ]
        active = tuple(scope.breached if level == "breach" else scope.warned for _, level in levels)
        scanned = window_scan()(
            [ordinal for ordinal, _ in scope.bad],
            offsets if isinstance(offsets, list) else list(offsets),
            first,
            window,
            bisect_left(offsets, self.min_samples - first),
            tuple(float(bound) for bound, _ in levels),
            active,
            scope.run,
            scope.run > 0 and offsets[0] == 0,
            0 if self.max_consecutive is None else self.max_consecutive + 1,
        )
        if scanned.longest > scope.longest:
            scope.longest, scope.longest_at = scanned.longest, stream_first + stream[scanned.longest_at]
            if scope is self.total:
                self.longest_where = where_of(stream[scanned.longest_at])
        if scanned.worst > scope.worst:
            at = stream_first + stream[scanned.worst_at]
            scope.worst, scope.worst_at = scanned.worst, (at, scanned.worst_inside, scanned.worst_size)
        for (_, level), state in zip(levels, scanned.active, strict=True):
            if level == "breach":
                scope.breached = state
            else:
                scope.warned = state
        scope.run = scanned.last_run if offsets[-1] == count - 1 else 0
        events = []
        for found in scanned.events:
            if found.order:
                rule, level = RULE_BUDGET_MASKED_RATE, levels[found.order - 1][1]
            else:
                rule, level = RULE_BUDGET_CONSECUTIVE_MASKED, "breach"
            kinds = Counter(all_labels[found.start : carried + found.k + 1])
            where, ordinal = where_of(stream[found.k]), stream_first + stream[found.k]
            named = self._named(group)
            rate = found.inside / found.size
            events.append(
                self._event(rule, level, named, rate, found.inside, found.size, found.run, kinds, where, ordinal)
            )
        # The masked rollouts still in the window after the run: (ordinal, label), as record() keeps them.
        floor = base + count - window
        kept = [entry for entry in scope.bad if entry[0] > floor]
        tail = bisect_left(offsets, count - window) if count > window else 0
        kept += zip(map(add, offsets[tail:], repeat(first)), labels[tail:], strict=True)
        scope.bad = deque(kept)
        scope.seen = base + count
        return events

    def _judge(
        self,
        scope: _Scope,
        group: tuple[str, ...] | None,
        where: tuple[str, int | None] | None,
        events: list[BudgetEvent],
        ordinal: int,
    ) -> None:
        size = min(self.window, scope.seen)
        bad = len(scope.bad)
        rate = bad / size
        named = self._named(group)
        if self.max_consecutive is not None and scope.run == self.max_consecutive + 1:
            # A run is judged from the first rollout: prime-rl's max_consecutive_errored_rollouts.
            self._emit(RULE_BUDGET_CONSECUTIVE_MASKED, "breach", scope, named, rate, bad, size, where, events, ordinal)
        if size < self.min_samples:
            return
        if rate > scope.worst:
            scope.worst = rate
            scope.worst_at = (ordinal, bad, size)
        for level, bound, active in (
            ("breach", self.max_masked, scope.breached),
            ("warning", self.warn_masked, scope.warned),
        ):
            above = bound is not None and rate > bound
            if above and not active:  # a scope enters a level once, and leaves it at a window within bounds
                self._emit(RULE_BUDGET_MASKED_RATE, level, scope, named, rate, bad, size, where, events, ordinal)
            if level == "breach":
                scope.breached = above
            else:
                scope.warned = above

    def _named(self, group: tuple[str, ...] | None) -> dict[str, str] | None:
        return None if group is None else dict(zip(self.group_names, group, strict=True))

    def _emit(
        self,
        rule: str,
        level: str,
        scope: _Scope,
        group: dict[str, str] | None,
        rate: float,
        bad: int,
        size: int,
        where: tuple[str, int | None] | None,
        events: list[BudgetEvent],
        ordinal: int,
    ) -> None:
        window = Counter(kind for _, kind in scope.bad)
        events.append(self._event(rule, level, group, rate, bad, size, scope.run, window, where, ordinal))

    def _event(
        self,
        rule: str,
        level: str,
        group: dict[str, str] | None,
        rate: float,
        bad: int,
        size: int,
        run: int,
        window: Counter[str],
        where: tuple[str, int | None] | None,
        ordinal: int,
    ) -> BudgetEvent:
        kinds = sorted(window.items(), key=lambda item: (-item[1], item[0]))
        event = BudgetEvent(rule, level, ordinal, group, rate, bad, size, run, kinds, where)
        if level == "breach":
            self.breaches += 1
            if self.first_breach is None:
                self.first_breach = event
        else:
            self.warnings += 1
            if self.first_warning is None:
                self.first_warning = event
        return event

    # -- reading -------------------------------------------------------------------------------------------
    @property
    def rollouts(self) -> int:
        return self.total.seen

    @property
    def breached(self) -> bool:
        """A bound was passed: a window, a run, or the share lost of those expected (SPEC 11.3)."""
        return self.first_breach is not None or self.missing_breach() is not None

    def present(self) -> int:
        """Distinct rollouts seen: identities, plus each rollout without one."""
        return len(self.identities) + self.unidentified

    def missing_count(self) -> int | None:
        """Expected rollouts with no row (SPEC 11.3), counted as rows arrive (memory and time independent of
        the grid's size: a poll of ``--follow`` asks at every turn); None without ``expected``."""
        if self.expected is None:
            return None
        if isinstance(self.expected, tuple):
            return self.expected[0] * self.expected[1] - self.grid_present
        return max(self.expected - self.present(), 0)

    def missing_identities(self) -> Iterator[tuple[int, int]]:
        """The grid's identities with no row, in grid order, one at a time (none without a grid): a retry list
        of a hundred million is written without holding it."""
        if not isinstance(self.expected, tuple):
            return
        tasks, repeats = self.expected
        seen = self.identities
        for task in range(tasks):
            for rollout in range(repeats):
                if (task, rollout) not in seen:
                    yield (task, rollout)

    def expected_total(self) -> int | None:
        if isinstance(self.expected, tuple):
            return self.expected[0] * self.expected[1]
        return self.expected

    def missing_breach(self) -> float | None:
        """The share of expected rollouts lost (masked, failed or missing) when it passes ``max_masked``."""
        expected, bound = self.expected_total(), self.max_masked
        if not expected or bound is None:  # nothing expected: no share to take (a bound of 0 is a bound)
            return None
        lost = (self.total.counts[MASKED] + self.total.counts[FAILED] + (self.missing_count() or 0)) / expected
        return lost if lost > bound else None

    def retry_rows(self) -> Iterator[dict[str, Any]]:
        """The rollouts to run again (SPEC 11.4): masked, failed, missing; one JSON object each, with its
        identity where it has one, else its file and line. Yielded one at a time (the missing ones are
        generated from the grid, never listed)."""
        for identity, (state, kind, where, failure_row) in self.identities.items():
            if state == OK:
                continue
            row: dict[str, Any] = dict(zip(IDENTITY_KEYS, identity, strict=True))
            row.update({"why": STATE_NAMES[state], _KIND_KEY: kind})
            if where is not None:
                row.update(file=where[0], line=where[1])
            if failure_row:
                row["failures_file"] = True
            yield row
        for state, kind, where in self.anonymous:
            located = {} if where is None else {"file": where[0], "line": where[1]}
            yield {**located, "why": STATE_NAMES[state], _KIND_KEY: kind}
        for pair in self.missing_identities():
            yield {**dict(zip(IDENTITY_KEYS, pair, strict=True)), "why": "missing"}

    def verdict(self) -> str:
        """``breach``, ``warning``, ``ok``, or ``too few rollouts`` (no window was ever judged)."""
        if self.breached:
            return "breach"
        if self.first_warning is not None:
            return "warning"
        return "ok" if self.total.seen >= self.min_samples else "too few rollouts"

    def group_cap(self) -> dict[str, int] | None:
        """The cap on distinct groups (``MAX_DISTINCT``), the groups tracked, and the rollouts of groups past it
        (counted together as ``OTHER``); None without groups."""
        if not self.group_paths:
            return None
        other = self.groups.get((OTHER,) * len(self.group_paths))
        return {"cap": MAX_DISTINCT, "groups": len(self.groups), "other_rollouts": 0 if other is None else other.seen}

    def unresolved_groups(self) -> list[str]:
        """Group paths that held a value in no rollout (a typo, most likely)."""
        if not self.total.seen:
            return []
        return [name for name, seen in zip(self.group_names, self.resolved, strict=True) if not seen]

    def blocks(self) -> dict[tuple[str, ...] | None, list[tuple[int, int, Counter[str]]]]:
        """The stream's tumbling windows, for the plot: block ``n`` holds the stream's rollouts ``n * window + 1``
        to ``(n + 1) * window`` (the last one partial when the stream is not a multiple of the window); each scope
        gets every block, as (its rollouts in it, masked or failed, kinds), so that the scopes line up."""
        numbers = -(-self.total.seen // self.window)
        found: dict[tuple[str, ...] | None, list[tuple[int, int, Counter[str]]]] = {}
        for group, scope in [(None, self.total), *self.groups.items()]:
            rows = []
            for number in range(numbers):
                if scope is self.total:
                    size = min(self.window, scope.seen - number * self.window)
                else:
                    size = scope.block_sizes.get(number, 0)
                kinds = scope.blocks.get(number, Counter())
                rows.append((size, sum(kinds.values()), kinds))
            found[group] = rows
        return found

    def _scope_summary(self, scope: _Scope) -> dict[str, Any]:
        ok, masked, failed = scope.counts
        worst = None
        if scope.worst >= 0:
            at, bad, size = scope.worst_at
            worst = {"rate": round(scope.worst, 6), "masked": bad, "window": size, "rollout": at}
        return {
            "rollouts": scope.seen,
            "ok": ok,
            "masked": masked,
            "failed": failed,
            "masked_rate": round((masked + failed) / scope.seen, 6) if scope.seen else 0.0,
            "worst_window": worst,
            "longest_masked_run": scope.longest,
            "kinds": dict(sorted(scope.kinds.items(), key=lambda item: (-item[1], item[0]))),
        }

    def settings(self) -> dict[str, Any]:
        return {
            "max_masked": self.max_masked,
            "warn_masked": self.warn_masked,
            "window": self.window,
            "min_samples": self.min_samples,
            "max_consecutive_masked": self.max_consecutive,
            "group_by": list(self.group_names),
            "expected": list(self.expected) if isinstance(self.expected, tuple) else self.expected,
        }

    def summary(self) -> dict[str, Any]:
        """Where the stream stands: counts, the worst window, the first warning and breach, per group."""
        data = {"verdict": self.verdict(), "settings": self.settings(), **self._scope_summary(self.total)}
        run_where = self.longest_where
        data["longest_masked_run_at"] = (
            {"rollout": self.total.longest_at, "file": run_where[0], "line": run_where[1]}
            if run_where is not None
            else ({"rollout": self.total.longest_at} if self.total.longest else None)
        )
        data["first_warning"] = None if self.first_warning is None else self.first_warning.as_dict()
        data["first_breach"] = None if self.first_breach is None else self.first_breach.as_dict()
        data["warnings"] = self.warnings
        data["breaches"] = self.breaches
        groups = []
        for group, scope in sorted(self.groups.items(), key=lambda item: (-sum(item[1].counts[1:]), item[0])):
            groups.append({"group": self._named(group), **self._scope_summary(scope)})
        data["groups"] = groups
        data["unresolved_group_paths"] = self.unresolved_groups()
        data["group_cap"] = self.group_cap()
        expected = self.expected_total()
        data["expected"] = None
        if expected is not None:
            data["expected"] = {"expected": expected, "present": self.present(), "missing": self.missing_count()}
            lost = self.missing_breach()
            if lost is not None:
                data["expected"]["breach"] = round(lost, 6)
        return data
