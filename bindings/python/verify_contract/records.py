"""Small value classes without ``dataclasses``: ``Record`` (value equality and a readable repr over its
slots) and ``FrozenRecord`` (immutable, hashable, picklable).

Written out rather than made with ``dataclasses`` because ``check``'s start-up path uses them (findings, the
contract model, inputs, the report): importing ``dataclasses`` pulls in ``inspect``, ``ast`` and ``dis``, and
each class its decorator builds costs an ``exec`` at import, about 8 ms of a one-line ``check`` in all
(benchmarks/README.md, start-up).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms of start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any


class Record:
    """A class whose instances compare by the values of their slots, with a readable repr."""

    __slots__: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        # Positional class patterns (``case Finding(rule, severity):``) match the slots, as on a dataclass.
        super().__init_subclass__()
        setattr(cls, "__match_args__", cls.__slots__)  # noqa: B010 (mypy refuses the plain assignment)
        # Each slot's own setter, looked up once: ``_freeze`` calls them past FrozenRecord's ``__setattr__``
        # (a third faster than ``object.__setattr__`` by name; check builds a finding per bad line).
        setattr(cls, "_slot_setters", tuple(getattr(cls, name).__set__ for name in cls.__slots__))  # noqa: B010

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({values})"


class FrozenRecord(Record):
    """A ``Record`` that refuses assignment after ``__init__`` (which sets its slots with ``_freeze``), and so
    is hashable; it pickles by calling the class with its values (``--jobs`` sends it to workers)."""

    __slots__: tuple[str, ...] = ()

    _slot_setters: tuple[Any, ...] = ()

    def _freeze(self, *values: Any) -> None:
        for set_slot, value in zip(self._slot_setters, values, strict=True):
            set_slot(self, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot assign {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name}")

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple[type[FrozenRecord], tuple[Any, ...]]:
        return type(self), self._values()
