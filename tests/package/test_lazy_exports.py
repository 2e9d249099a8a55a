"""The package's exports are imported on first use, and are the same objects as before."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import verify_contract
from verify_contract import bindings, contract, findings, upgrade
from verify_contract.contract import _versions as versions
from verify_contract.generated import failure_kinds
from verify_contract.reference import _jsonio as jsonio
from verify_contract.reference import _validation as validation


def _run(code: str) -> None:
    subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=True)


def test_import_pulls_in_neither_pydantic_nor_jsonschema() -> None:
    _run(
        """
        import sys
        import verify_contract
        assert "pydantic" not in sys.modules and "jsonschema" not in sys.modules, sorted(sys.modules)
        """
    )


def test_every_export_is_the_defining_modules_object() -> None:
    sources = (bindings, contract, findings, jsonio, validation, versions, sys.modules["verify_contract.upgrade"])
    for name in verify_contract.__all__:
        value = getattr(verify_contract, name)
        if name == "failure_kinds":
            assert value is failure_kinds
            continue
        assert any(getattr(module, name, None) is value for module in sources), name
    assert set(verify_contract.__all__) <= set(dir(verify_contract))


def test_upgrade_stays_the_function_whatever_the_import_order() -> None:
    assert callable(upgrade) and not isinstance(upgrade, type(sys))
    _run(
        """
        import verify_contract.cli._upgrade  # loads the submodule verify_contract.upgrade first
        from verify_contract import upgrade
        import verify_contract
        assert verify_contract.upgrade is upgrade and callable(upgrade), upgrade
        """
    )
    _run(
        """
        from verify_contract import upgrade, UpgradeError
        import verify_contract.upgrade
        import verify_contract
        assert verify_contract.upgrade is upgrade and callable(upgrade), upgrade
        """
    )


def test_unknown_names_still_raise() -> None:
    try:
        verify_contract.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("no AttributeError")


# The sub-packages' lazy exports (check, contract, reference, probe, cli): tests/package/test_public_surfaces.py.
