"""verify_contract.trainers.nemo_rl with real torch on CPU (run inside tests/trainers' environment).

NeMo-RL is not installable from PyPI (the name holds a 0.0.0 placeholder): the drop-in is checked against the
result shapes NeMo-RL's own tests feed its reader (tests/unit/experience/test_reward_penalties.py,
``TestExtractMaskSampleFlags``) and every contract vector; ``install()`` is checked on a stand-in module at
NeMo-RL's import path that calls the reader the way NeMo-RL does (a module global looked up at call time),
in this process and in a real local Ray worker through ``worker_process_setup_hook``. The last test runs
against a NeMo-RL checkout when ``nemo_rl`` is importable.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from verify_contract import effective_mask, validate
from verify_contract.conformance import check_consumer
from verify_contract.trainers import RefusedResult, read_outcome
from verify_contract.trainers import nemo_rl as adapter
from verify_contract.vectors import load_vectors

# NeMo-RL's own test shapes and the flags its reader gives them; the last is the top-level mask it misses.
NEMO_RL_SHAPES: list[tuple[dict[str, Any], bool, bool]] = [
    ({"full_result": {"instance_config": {"mask_sample": True}}}, True, True),  # (result, NeMo-RL's, ours)
    ({"full_result": {"instance_config": {}}}, False, False),
    ({"full_result": {}}, False, False),
    ({"full_result": {"instance_config": None}}, False, False),
    ({"full_result": {"reward": 0.0, "mask_sample": True}}, False, True),
]


def nemo_rls_reader(results: list[dict[str, Any]]) -> torch.Tensor:
    """NeMo-RL's reader as its code reads (rollouts.py at 7ea279ab): nested only, ``bool()``. Used as the
    stand-in module's original and to show the gap."""
    return torch.tensor(
        [bool((r["full_result"].get("instance_config") or {}).get("mask_sample", False)) for r in results],
        dtype=torch.bool,
    )


def test_the_drop_in_gives_nemo_rls_expected_tensors_for_its_own_shapes() -> None:
    results = [shape for shape, _, _ in NEMO_RL_SHAPES]
    flags = adapter.extract_mask_sample_flags(results)
    assert flags.dtype == torch.bool and flags.shape == (len(results),)
    assert flags.tolist() == [ours for _, _, ours in NEMO_RL_SHAPES]
    assert nemo_rls_reader(results).tolist() == [theirs for _, theirs, _ in NEMO_RL_SHAPES]
    assert adapter.extract_mask_sample_flags([]).dtype == torch.bool


def test_the_drop_in_gives_the_right_mask_for_every_contract_vector() -> None:
    """Valid documents: the effective mask. Documents whose mask or reward is present but breaks the contract:
    masked (not policy evidence), where NeMo-RL's ``bool()`` would say true for "false" and false for 0."""
    checked = 0
    for vector in load_vectors():
        if not vector.has_instance or not isinstance(vector.instance, dict):
            continue
        flag = adapter.extract_mask_sample_flags([{"full_result": vector.instance}])[0].item()
        outcome = read_outcome(vector.instance)
        if not validate(vector.instance).errors:
            assert flag is effective_mask(vector.instance), vector.id
        elif not outcome.only_reward_missing:
            assert flag is True, vector.id
        checked += 1
    assert checked > 100


def test_the_metrics_count_what_the_drop_in_masks() -> None:
    results = [
        {"full_result": {"reward": 1.0}},
        {"full_result": {"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost"}},
        {"full_result": {"reward": 1.0, "instance_config": {"mask_sample": True}}},
        {"full_result": {"reward": 1, "mask_sample": "false"}},
    ]
    assert adapter.extract_mask_sample_flags(results).tolist() == [False, True, True, True]
    assert adapter.mask_sample_metrics(results) == {
        "contract/masked_rate": 0.75,
        "contract/masked": 3,
        "contract/refused": 1,
        "contract/kind/session_lost": 1,
        "contract/kind/(none)": 1,
        "contract/kind/protocol_violation": 1,
    }


def read_through_the_drop_in(document: Any) -> tuple[bool, float]:
    """The drop-in's mask; NeMo-RL reads the reward itself (``full_result["reward"]``), a refused one raises."""
    flag = adapter.extract_mask_sample_flags([{"full_result": document}])[0].item()
    outcome = read_outcome(document)
    if outcome.refused:
        raise RefusedResult(outcome)
    return flag, document["reward"]


def test_the_nemo_rl_reader_passes_the_consumer_kit() -> None:
    report = check_consumer(read_through_the_drop_in, "both")
    assert report.ok, report.format_text()


def test_nemo_rls_own_reader_fails_the_kit() -> None:
    """The kit run above can fail: NeMo-RL's reader misses the top-level mask (consumer-effective-mask)."""
    report = check_consumer(lambda d: nemo_rls_reader([{"full_result": d}])[0].item(), "mask")
    assert not report.ok and "consumer-effective-mask" in report.format_text()


# -- the baseline ----------------------------------------------------------------------------------------------


def test_the_baseline_and_std_are_over_usable_samples_only() -> None:
    prompts = torch.tensor([[7, 8], [7, 8], [7, 8], [7, 8], [9, 9], [9, 9]])
    rewards = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    masked = torch.tensor([False, False, False, True, False, True])
    baseline, std = adapter.baseline_and_std_per_prompt(prompts, rewards, masked)
    third = 1 / 3
    assert baseline.tolist() == pytest.approx([2 * third, 2 * third, 2 * third, 0.0, 1.0, 0.0])
    assert std.tolist() == pytest.approx([third**0.5, third**0.5, third**0.5, 0.0, 0.0, 0.0], abs=1e-6)
    advantage = (rewards - baseline) / (std + 1e-6)
    assert advantage[3:].abs().sum() == 0  # the masked sample and the prompt with one usable sample teach nothing
    assert advantage[:3].tolist() == pytest.approx([third**0.5, -2 * third**0.5, third**0.5], abs=1e-4)


def test_the_baseline_without_masks_is_the_plain_group_statistics() -> None:
    group = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    rewards = torch.tensor([0.2, 0.5, 0.9, 1.0, 0.0, 0.0, 1.0])
    baseline, std = adapter.baseline_and_std_per_prompt(group, rewards, torch.zeros(7, dtype=torch.bool))
    for members in (slice(0, 3), slice(3, 7)):
        assert torch.allclose(baseline[members], rewards[members].mean().expand(baseline[members].shape))
        assert torch.allclose(std[members], rewards[members].std().expand(std[members].shape))
    loo, _ = adapter.baseline_and_std_per_prompt(
        group, rewards, torch.zeros(7, dtype=torch.bool), leave_one_out_baseline=True
    )
    assert loo[0].item() == pytest.approx((0.5 + 0.9) / 2)


# -- installing: the driver process and the Ray rollout actors ---------------------------------------------------


STAND_IN = '''
"""A stand-in for nemo_rl.experience.rollouts: its reader, called by name at call time, as NeMo-RL does."""
import torch


def _extract_mask_sample_flags(results):
    return torch.tensor(
        [bool((r["full_result"].get("instance_config") or {}).get("mask_sample", False)) for r in results],
        dtype=torch.bool,
    )


def postprocess_group(results):
    return {"mask_sample": _extract_mask_sample_flags(results)}
'''


def _nemo_rl_checkout() -> bool:
    try:
        import nemo_rl.experience.rollouts  # noqa: F401
    except ImportError:
        return False
    return True


NEMO_RL_CHECKOUT = _nemo_rl_checkout()  # asked once, before any stand-in is on the path


def _forget_nemo_rl() -> None:
    for name in [name for name in sys.modules if name == "nemo_rl" or name.startswith("nemo_rl.")]:
        del sys.modules[name]


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if NEMO_RL_CHECKOUT:
        pytest.skip("a NeMo-RL checkout is importable: the stand-in would shadow it")
    package = tmp_path / "nemo_rl" / "experience"
    package.mkdir(parents=True)
    (tmp_path / "nemo_rl" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "rollouts.py").write_text(textwrap.dedent(STAND_IN))
    monkeypatch.syspath_prepend(str(tmp_path))
    _forget_nemo_rl()
    yield tmp_path
    _forget_nemo_rl()


TOP_LEVEL_ONLY = [{"full_result": {"reward": 0.0, "mask_sample": True}}, {"full_result": {"reward": 1.0}}]


def test_install_reaches_the_callers_in_this_process(stand_in: Path) -> None:
    import nemo_rl.experience.rollouts as rollouts

    assert rollouts.postprocess_group(TOP_LEVEL_ONLY)["mask_sample"].tolist() == [False, False]
    previous = adapter.install()
    assert previous.__module__ == "nemo_rl.experience.rollouts"
    assert rollouts.postprocess_group(TOP_LEVEL_ONLY)["mask_sample"].tolist() == [True, False]
    assert adapter.install() is adapter.extract_mask_sample_flags  # installing twice keeps one reader


def test_the_setup_hook_installs_the_reader_in_ray_workers(stand_in: Path) -> None:
    """The async GRPO rollout actors are separate processes: Ray's worker_process_setup_hook runs the install in
    each worker before it runs any task (a real local Ray, one CPU)."""
    import ray

    path = os.pathsep.join([str(stand_in), os.environ.get("PYTHONPATH", "")])
    ray.init(
        num_cpus=1,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "worker_process_setup_hook": "verify_contract.trainers.nemo_rl.worker_setup_hook",
            "env_vars": {"PYTHONPATH": path},
        },
    )
    try:

        @ray.remote
        class Collector:  # NeMo-RL's trajectory collector calls the rollouts module inside an actor
            def flags(self, results: list[dict[str, Any]]) -> list[bool]:
                import nemo_rl.experience.rollouts as rollouts

                return rollouts.postprocess_group(results)["mask_sample"].tolist()  # type: ignore[no-any-return]

        collector = Collector.remote()  # type: ignore[attr-defined]
        assert ray.get(collector.flags.remote(TOP_LEVEL_ONLY), timeout=120) == [True, False]
    finally:
        ray.shutdown()


def test_the_readme_lines_for_nemo_rl_run(stand_in: Path) -> None:
    from verl_checks import readme_example

    exec(compile(readme_example("trainers-nemo-rl"), "README.md:trainers-nemo-rl", "exec"), {})
    import nemo_rl.experience.rollouts as rollouts

    assert rollouts._extract_mask_sample_flags is adapter.extract_mask_sample_flags


@pytest.mark.skipif(
    not NEMO_RL_CHECKOUT,
    reason="nemo_rl is not importable: NeMo-RL is not on PyPI; put a checkout of NVIDIA-NeMo/RL on PYTHONPATH",
)
def test_against_a_nemo_rl_checkout() -> None:
    import nemo_rl.experience.rollouts as rollouts

    shapes = [shape for shape, _, _ in NEMO_RL_SHAPES]
    original = rollouts._extract_mask_sample_flags
    try:
        assert original(shapes[:4]).tolist() == [theirs for _, theirs, _ in NEMO_RL_SHAPES[:4]]
        adapter.install()
        assert rollouts._extract_mask_sample_flags(shapes).tolist() == [ours for _, _, ours in NEMO_RL_SHAPES]
    finally:
        rollouts._extract_mask_sample_flags = original
