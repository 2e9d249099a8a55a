from __future__ import annotations

from verify_contract.vectors import Vector, load_vectors

VECTORS: list[Vector] = load_vectors()


def vector_ids(vectors: list[Vector]) -> list[str]:
    return [v.id for v in vectors]
