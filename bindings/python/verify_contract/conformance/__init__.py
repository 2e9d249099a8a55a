"""The conformance kit for downstream repositories: producers, consumers, a pytest plugin and a CLI.

    from verify_contract.conformance import assert_conforms, check_producer, check_consumer

``assert_conforms(doc)`` raises ``ConformanceError`` for a document (dict, JSON text or pydantic model)
that breaks the contract; ``check_producer(ModelClass)`` and ``check_consumer(read_function)`` run the
conformance vectors through a producer's model or a consumer's read function and return a report.
The pytest plugin (``verify_contract.conformance.pytest_plugin``) exposes the same as fixtures.
"""

from verify_contract.conformance.consumer import READS, check_consumer
from verify_contract.conformance.producer import ConformanceError, assert_conforms, check_producer
from verify_contract.conformance.report import ConformanceReport, Issue

__all__ = [
    "READS",
    "ConformanceError",
    "ConformanceReport",
    "Issue",
    "assert_conforms",
    "check_consumer",
    "check_producer",
]
