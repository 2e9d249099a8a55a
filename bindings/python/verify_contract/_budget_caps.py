"""The failure budget's default window and its caps (SPEC 11), stated once: the library (``budget``), ``check``
and its ``--help`` read them here, a module that imports nothing so the command line can name them at start-up.
"""

DEFAULT_WINDOW = 64
"""Rollouts in a window when none is given."""
COUNT_LIMIT = 10**15
"""The largest window, run bound or expected count accepted: more rollouts than any run holds, inside the
compiled window pass's 64-bit arithmetic and a float's exact integers (a rate divides by it)."""
MAX_DISTINCT = 1000
"""The one cap on distinct values a run keeps apart (SPEC 11.2): groups, failure kinds (and so the label values
of the metrics, SPEC 11.6) and failures-file classes; the rest are counted together as ``(other)``: a stream
whose group key is a per-row id must not grow memory nor a Prometheus server's series (counts still add up,
and the summary's ``group_cap`` says how many rollouts went to ``(other)``)."""
EVENTS_KEPT = 1000
"""Budget events a ``check`` run keeps (the first ones, for ``--format json``); later ones are counted by rule
and level, not kept: a flapping stream must not grow memory."""
