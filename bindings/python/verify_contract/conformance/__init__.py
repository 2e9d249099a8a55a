"""The conformance kit for downstream repositories: producers, consumers, a pytest plugin and a CLI.

    from verify_contract.conformance import assert_conforms, check_producer, check_consumer

It judges exactly the obligations of SPEC 4.1 (producers) and 4.2 (consumers), each by its id
(``verify_contract.conformance.obligations``). ``assert_conforms(doc)`` raises ``ConformanceError`` for a
document (dict, JSON text or pydantic model) that breaks a MUST; ``check_producer(ModelClass)`` and
``check_consumer(read_function)`` run the conformance vectors through a producer's model or a
consumer's read function and return a report by obligation. The pytest plugin
(``verify_contract.conformance.pytest_plugin``) exposes the same as fixtures.
"""

from verify_contract.conformance.consumer import READS, TAKES, check_consumer
from verify_contract.conformance.obligations import (
    CONSUMER_OBLIGATIONS,
    OBLIGATIONS,
    PRODUCER_OBLIGATIONS,
    Level,
    Obligation,
)
from verify_contract.conformance.producer import ConformanceError, assert_conforms, check_producer
from verify_contract.conformance.report import ConformanceReport, obligation_broken

__all__ = [
    "CONSUMER_OBLIGATIONS",
    "OBLIGATIONS",
    "PRODUCER_OBLIGATIONS",
    "READS",
    "TAKES",
    "ConformanceError",
    "ConformanceReport",
    "Level",
    "Obligation",
    "assert_conforms",
    "check_consumer",
    "check_producer",
    "obligation_broken",
]
