"""The OpenTelemetry-style compatibility rules between two failure-kind registries."""

from __future__ import annotations

from collections.abc import Callable

from verify_contract.contract import REGISTRY_FILE as FILE
from verify_contract.contract import Kind, RegistryData, rename_problem, version_key

Emit = Callable[[str, str, str, str], None]
"""``emit(rule id, file, JSON pointer, message)``."""


def _compare_kind(old: Kind, new: Kind, old_version: str | None, new_version: str | None, emit: Emit) -> None:
    if (old.domain, old.added_in) != (new.domain, new.added_in):
        emit(
            "REGISTRY_KIND_MEANING_CHANGED",
            FILE,
            new.pointer,
            f"`{new.id}`: domain/added_in changed from {old.domain}/{old.added_in} to {new.domain}/{new.added_in}",
        )
    if old.stability == "stable" and new.stability != "stable":
        emit("REGISTRY_STABILITY_LOWERED", FILE, new.pointer, f"`{new.id}` went from stable to {new.stability}")
    elif old.stability != "stable" and new.stability == "stable":
        emit("REGISTRY_STABILITY_RAISED", FILE, new.pointer, f"`{new.id}` is now stable (was {old.stability})")
    if old.brief != new.brief:
        emit("REGISTRY_KIND_BRIEF_CHANGED", FILE, new.pointer, f"`{new.id}`: brief changed to {new.brief!r}")
    was, now = old.deprecated_at(old_version), new.deprecated_at(new_version)
    if was is not None and now is None:
        emit("REGISTRY_KIND_UNDEPRECATED", FILE, new.pointer, f"`{new.id}` is no longer deprecated")
    elif was is not None and now is not None and was != now:
        emit("REGISTRY_DEPRECATION_CHANGED", FILE, new.pointer, f"`{new.id}`: deprecation changed to {now}")


def _backdated(added_in: str | None, old_version: str | None) -> bool:
    """A kind the old side did not have must be added after the old version (in a consecutive diff: in NEW)."""
    if old_version is None or added_in is None:
        return False
    try:
        return version_key(added_in) <= version_key(old_version)
    except ValueError:
        return False  # an unparsable version is REGISTRY_INVALID's business


def compare_registries(
    old: RegistryData, new: RegistryData, old_version: str | None, new_version: str | None, emit: Emit
) -> None:
    """Registry rules: never remove, rename only through ``renamed_to``, never lower stability or change meaning."""
    for found in new.findings:
        emit("REGISTRY_INVALID", FILE, found.pointer, found.message)
    before, after = old.at(old_version), new.at(new_version)
    removed = [kind for kind_id, kind in before.items() if kind_id not in after]
    added = [kind for kind_id, kind in after.items() if kind_id not in before]
    renamed_in_place: set[str] = set()
    for gone in removed:
        twin = next((k for k in added if k.brief == gone.brief and k.id not in renamed_in_place), None)
        if twin is not None:
            renamed_in_place.add(twin.id)
            emit(
                "REGISTRY_KIND_RENAMED_IN_PLACE",
                FILE,
                twin.pointer,
                f"`{gone.id}` became `{twin.id}`: keep `{gone.id}` and deprecate it with renamed_to: {twin.id}",
            )
        else:
            emit("REGISTRY_KIND_REMOVED", FILE, gone.pointer, f"`{gone.id}` was removed; deprecate it instead")
    for kind in added:
        if kind.id not in renamed_in_place:
            emit("REGISTRY_KIND_ADDED", FILE, kind.pointer, f"`{kind.id}` registered ({kind.stability})")
        if kind.id not in renamed_in_place and _backdated(kind.added_in, old_version):
            emit(
                "REGISTRY_KIND_BACKDATED",
                FILE,
                f"{kind.pointer}/added_in",
                f"`{kind.id}` is new in {new_version} but claims added_in: {kind.added_in}",
            )
    for kind_id, kind in after.items():
        if kind_id in before:
            _compare_kind(before[kind_id], kind, old_version, new_version, emit)
        deprecation = kind.deprecated_at(new_version)
        newly = deprecation is not None and (
            kind_id not in before or before[kind_id].deprecated_at(old_version) is None
        )
        if deprecation is not None and deprecation.get("reason") == "renamed":
            broken = rename_problem(kind, deprecation, after, new_version)
            if broken is not None:
                emit("REGISTRY_RENAME_TARGET_INVALID", FILE, kind.pointer, broken)
            elif newly:
                emit(
                    "REGISTRY_KIND_RENAMED",
                    FILE,
                    kind.pointer,
                    f"`{kind_id}` is deprecated, renamed to `{deprecation['renamed_to']}`",
                )
        elif newly:
            emit("REGISTRY_KIND_DEPRECATED", FILE, kind.pointer, f"`{kind_id}` is deprecated (obsoleted)")
