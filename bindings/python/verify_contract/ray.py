"""Checking on Ray (the ``[ray]`` extra: ``ray[data]``): ``check_paths_ray`` (``check --engine ray``) and
``check_dataset`` for a Ray Data pipeline's own dataset.

The engine is part of ``check`` (``verify_contract.check``, its ``_ray`` step): the same tasks, runner, merge
and opening of the inputs as the local engine. This module keeps the names users import::

    from verify_contract.ray import check_dataset
"""

from __future__ import annotations

from verify_contract.check import (
    FINDINGS_COLUMN,
    MASK_COLUMN,
    VERDICT_COLUMN,
    EngineError,
    check_dataset,
    check_paths_ray,
    check_sources_ray,
)
from verify_contract.check import RAY_MAX_RETRIES as MAX_RETRIES
from verify_contract.check import connect_ray as connect

__all__ = [
    "FINDINGS_COLUMN",
    "MASK_COLUMN",
    "MAX_RETRIES",
    "VERDICT_COLUMN",
    "EngineError",
    "check_dataset",
    "check_paths_ray",
    "check_sources_ray",
    "connect",
]
