"""pytest plugin (entry point ``verify_contract``): contract conformance in a downstream repo's own tests.

Fixtures:

- ``assert_conforms``: ``assert_conforms(document_or_model)``; profile and version default to the
  ``verify_contract`` marker's, else gym and the latest version.
- ``assert_producer_conforms``: ``assert_producer_conforms(ModelClass)`` fails the test with the report
  when the model accepts what the contract rejects, rejects what it accepts, or drops keys.
- ``assert_consumer_conforms``: ``assert_consumer_conforms(read, reads="mask")`` likewise for a read
  function (see ``verify_contract.conformance.consumer``).
- ``contract_vectors``: every conformance vector; ``contract_vector``: a test that asks for it runs once
  per vector.

Marker: ``@pytest.mark.verify_contract(profile="core", version="1.2.0")``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from verify_contract.conformance.consumer import InvalidPolicy, Reads, check_consumer
from verify_contract.conformance.producer import ConformanceError, check_producer
from verify_contract.conformance.producer import assert_conforms as _assert_conforms
from verify_contract.vectors import Vector, load_vectors
from verify_contract.versions import DEFAULT_PROFILE, LATEST_VERSION, Profile

MARKER = "verify_contract"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(profile=..., version=...): contract profile and version for the conformance fixtures"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "contract_vector" in metafunc.fixturenames:
        vectors = load_vectors()
        metafunc.parametrize("contract_vector", vectors, ids=[v.id for v in vectors])


def _settings(request: pytest.FixtureRequest) -> tuple[Profile, str]:
    marker = request.node.get_closest_marker(MARKER)
    kwargs = marker.kwargs if marker else {}
    return kwargs.get("profile", DEFAULT_PROFILE), kwargs.get("version", LATEST_VERSION)


@pytest.fixture(scope="session")
def contract_vectors() -> list[Vector]:
    return load_vectors()


@pytest.fixture
def assert_conforms(request: pytest.FixtureRequest) -> Callable[..., None]:
    profile, version = _settings(request)

    def check(document_or_model: Any, **overrides: Any) -> None:
        _assert_conforms(
            document_or_model,
            overrides.pop("profile", profile),
            overrides.pop("version", version),
            **overrides,
        )

    return check


@pytest.fixture
def assert_producer_conforms(request: pytest.FixtureRequest) -> Callable[..., None]:
    profile, version = _settings(request)

    def check(model: Any, **overrides: Any) -> None:
        report = check_producer(model, overrides.get("profile", profile), overrides.get("version", version))
        if not report.ok:
            raise ConformanceError(report.format_text())

    return check


@pytest.fixture
def assert_consumer_conforms() -> Callable[..., None]:
    def check(read: Callable[[Any], Any], reads: Reads = "mask", invalid: InvalidPolicy = "refuse") -> None:
        report = check_consumer(read, reads, invalid=invalid)
        if not report.ok:
            raise ConformanceError(report.format_text())

    return check
