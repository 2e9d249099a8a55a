"""The package extras a command line asks for, checked before any input is read: a run that would end with
"--plot needs matplotlib" says so at once, not after minutes of checking (one line, exit 2).

The modules are imported, not only looked up: an extra installed without a dependency of its own (a Ray
without pyarrow) is refused here too. A run imports them later anyway, so this costs nothing more.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.cli._check_settings import CheckSettings


class Extra:
    """An optional feature: what asks for it, the modules it imports and the package extra that brings them."""

    __slots__ = ("extra", "feature", "modules")

    def __init__(self, feature: str, modules: tuple[str, ...], extra: str) -> None:
        self.feature = feature
        self.modules = modules
        self.extra = extra


METRICS = Extra("--metrics-file", ("prometheus_client",), "metrics")
PLOT = Extra("--plot", ("matplotlib",), "plot")
RAY = Extra("--engine ray", ("ray", "ray.data", "fsspec"), "ray")
_URL_MODULES = {"s3": ("fsspec", "s3fs"), "gcs": ("fsspec", "gcsfs")}
"""The modules of each filesystem extra (``check._remote.EXTRAS`` names the extra of each protocol)."""


def url_extra(url: str) -> Extra:
    """What reading ``url`` needs: fsspec, and the filesystem of its protocol where an extra brings it."""
    from verify_contract.check import REMOTE_EXTRAS as EXTRAS

    protocol = url.partition("://")[0].lower()
    extra = EXTRAS.get(protocol)
    if extra is None:  # memory://, file://, ...: fsspec's own filesystems
        return Extra(f"reading {protocol}:// URLs", ("fsspec",), "s3")
    return Extra(f"reading {protocol}:// URLs", _URL_MODULES[extra], extra)


def check_extras(settings: CheckSettings) -> list[Extra]:
    """The extras ``check``'s flags and inputs ask for, in the order of the flags."""
    import os

    from verify_contract.check import is_url

    wanted = []
    if settings.outputs.metrics_file is not None:
        wanted.append(METRICS)
    if settings.outputs.plot is not None:
        wanted.append(PLOT)
    if settings.remote.engine == "ray":
        wanted.append(RAY)
    for path in settings.paths:
        if is_url(path) and not os.path.lexists(path):  # as check reads it: an existing file is a file
            wanted.append(url_extra(path))
    return wanted


def _missing_module(extra: Extra) -> str | None:
    for module in extra.modules:
        try:
            importlib.import_module(module)
        except ImportError:
            return module
    return None


def missing(extras: list[Extra]) -> str | None:
    """One line naming what is missing and the extras to install, or None when every one imports."""
    needs: list[str] = []
    names: list[str] = []
    for extra in extras:
        module = _missing_module(extra)
        if module is None:
            continue
        need = f"{extra.feature} needs {module}"
        if need not in needs:
            needs.append(need)
        if extra.extra not in names:
            names.append(extra.extra)
    if not needs:
        return None
    return f"{'; '.join(needs)}: pip install 'verify-contract[{','.join(names)}]'"
