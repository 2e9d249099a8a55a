"""The documentation site's one error (its own module: the package and the builder both name it)."""

from __future__ import annotations


class SiteError(Exception):
    """The site cannot be built (not a checkout of the repository, a missing extra): one line, exit 2."""
