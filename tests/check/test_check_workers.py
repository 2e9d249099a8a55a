"""``check --jobs`` by fork (``check_workers``): results in task order from several processes, errors and dead
workers reported, no child left behind. (``test_check_chunks`` and ``test_check_cli`` hold ``--jobs 2`` to
the one-process report.)"""

from __future__ import annotations

import os
import signal
import time

import pytest

from verify_contract.check import _workers as check_workers

pytestmark = pytest.mark.skipif(not check_workers.can_fork(), reason="--jobs shares by fork on Linux only")


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_results_come_in_task_order_from_every_process() -> None:
    def run(task: tuple[str, int]) -> tuple[int, int]:
        time.sleep(0.01)  # long enough that every process is started before the tickets run out
        return task[1], os.getpid()

    tasks = [("range", n) for n in range(30)] + [("doc", 30)]
    results = list(check_workers.results_in_order(tasks, 3, run, lambda t: t[0] == "range"))
    assert [n for n, _ in results] == list(range(31))
    pids = [pid for _, pid in results]
    assert len(set(pids)) == 3  # the parent and two children each took tasks
    assert pids[30] == os.getpid()  # a task that is not shareable runs in the parent
    assert _no_children_left()


def test_a_slow_process_takes_fewer_tasks() -> None:
    # Tasks are taken, not dealt: a child slowed down (here: 10 times) leaves the rest to the others, where
    # dealing every other task would have made the run wait for its half.
    parent = os.getpid()

    def run(task: int) -> int:
        time.sleep(0.002 if os.getpid() == parent else 0.02)
        return os.getpid()

    pids = list(check_workers.results_in_order(list(range(100)), 2, run, lambda t: True))
    assert pids.count(parent) > 75 and len(set(pids)) == 2


def test_more_tasks_than_the_ticket_pipe_holds() -> None:
    # A ticket stands for a group of consecutive tasks once they outnumber the pipe's tickets.
    assert check_workers._groups(list(range(10)), 4) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert check_workers._groups([2, 5, 7], 16) == [[2], [5], [7]]
    count = 70_000  # more than a default pipe's 16,384 tickets
    results = list(check_workers.results_in_order(list(range(count)), 2, lambda t: t, lambda t: True))
    assert results == list(range(count))
    assert _no_children_left()


def test_fewer_tasks_than_jobs_fork_no_idle_process() -> None:
    results = list(check_workers.results_in_order([1], 8, lambda t: os.getpid(), lambda t: True))
    assert results == [os.getpid()]


def test_an_error_in_a_worker_is_raised_in_the_parent() -> None:
    def run(task: int) -> int:
        if task == 5:
            raise ValueError(f"task {task} is bad")
        return task

    with pytest.raises(ValueError, match="task 5 is bad"):
        list(check_workers.results_in_order(list(range(10)), 2, run, lambda t: True))
    assert _no_children_left()


def test_a_worker_killed_midway_is_reported() -> None:
    parent = os.getpid()

    def run(task: int) -> int:
        time.sleep(0.01)
        if os.getpid() != parent:  # the first task a child takes
            os.kill(os.getpid(), signal.SIGKILL)
        return task

    with pytest.raises(check_workers.WorkerDied, match="killed by signal 9"):
        list(check_workers.results_in_order(list(range(6)), 2, run, lambda t: True))
    assert _no_children_left()


def test_a_parent_that_stops_early_stops_its_workers() -> None:
    results = check_workers.results_in_order(list(range(1000)), 2, lambda t: bytes(10_000), lambda t: True)
    assert next(results) == bytes(10_000)
    results.close()  # the consumer gives up (an error, ^C): the children blocked on full pipes are ended
    assert _no_children_left()
