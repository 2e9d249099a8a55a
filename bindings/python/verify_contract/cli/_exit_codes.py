"""Exit codes shared by every subcommand."""

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_BUDGET = 3
"""``check`` with a failure budget (SPEC 11): the masked rate or a masked run went past its bound. It outranks
``EXIT_INVALID`` (the report lists both): a breached budget means stop the run and look."""
EXIT_UNREACHABLE = 4
"""``probe``: the server could not be reached (no request got an HTTP reply), which is not a contract break."""
EXIT_REFUSED = 5
"""``probe``: the server refused requests (4xx, ``probe-request-refused``) and no reply broke the contract:
the cases are wrong for this server (the input's problem), which is neither a contract break nor usage."""
