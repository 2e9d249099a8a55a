"""The compiled pre-check's boundary (``check/_fastscan.c``): its results are named types, stated once in the C
and once in ``_fastscan.pyi`` (and, for the window pass, twinned in Python), and a call keeps its own state, so
a call made while another runs (from a group label function, or another thread) answers from its own table."""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from verify_contract import _window as window_pass
from verify_contract._window_results import WindowEvent, WindowScan
from verify_contract.check import _fastpath as fastpath
from verify_contract.contract import resolve_contract

TYPE_CHECKING = False
if TYPE_CHECKING:
    from verify_contract.contract._resolved import Contract

native = fastpath._native
pytestmark = pytest.mark.skipif(native is None, reason="the compiled pre-check is not built")

STUB = Path(fastpath.__file__).with_name("_fastscan.pyi")
CORE = resolve_contract("1.2.0", "core")
NO_FIELDS = bytes([0, 0])
"""A field table without a field: every strict-JSON object line is clean by it."""
GROUP = (("env",),)


def _stub_fields() -> dict[str, list[str]]:
    """Each class of the stub: its properties, in order."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {
        node.name: [
            item.name
            for item in node.body
            if isinstance(item, ast.FunctionDef) and any(ast.unparse(d) == "property" for d in item.decorator_list)
        ]
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


def test_each_result_type_has_the_stubs_fields_in_order() -> None:
    stub = _stub_fields()
    compiled = {
        name: list(value.__match_args__)
        for name, value in vars(native).items()
        if isinstance(value, type) and issubclass(value, tuple)
    }
    assert set(stub) == set(compiled) >= {"Scan", "BudgetScan", "WindowScan", "WindowEvent"}
    for name, fields in compiled.items():
        assert fields == stub[name], name
        assert native.__dict__[name].n_fields == len(fields), f"{name} has unnamed fields"


def test_the_python_window_results_are_the_compiled_ones_twins() -> None:
    assert list(WindowScan._fields) == list(native.WindowScan.__match_args__)
    assert list(WindowEvent._fields) == list(native.WindowEvent.__match_args__)
    arguments = ([3], [0, 1, 2, 5], 4, 3, 0, (0.5,), (False,), 1, True, 3)
    compiled, python = native.window_scan(*arguments), window_pass.python_window_scan(*arguments)
    assert isinstance(compiled, native.WindowScan) and isinstance(python, WindowScan)
    assert compiled.events and all(isinstance(event, native.WindowEvent) for event in compiled.events)
    for field in WindowScan._fields:
        assert getattr(compiled, field) == getattr(python, field), field
    for ours, theirs in zip(compiled.events, python.events, strict=True):
        assert all(getattr(ours, field) == getattr(theirs, field) for field in WindowEvent._fields)


def test_results_are_read_by_name() -> None:
    chunk = b'{"env": "a"}\n\n{"reward": 1.0, "mask_sample": false}\n{"reward": NaN}\n'
    table, kinds = fastpath.field_table(CORE), fastpath.clean_kinds(CORE.model)
    assert table is not None
    plain = native.scan(chunk, table, kinds)
    assert isinstance(plain, native.Scan)
    assert (plain.statuses, plain.others) == tuple(plain)
    assert plain.statuses[1:3] == bytes([fastpath.STATUS_BLANK, 1])
    assert [other[0] for other in plain.others] == [0, 3]
    grouped = fastpath.group_field_table(CORE, GROUP)
    assert grouped is not None
    budget = native.scan_budget(chunk, grouped[0], kinds, b'"x"', "none", grouped[1], lambda raw: raw.decode())
    assert isinstance(budget, native.BudgetScan)
    assert (budget.statuses, budget.others) == tuple(plain)
    assert isinstance(budget.line_kinds, native.LineKinds) and budget.line_kinds.kinds == ["none", "none"]
    assert isinstance(budget.groups, native.ChunkGroups)
    assert budget.groups.combinations == [('"a"',), ("null",)] and budget.groups.firsts == [0, 2]
    assert native.scan_budget(chunk, table, kinds, b'"x"', "none").groups is None
    gathered = native.gather(budget.statuses, bytes([0, 1] + [0] * 251 + [1, 1, 0]), budget.line_kinds)
    assert isinstance(gathered, native.Gathered)
    assert (gathered.indices, gathered.kinds, gathered.unknown) == ([0, 2, 3], ["none", None, "none"], 1)
    with pytest.raises(TypeError, match="go together"):
        native.scan_budget(chunk, table, kinds, b'"x"', "none", grouped[1])


def _outer_chunk(count: int) -> bytes:
    """Lines the core table sends to the reference (required members missing) and the empty table calls clean,
    each with a new group value: the label function is called at every line."""
    return b"".join(b'{"env": "e%d"}\n' % index for index in range(count))


def _grouped_statuses(chunk: bytes, label: Callable[[bytes], str], contract: Contract = CORE) -> bytes:
    scanned = fastpath.scan_kinds(chunk, contract, True, b'"x"', "none", (GROUP, label))
    return scanned[0]


def test_a_scan_inside_another_keeps_each_calls_table() -> None:
    """A group label function that scans with another table, as a caller's code may: the outer scan goes on
    with its own table (the old module kept one table in a static, which the inner call replaced)."""
    outer, inner = _outer_chunk(40), b'{"env": 1}\n' * 3
    kinds = fastpath.clean_kinds(CORE.model)
    alone = _grouped_statuses(outer, lambda raw: raw.decode())
    inner_alone, _ = fastpath.scan_with(inner, NO_FIELDS, kinds)
    assert set(alone) == {fastpath.STATUS_CONTRACT} and set(inner_alone) == {1}
    inner_answers: list[bytes] = []

    def label(raw: bytes) -> str:
        statuses, _ = fastpath.scan_with(inner, NO_FIELDS, kinds)
        inner_answers.append(statuses)
        return raw.decode()

    assert _grouped_statuses(outer, label) == alone
    assert inner_answers == [inner_alone] * 40  # a label per value


def test_threads_scanning_with_different_tables_get_their_own_answers() -> None:
    """Two threads, one per version's table, whose label functions give the other thread the interpreter at
    every new value: each gets the answer it gets alone (a failure kind outside the registry is clean at 1.0.0,
    which has no registry, and goes to the reference at 1.2.0)."""
    chunk = b"".join(
        b'{"reward": 1.0, "mask_sample": true, "failure_kind": "zz", "env": "e%d"}\n' % i for i in range(30)
    )
    contracts = {"1.0.0": resolve_contract("1.0.0", "core"), "1.2.0": CORE}
    expected = {
        name: _grouped_statuses(chunk, lambda raw: raw.decode(), contract) for name, contract in contracts.items()
    }
    assert expected["1.0.0"] != expected["1.2.0"]
    wrong: list[str] = []

    def yielding(raw: bytes) -> str:
        time.sleep(0)  # let the other thread run inside this scan
        return raw.decode()

    def scans(name: str) -> None:
        for _ in range(20):
            if _grouped_statuses(chunk, yielding, contracts[name]) != expected[name]:
                wrong.append(name)

    threads = [threading.Thread(target=scans, args=(name,)) for name in contracts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert wrong == []
