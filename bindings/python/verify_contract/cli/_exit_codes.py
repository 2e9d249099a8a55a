"""Exit codes, every command's, in one table (the README's "Exit codes" paragraph and each command's
``--help`` say the same)."""

import signal

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_BUDGET = 3
"""``check`` with a failure budget (SPEC 11): the masked rate or a masked run went past its bound. It outranks
``EXIT_INVALID`` (the report lists both) and a stop: a breached budget means stop the run and look."""
EXIT_UNREACHABLE = 4
"""``probe``: the server could not be reached (no request got an HTTP reply), which is not a contract break."""
EXIT_REFUSED = 5
"""``probe``: the server refused requests (4xx, ``probe-request-refused``) and no reply broke the contract:
the cases are wrong for this server (the input's problem), which is neither a contract break nor usage."""

SIGNAL_EXIT_BASE = 128
"""A command ended by a signal exits 128 + its number, as a shell reports it."""
EXIT_INTERRUPTED = SIGNAL_EXIT_BASE + signal.SIGINT
"""130: stopped with ^C."""
EXIT_TERMINATED = SIGNAL_EXIT_BASE + signal.SIGTERM
"""143: stopped by SIGTERM (systemd, Kubernetes, ``timeout``), as ^C stops it (``_stops``)."""
EXIT_HANGUP = SIGNAL_EXIT_BASE + signal.SIGHUP
"""129: stopped by SIGHUP (a closed terminal), as ^C stops it."""
EXIT_BROKEN_PIPE = SIGNAL_EXIT_BASE + signal.SIGPIPE
"""141: the reader of stdout went away (``| head``), what a shell reports for grep or cat then."""


def exit_for_signal(signum: int) -> int:
    """The exit code of a command stopped by signal ``signum``: ``EXIT_INTERRUPTED`` for SIGINT, ..."""
    return SIGNAL_EXIT_BASE + signum
