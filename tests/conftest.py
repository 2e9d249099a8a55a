from __future__ import annotations

import os

from verify_contract.vectors import Vector, load_vectors

# A Ray that a test starts (tests/test_check_ray.py, README's check_dataset block) advertises and binds
# 127.0.0.1 only: Ray's own switch for a one-machine cluster (without it, its servers listen on every
# interface and advertise the machine's address). Child processes (a CLI joining the cluster) inherit it.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

VECTORS: list[Vector] = load_vectors()


def vector_ids(vectors: list[Vector]) -> list[str]:
    return [v.id for v in vectors]
