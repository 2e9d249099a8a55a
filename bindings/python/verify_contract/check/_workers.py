"""``--jobs N`` by forking: the parent and N - 1 children share out a list of tasks known in advance (the byte
ranges of plain files), and the parent yields the results in task order.

Why not ``multiprocessing.Pool``: on a run of a few hundred milliseconds its fixed costs decide the speed-up.
Measured on the project's 2-core machine: importing the pool's modules and starting a pool of two took 25-35
ms on a quiet machine (40-80 ms loaded), against 3 ms for a fork and a wait; and a pool keeps the parent
idle while it waits, where here it checks its own share. The pool stays for what this cannot do (stdin and
gzip input, which the parent must read and hand out; systems without ``fork``).

Tasks are taken, not dealt: before forking, the parent writes one 4-byte ticket per shareable task into a
pipe and closes its end, and every process, the parent included, reads the next ticket when it is free. A
read of 4 bytes from a pipe is atomic, so no task is taken twice, and a process slowed down (a busy core, a
noisy neighbour, a range of harder lines) simply takes fewer: dealing every N-th task left the whole run
waiting for the slowest process's last range. When there are more tasks than the pipe holds tickets, a
ticket stands for that many consecutive tasks.

Each child sends every result as a length-prefixed pickle of (task number, result) on its own pipe; the
parent reads them as they come, between its own tasks, and keeps those that arrive before their turn. A
child that fails sends its exception instead, and the parent raises it; one that dies without a word
(killed) is reported with its exit status. Children leave with ``os._exit``: no buffered output of the
parent is written twice, no ``atexit`` handler runs twice.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any


def can_fork() -> bool:
    """Whether tasks can be shared out by ``fork`` here (Linux: elsewhere ``fork`` without ``exec`` is
    unsafe with some system libraries, and Python's own default there is ``spawn``)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


class WorkerDied(RuntimeError):
    """A worker process ended without sending its results (killed, or out of memory)."""


class _Failure:
    """An exception raised in a child, sent to the parent (pickled as is when it can be, else as text)."""

    def __init__(self, error: BaseException) -> None:
        try:
            pickle.dumps(error)
            self.error: BaseException = error
        except Exception:  # an unpicklable exception: its type and text
            self.error = RuntimeError(f"{type(error).__name__}: {error}")


_TICKET = 4  # bytes: a task group's number, little-endian
_LENGTH = 8  # bytes: a result message's length, little-endian


def _take(tickets: int) -> int | None:
    """The next ticket from the pipe (shared by every process), or None once they are all taken."""
    data = os.read(tickets, _TICKET)
    return int.from_bytes(data, "little") if len(data) == _TICKET else None


def _send(out: int, message: Any) -> None:
    """Write one whole message. ^C is held off while it is written: a KeyboardInterrupt between two writes
    would leave half a message in the pipe, and the _Failure sent after it would be read as its rest."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    data = len(data).to_bytes(_LENGTH, "little") + data
    view = memoryview(data)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        while view:
            view = view[os.write(out, view) :]
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _child(
    groups: Sequence[Sequence[int]], tasks: Sequence[Any], run: Callable[[Any], Any], tickets: int, out: int
) -> None:
    try:
        while (ticket := _take(tickets)) is not None:
            for number in groups[ticket]:
                _send(out, (number, run(tasks[number])))
    except BaseException as error:  # everything, KeyboardInterrupt too, goes to the parent
        _send(out, _Failure(error))


class _Child:
    """The parent's end of one child: its pid, its result pipe, and the bytes read of a message not yet whole."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self.pending = bytearray()
        self.done = False  # its pipe reached end of file

    def messages(self) -> Iterator[Any]:
        """The whole messages read so far, consumed."""
        while len(self.pending) >= _LENGTH:
            size = int.from_bytes(self.pending[:_LENGTH], "little")
            if len(self.pending) < _LENGTH + size:
                return
            message = pickle.loads(self.pending[_LENGTH : _LENGTH + size])
            del self.pending[: _LENGTH + size]
            yield message


def _groups(numbers: list[int], capacity: int) -> list[list[int]]:
    """The shareable task numbers in consecutive groups, at most ``capacity`` of them (one ticket each)."""
    size = max(1, -(-len(numbers) // max(capacity, 1)))
    return [numbers[at : at + size] for at in range(0, len(numbers), size)]


def results_in_order(
    tasks: Sequence[Any], jobs: int, run: Callable[[Any], Any], shareable: Callable[[Any], bool]
) -> Iterator[Any]:
    """``run(task)`` of every task, in task order, computed by ``jobs`` processes (this one included).

    A task that is not ``shareable`` is run by the parent when its turn comes; the shareable ones are taken
    by whichever process is free.
    """
    import fcntl
    import select

    read_tickets, write_tickets = os.pipe()
    capacity = fcntl.fcntl(write_tickets, fcntl.F_GETPIPE_SZ) // _TICKET
    groups = _groups([n for n, task in enumerate(tasks) if shareable(task)], capacity)
    os.write(write_tickets, b"".join(n.to_bytes(_TICKET, "little") for n in range(len(groups))))
    os.close(write_tickets)  # every ticket is in the pipe: a read past the last one returns end of file
    jobs = min(jobs, max(len(groups), 1))
    children: list[_Child] = []
    results: dict[int, Any] = {}  # finished before their turn

    def absorb(child: _Child) -> None:
        """Read what the child has sent (its pipe is readable); raise what it reports or its death."""
        data = os.read(child.fd, 1 << 20)
        if not data:
            child.done = True
            os.close(child.fd)
            pid, child.pid = child.pid, 0
            _, status = os.waitpid(pid, 0)
            if status or child.pending:
                raise WorkerDied(f"worker process {pid} ended without all its results ({_status(status)})")
            return
        child.pending += data
        for message in child.messages():
            if isinstance(message, _Failure):
                raise message.error
            number, result = message
            results[number] = result

    def collect(wait: bool) -> None:
        """Absorb what the children have sent; with ``wait``, block until one has sent something."""
        live = [child for child in children if not child.done]
        if not live:
            return
        by_fd = {child.fd: child for child in live}
        ready, _, _ = select.select(list(by_fd), [], [], None if wait else 0)
        for fd in ready:
            absorb(by_fd[fd])

    try:
        for _ in range(1, jobs):
            read_fd, write_fd = os.pipe()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # the child: tasks until the tickets run out, then out without the parent's exit handlers
                code = 0
                try:
                    os.close(read_fd)
                    for child in children:
                        os.close(child.fd)
                    _child(groups, tasks, run, read_tickets, write_fd)
                except BaseException:  # a child never returns into the parent's code
                    code = 1
                finally:
                    os._exit(code)
            os.close(write_fd)
            children.append(_Child(pid, read_fd))
        for number, task in enumerate(tasks):
            if not shareable(task):
                yield run(task)
                continue
            while number not in results:
                collect(wait=False)
                if number in results:
                    continue
                ticket = _take(read_tickets)
                if ticket is None:  # every task is taken: this one is with a child
                    if all(child.done for child in children):
                        raise WorkerDied("worker processes ended without all their results")
                    collect(wait=True)
                    continue
                for taken in groups[ticket]:
                    results[taken] = run(tasks[taken])
            yield results.pop(number)
    finally:
        os.close(read_tickets)
        for child in children:
            if not child.done:
                os.close(child.fd)
            if child.pid:
                _stop(child.pid)


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _stop(pid: int) -> None:
    """Wait for a child; one still running (the parent stopped early: an error, ^C) is terminated first."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if not done:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass
