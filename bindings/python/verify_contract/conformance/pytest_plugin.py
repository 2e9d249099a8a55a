"""pytest plugin (entry point ``verify_contract``): contract conformance in a downstream repo's own tests.

Fixtures (profile and version come from the ``verify_contract`` marker, else core and the latest version):

- ``assert_conforms``: ``assert_conforms(document_or_model)`` fails on every MUST of SPEC 4.1 a document
  shows broken (a mask only in the legacy location included); ``warnings_as_errors=True`` adds the SHOULDs.
- ``assert_producer_conforms``: ``assert_producer_conforms(ModelClass)`` fails the test with the report
  when the model breaks a producer obligation (accepts what the contract rejects, drops keys...).
- ``assert_consumer_conforms``: ``assert_consumer_conforms(read, reads="mask", takes="document")``
  likewise for a read function and the consumer obligations of SPEC 4.2
  (see ``verify_contract.conformance.consumer``).
- ``probe_verify_app``: ``probe_verify_app(app, [request, ...])`` posts each verify request to an ASGI app in
  process (driven by the probe itself: no server, no HTTP client) and judges every reply by
  ``verify-contract probe``'s checks; it fails the test with the probe's report (and no plugin code in the
  traceback) when a reply breaks the contract or the app refuses a request (a 4xx: the test's input is
  wrong), else returns the ``ProbeReport``. The profile is the marker's when it names one, else gym (a
  server's wire format); ``checks=``, ``max_latency=``, ``path=`` and ``warnings_as_errors=`` as the
  command's options.
- ``contract_vectors``: the vectors of the marker's version and profile that hold a document;
  ``contract_vector``: a test that asks for it runs once per such vector.

A ``Vector`` has ``id``, ``description``, ``instance`` (the document, a dict for almost every vector),
``valid`` (the verdict at the vector's profile and version), ``findings`` (the rule ids it must report),
``effective_mask`` (``None`` when the document has none: a consumer must refuse it), ``round_trip`` (a
binding must re-emit it unchanged), ``tags``, ``profile`` and ``contract_version``. Vectors holding raw
JSON text (duplicate keys, NaN tokens: ``instance`` is ``None``) test parsers and are left out, and so are
other profiles' and versions' vectors, whose verdict is not the one the marker asks about.

Marker: ``@pytest.mark.verify_contract(profile="gym", version="1.2.0")``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from verify_contract.conformance.consumer import InvalidPolicy, Reads, Takes, check_consumer
from verify_contract.conformance.producer import ConformanceError, check_producer
from verify_contract.conformance.producer import assert_conforms as _assert_conforms
from verify_contract.contract import DEFAULT_PROFILE, LATEST_VERSION, Profile, check_profile, check_version
from verify_contract.vectors import Vector, load_vectors

MARKER = "verify_contract"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(profile=..., version=...): contract profile and version for the conformance fixtures"
    )


def _marker_settings(marker: pytest.Mark | None) -> tuple[Profile, str]:
    kwargs = marker.kwargs if marker else {}
    profile = check_profile(kwargs.get("profile", DEFAULT_PROFILE))
    return profile, check_version(kwargs.get("version", LATEST_VERSION))


def runnable_vectors(profile: Profile, version: str) -> list[Vector]:
    """The vectors a test at ``profile`` and ``version`` can run: that profile and version, with a document."""
    return [v for v in load_vectors() if v.has_instance and v.profile == profile and v.contract_version == version]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "contract_vector" in metafunc.fixturenames:
        vectors = runnable_vectors(*_marker_settings(metafunc.definition.get_closest_marker(MARKER)))
        metafunc.parametrize("contract_vector", vectors, ids=[v.id for v in vectors])


def _settings(request: pytest.FixtureRequest) -> tuple[Profile, str]:
    return _marker_settings(request.node.get_closest_marker(MARKER))


@pytest.fixture
def contract_vectors(request: pytest.FixtureRequest) -> list[Vector]:
    return runnable_vectors(*_settings(request))


@pytest.fixture
def assert_conforms(request: pytest.FixtureRequest) -> Callable[..., None]:
    profile, version = _settings(request)

    def check(document_or_model: Any, **overrides: Any) -> None:
        __tracebackhide__ = True  # a failure shows the test's line and the report, not the plugin's code
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
        __tracebackhide__ = True  # a failure shows the test's line and the report, not the plugin's code
        report = check_producer(model, overrides.get("profile", profile), overrides.get("version", version))
        if not report.ok:
            raise ConformanceError(report.format_text())

    return check


@pytest.fixture
def assert_consumer_conforms(request: pytest.FixtureRequest) -> Callable[..., None]:
    profile, version = _settings(request)

    def check(
        read: Callable[[Any], Any],
        reads: Reads = "mask",
        invalid: InvalidPolicy = "refuse",
        takes: Takes = "document",
        **overrides: Any,
    ) -> None:
        __tracebackhide__ = True  # a failure shows the test's line and the report, not the plugin's code
        report = check_consumer(
            read,
            reads,
            invalid=invalid,
            takes=takes,
            profile=overrides.get("profile", profile),
            version=overrides.get("version", version),
        )
        if not report.ok:
            raise ConformanceError(report.format_text())

    return check


@pytest.fixture
def probe_verify_app(request: pytest.FixtureRequest) -> Callable[..., Any]:
    marker = request.node.get_closest_marker(MARKER)
    named_profile = marker.kwargs.get("profile") if marker else None
    _, version = _settings(request)

    def run(
        app: Any,
        requests: list[dict[str, Any]],
        *,
        checks: tuple[str, ...] | None = None,
        max_latency: float | None = None,
        path: str = "/verify",
        warnings_as_errors: bool = False,
    ) -> Any:
        __tracebackhide__ = True  # a failure shows the test's line and the report, not the plugin's code
        # the probe is imported here, not with the plugin, which every downstream test session loads.
        from verify_contract.probe import DEFAULT_CHECKS, Case, Settings, format_report, probe_app

        chosen = checks or ((*DEFAULT_CHECKS, "probe-latency") if max_latency is not None else DEFAULT_CHECKS)
        settings = Settings(
            version=version,
            profile=check_profile(named_profile) if named_profile else None,
            checks=tuple(chosen),
            max_latency=max_latency,
            concurrency=1,
            warnings_as_errors=warnings_as_errors,
        )
        cases = [Case(f"request {index}", dict(body)) for index, body in enumerate(requests)]
        report = probe_app(app, cases, settings, path)
        if not report.ok or report.refused_cases:  # a refused request: the test's own input is wrong
            raise ConformanceError(format_report(report, "text"))
        return report

    return run
