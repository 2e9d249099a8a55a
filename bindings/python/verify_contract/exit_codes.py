"""Exit codes shared by every subcommand."""

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
