"""The differential fuzzer's CI-sized run (tests/fuzz/differential.py; a longer run: ``make fuzz``).

20,000 seeded documents through every implementation; any disagreement fails with the documents.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fuzz.differential import GENERATED_TOOLS, RUNNERS, compare_runners, fuzz, generated_languages
from languages import REQUIRE_ALL

CI_DOCUMENTS = 20_000


def _built_languages() -> list[str]:
    built = [name for name, command in RUNNERS.items() if os.path.exists(command[-1])]
    if REQUIRE_ALL and len(built) != len(RUNNERS):
        pytest.fail(f"conformance runners not built: {sorted(set(RUNNERS) - set(built))}")
    return built


def _generated() -> list[str]:
    found = generated_languages()
    if REQUIRE_ALL and len(found) != len(GENERATED_TOOLS):
        pytest.fail(f"toolchains missing for the generated code: {sorted(set(GENERATED_TOOLS) - set(found))}")
    return found


def test_every_implementation_agrees_on_20000_documents() -> None:
    run = fuzz(seed=20261201, count=CI_DOCUMENTS, languages=_built_languages(), generated=_generated())
    assert sum(v.valid for v in run.expected) > 1000  # the corpus reaches the schema, not only the parser
    assert len({rule for v in run.expected for rule in v.rules}) >= 12  # and most rules
    assert run.problems == [], "\n".join(run.problems[:30])


def test_the_fuzzer_sees_a_disagreement() -> None:
    # A reference that got one rule wrong must be caught: swap json-duplicate-key for json-non-finite.
    run = fuzz(seed=7, count=2000, languages=_built_languages()[:1])
    assert run.problems == []
    for verdict in run.expected:
        verdict.rules = ["json-non-finite" if r == "json-duplicate-key" else r for r in verdict.rules]
    compare_runners(run, _built_languages()[:1])
    assert any("json-duplicate-key" in problem for problem in run.problems)


def test_the_fuzzer_judges_the_generated_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generated Python targets are in the run: one that accepts everything, or crashes instead of
    refusing, is caught."""
    import fuzz.differential as differential

    honest = differential._generated_codec
    run = fuzz(seed=11, count=1500, languages=[])
    assert run.problems == []

    def lenient(module: object, target: str) -> tuple[object, object, type]:
        decode, encode, refusal = honest(module, target)

        def decode_anything(value: object) -> object:
            try:
                return decode(value)
            except refusal:
                return value  # accepted as it came

        return decode_anything, (lambda value: value if isinstance(value, dict) else encode(value)), refusal

    def crashing(module: object, target: str) -> tuple[object, object, type]:
        decode, encode, refusal = honest(module, target)

        def decode_or_crash(value: object) -> object:
            try:
                return decode(value)
            except refusal:
                raise OverflowError("int too large to convert to float") from None

        return decode_or_crash, encode, refusal

    for fake, expected in ((lenient, "accepts an invalid document"), (crashing, "raised OverflowError")):
        monkeypatch.setattr(differential, "_generated_codec", fake)
        faulty = fuzz(seed=11, count=1500, languages=[])
        assert any(expected in problem for problem in faulty.problems), expected


def test_the_fuzzer_judges_the_generated_code_of_other_languages(tmp_path: Path) -> None:
    """A reference verdict flipped for one document the generated code judges must be caught."""
    from fuzz.differential import Run, _generated_runners, generate, reference

    languages = _generated()[:1]
    if not languages:
        pytest.skip("no toolchain for the generated code")
    documents = generate(13, 300)
    run = Run(documents, [reference(*document) for document in documents])
    flipped = next(index for index, verdict in enumerate(run.expected) if verdict.valid)
    run.expected[flipped].valid = False
    _generated_runners(run, tmp_path, languages)
    assert [problem.split(" #")[1].split()[0] for problem in run.problems] == [str(flipped)], run.problems
