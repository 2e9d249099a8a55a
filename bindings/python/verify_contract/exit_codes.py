"""Exit codes shared by every subcommand."""

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
"""``probe``: the server could not be reached (no request got an HTTP reply), which is not a contract break."""
