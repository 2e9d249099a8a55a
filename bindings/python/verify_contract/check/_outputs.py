"""The files a run writes beside its report (the retry list, the metrics file, the plot): checked before the
run starts, so that a name that cannot be written is one line and exit 2 before any work (not a traceback, or
a lost summary, at the end or at a ``--follow`` window), and each written whole through a temporary file that
is removed again when the write fails, with the error naming the user's path, never the temporary one."""

from __future__ import annotations

import os
from contextlib import contextmanager, suppress

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Iterator


def output_problem(path: str) -> str | None:
    """Why ``path`` cannot be written as an output (one line, naming it), or None. The directory is tried for
    real (a file created and removed there): permission bits do not tell about a read-only mount or root."""
    if not path.strip():
        return "needs a file name"
    if os.path.isdir(path):
        return f"{path}: is a directory"
    parent = os.path.dirname(path) or "."
    if not os.path.exists(parent):
        return f"{path}: no such directory: {parent}"
    if not os.path.isdir(parent):
        return f"{path}: not a directory: {parent}"
    probe = os.path.join(parent, f".{os.path.basename(path)}.probe-{os.getpid()}")
    try:
        descriptor = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as error:
        return f"{path}: cannot write in {parent}: {error.strerror or error}"
    os.close(descriptor)
    os.unlink(probe)
    return None


@contextmanager
def written_whole(path: str, suffix: str = "") -> Iterator[str]:
    """A temporary name beside ``path`` to write to; on success it replaces ``path`` (a reader never sees half a
    file). On failure the temporary file is removed and an ``OSError`` names ``path``."""
    temporary = f"{path}.tmp-{os.getpid()}{suffix}"
    try:
        yield temporary
        os.replace(temporary, path)
    except OSError as error:
        with suppress(OSError):
            os.unlink(temporary)
        raise OSError(error.errno, error.strerror or str(error), path) from None
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


__all__ = ["output_problem", "written_whole"]
