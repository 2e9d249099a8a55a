"""A registry entry is typed once: the lenient parse (``contract._registry``) wraps the ``FailureKindInfo``
the bindings and the generators use, and holds none for an entry that breaks a rule of the file."""

from __future__ import annotations

import pytest

from generators.paths import REGISTRY_FILE
from generators.registry import RegistryError, load_registry
from verify_contract.contract._failure_kind_info import Deprecation, FailureKindInfo
from verify_contract.contract._registry import parse_registry, registered
from verify_contract.contract._versions import CONTRACT_VERSIONS

TEXT = (
    "file_format: failure-kind-registry/1\nkinds:\n"
    "  - {id: ok_kind, domain: ok, brief: ' fine ', stability: stable, added_in: 1.0.0}\n"
    "  - {id: old_kind, domain: ok, brief: old, stability: development, added_in: 1.0.0,\n"
    "     deprecated: {in: 1.1.0, reason: renamed, renamed_to: ok_kind, note: see ok_kind}}\n"
)


def test_a_well_formed_entry_is_its_failure_kind_info() -> None:
    data = parse_registry(TEXT, ["1.0.0", "1.1.0"])
    assert [kind.info for kind in data.kinds] == [
        FailureKindInfo("ok_kind", "ok", "fine", "stable", "1.0.0"),
        FailureKindInfo(
            "old_kind", "ok", "old", "development", "1.0.0", Deprecation("1.1.0", "renamed", "ok_kind", "see ok_kind")
        ),
    ]
    assert registered(data) == [kind.info for kind in data.kinds]


def test_a_malformed_entry_is_read_leniently_and_holds_no_info() -> None:
    text = TEXT + "  - {id: half_kind, domain: ok, stability: sometimes}\n"
    data = parse_registry(text, ["1.0.0", "1.1.0"])
    half = data.kinds[2]
    assert (half.id, half.domain, half.brief, half.stability, half.info) == ("half_kind", "ok", None, "sometimes", None)
    assert data.kinds[0].info is not None  # the other entries keep theirs
    with pytest.raises(ValueError, match="half_kind: brief must be a non-empty string"):
        registered(data)


def test_the_generators_load_the_same_type() -> None:
    kinds = load_registry(REGISTRY_FILE, list(CONTRACT_VERSIONS))
    assert kinds and all(type(kind) is FailureKindInfo for kind in kinds)
    broken = REGISTRY_FILE.read_text(encoding="utf-8").replace("stability: stable", "stability: solid", 1)
    with pytest.raises(ValueError, match="stability must be one of"):
        registered(parse_registry(broken, list(CONTRACT_VERSIONS)))
    assert issubclass(RegistryError, ValueError)
