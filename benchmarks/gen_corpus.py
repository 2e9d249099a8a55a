#!/usr/bin/env python3
"""Generate a JSONL corpus of verify responses (deterministic for a seed, stdlib only).

Shapes (``--size``):

- ``large``: Gym-like rollout rows of 8-24 KB (16 KB on average): a ``responses_create_params`` echo and a
  ``response`` whose output items carry long text (newlines, quotes, LaTeX backslashes, and about one
  word in eight non-ASCII: accents, Cyrillic, Greek, CJK, emoji) and token-id and log-prob arrays,
  environment metrics, sometimes an ``instance_config`` and a failure. Gym profile.
- ``small``: ~700 B rows: the contract fields, a few metrics and a short judge verdict. Core profile.
- ``mixed``: half of each.

Lines are written as raw UTF-8 (as orjson and pydantic write them), not ``\\uXXXX`` escapes.

Defects (``--defects``), on ``--invalid`` of the lines (default 5%):

- ``classic``: eight kinds that repeat (DEFECTS): the same few defect bytes over and over.
- ``distinct``: every defective line's defect is different (DISTINCT_DEFECTS): malformed and
  unregistered failure kinds, string rewards, wrong mask types, cut lines at varying offsets,
  NaN/Infinity in varying places, duplicate keys of varying names, each with a value of its own.

1% of the other lines only warn (the legacy mask alone). A sidecar ``<out>.labels`` names each line's
defect; ``ok`` and the ``warn_*`` labels are valid lines (``invalid_lines`` counts the rest).

    python benchmarks/gen_corpus.py --lines 100000 --size large --out large.jsonl
    python benchmarks/gen_corpus.py --lines 300000 --size small --defects distinct --invalid 0.2 --out x.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

DEFECTS = (
    "reward_str",  # "reward": "0.5"
    "reward_missing",
    "reward_nan",  # the bare NaN token, as json.dumps writes float("nan")
    "mask_yes",  # "mask_sample": "yes"
    "kind_format",  # "failure_kind": "Tool.Timeout"
    "kind_type",  # "failure_kind": 42
    "duplicate_key",  # "reward" twice
    "truncated",  # the line cut short
)
DISTINCT_DEFECTS = (
    "kind_malformed",
    "warn_kind_unregistered",  # well formed but unregistered: valid, with a warning
    "kind_type",
    "reward_str",
    "mask_type",
    "legacy_mask_type",
    "truncated",
    "non_finite",
    "duplicate_key",
)
KINDS = ("agent_timeout", "judge_failed", "verifier_error", "provider_unavailable", "swe:eval_timeout", None)
WORDS = (
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was", "on", "be", "by", "this",
    "are", "or", "an", "from", "at", "which", "we", "so", "answer", "solution", "step", "first", "then",
    "therefore", "compute", "value", "function", "return", "list", "index", "error", "test", "case", "result",
    "equation", "integral", "derivative", "matrix", "vector", "probability", "def", "import", "class", "self",
    "print", "range", "len", "while",
)  # fmt: skip
NON_ASCII = (
    "é", "café", "naïve", "Größe", "über", "señal", "façon", "—", "→", "≤", "≥", "∑", "∫", "π", "θ", "λ",
    "αβγ", "Привет", "задача", "решение", "中文", "答案", "数学", "問題", "한국어", "😀", "🚀", "✓",
)  # fmt: skip
ESCAPED = ("\\frac{a}{b}", "\\boxed{42}", '"quoted"', "\n", "\t", "C:\\path")
TOKENS = (*WORDS, *NON_ASCII, *ESCAPED)
# About one word in eight is non-ASCII, one in forty needs a JSON escape.
WEIGHTS = tuple(
    share / len(group) for share, group in ((0.85, WORDS), (0.125, NON_ASCII), (0.025, ESCAPED)) for _ in group
)
MALFORMED_KINDS = (
    "Tool.Timeout{}",
    "tool timeout {}",
    "{}kind",
    "kind_{}:",
    "a:b:kind{}",
    "kind_{}\n",
    "KIND_{}",
    "kind-{}",
)


def text(rng: random.Random, chars: int) -> str:
    return " ".join(rng.choices(TOKENS, WEIGHTS, k=max(1, chars // 6)))


def small(rng: random.Random, index: int) -> dict[str, Any]:
    failed = rng.random() < 0.2
    row: dict[str, Any] = {
        "reward": 0.0 if failed else rng.choice((0.0, 1.0, 1, round(rng.random(), 4))),
        "mask_sample": failed and rng.random() < 0.3,
        "failure_kind": rng.choice(KINDS[:-1]) if failed else None,
        "failure_reason": "tool timed out after 30 s" if failed else None,
        "task_index": index,
        "num_turns": rng.randint(1, 8),
        "latency_s": round(rng.uniform(0.05, 40.0), 3),
        "env": "math_with_judge",
        "extracted_answer": str(rng.randint(0, 99999)),
        "judge": {
            "verdict": rng.choice(("correct", "wrong", "unparseable")),
            "scores": [round(rng.random(), 4) for _ in range(4)],
            "explanation": text(rng, rng.randint(280, 600)),
        },
    }
    for key in ("mask_sample", "failure_kind", "failure_reason"):
        if rng.random() < 0.25:
            del row[key]
    return row


def large(rng: random.Random, index: int) -> dict[str, Any]:
    target = rng.randint(12_000, 36_000)
    failed = rng.random() < 0.1
    tokens = [rng.randrange(0, 151_000) for _ in range(target // 60)]
    prompt = text(rng, target // 4)
    answer = text(rng, target // 4)
    output = [
        {
            "id": f"msg_{index:012x}",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": answer, "annotations": []}],
            "prompt_token_ids": tokens[: len(tokens) // 2],
            "generation_token_ids": tokens[len(tokens) // 2 :],
            "generation_log_probs": [round(-rng.random() * 3, 6) for _ in range(len(tokens) // 8)],
        }
    ]
    row: dict[str, Any] = {
        "responses_create_params": {
            "input": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": prompt},
            ],
            "temperature": 1.0,
            "top_p": 1.0,
            "max_output_tokens": 16384,
            "tools": [],
            "metadata": None,
        },
        "response": {
            "id": f"resp_{index:016x}",
            "created_at": 1_790_000_000 + index,
            "model": "policy_model",
            "object": "response",
            "output": output,
            "parallel_tool_calls": True,
            "usage": {"input_tokens": len(tokens) // 2, "output_tokens": len(tokens) - len(tokens) // 2},
            "error": None,
        },
        "reward": 0.0 if failed else rng.choice((0.0, 1.0, 1)),
        "mask_sample": failed,
        "failure_kind": rng.choice(KINDS) if failed else None,
        "failure_reason": text(rng, 80) if failed else None,
        "resolved": not failed,
        "agent_peak_rss_mb": rng.randint(200, 4000),
        "_ng_task_index": index,
        "agent_ref": {"type": "responses_api_agents", "name": "swe_agents_train"},
    }
    if rng.random() < 0.3:
        row["instance_config"] = {"host": "127.0.0.1", "port": 10243, "mask_sample": row["mask_sample"]}
    return row


def dumps(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False)


def classic_defect(rng: random.Random, row: dict[str, Any], kind: str) -> str:
    if kind == "reward_str":
        row["reward"] = str(row.get("reward", 0.5))
    elif kind == "reward_missing":
        del row["reward"]
    elif kind == "reward_nan":
        row["reward"] = float("nan")
    elif kind == "mask_yes":
        row["mask_sample"] = "yes"
    elif kind == "kind_format":
        row["failure_kind"] = "Tool.Timeout"
    elif kind == "kind_type":
        row["failure_kind"] = 42
    line = dumps(row)
    if kind == "duplicate_key":
        return line[:-1] + ', "reward": 1.0}'
    if kind == "truncated":
        return line[: rng.randrange(1, len(line) - 1)]
    return line


def _nested(row: dict[str, Any]) -> dict[str, Any]:
    """An object one level down (a duplicate or a NaN there is found at another depth than the top)."""
    inner: dict[str, Any] = row["response"]["usage"] if "response" in row else row["judge"]
    return inner


def _number_list(row: dict[str, Any]) -> list[Any]:
    if "response" in row:
        log_probs: list[Any] = row["response"]["output"][0]["generation_log_probs"]
        return log_probs
    scores: list[Any] = row["judge"]["scores"]
    return scores


def distinct_defect(rng: random.Random, row: dict[str, Any], kind: str, n: int) -> str:
    """``kind`` applied with a value or place of its own: ``n`` (the line number) makes it unique."""
    form = rng.randrange(8)
    if kind == "kind_malformed":
        row["failure_kind"] = MALFORMED_KINDS[form].format(n)
    elif kind == "warn_kind_unregistered":
        row["failure_kind"] = f"custom_failure_{n}"
    elif kind == "kind_type":
        row["failure_kind"] = (n, n + 0.5, [f"k{n}"], {"kind": n}, True, -n, [n, n], {"id": f"k{n}"})[form]
    elif kind == "reward_str":
        strings = (f"{rng.random():.6f}", str(n), f"n/a #{n}", f"{n}%", f" {n / 7:.3f}", f"1e{n}", "", f"r{n}")
        row["reward"] = strings[form]
    elif kind == "mask_type":
        row["mask_sample"] = (f"yes {n}", n, n / 7, [n], {"masked": n}, f"false{n}", -n, [bool(n % 2), n])[form]
    elif kind == "legacy_mask_type":
        row["instance_config"] = {"mask_sample": (f"yes {n}", n, n / 7, [n], {"m": n}, f"{n}", -n, [n])[form]}
    elif kind == "non_finite":
        token = (float("nan"), float("inf"), float("-inf"))[n % 3]
        if form < 2:
            row["reward"] = token
        elif form < 4:
            row[f"metric_{n}"] = token
        elif form < 6:
            numbers = _number_list(row)
            numbers[rng.randrange(len(numbers))] = token
        else:
            _nested(row)[f"score_{n}"] = token
    line = dumps(row)
    if kind == "duplicate_key":
        name = f"extra_{n}" if form < 6 else rng.choice(sorted(row))
        if form < 3:  # at the top level, the member repeated last
            return line[:-1] + f', "{name}": {n}, "{name}": {n + 1}}}'
        if form < 6:  # one level down
            anchor = '"usage": {' if "response" in row else '"judge": {'
            return line.replace(anchor, f'{anchor}"{name}": {n}, "{name}": "{n}", ', 1)
        return line[:-1] + f', "{name}": {n}}}'  # an existing member, repeated
    if kind == "truncated":
        return line[: rng.randrange(1, len(line) - 1)]
    return line


def generate(
    lines: int, size: str, seed: int = 1234, invalid: float = 0.05, defects: str = "classic"
) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    kinds = DISTINCT_DEFECTS if defects == "distinct" else DEFECTS
    out: list[str] = []
    labels: list[str] = []
    for index in range(lines):
        big = size == "large" or (size == "mixed" and rng.random() < 0.5)
        row = large(rng, index) if big else small(rng, index)
        if rng.random() < invalid:
            kind = rng.choice(kinds)
            if defects == "distinct":
                out.append(distinct_defect(rng, row, kind, index))
            else:
                out.append(classic_defect(rng, row, kind))
            labels.append(kind)
            continue
        if rng.random() < 0.01 and row.get("mask_sample") is not None:
            row.pop("mask_sample")
            row["instance_config"] = {"mask_sample": True}
            labels.append("warn_legacy_only")
        else:
            labels.append("ok")
        out.append(dumps(row))
    return out, labels


def fingerprint() -> str:
    """Names cached corpora: a change to this generator makes new files instead of reusing stale ones."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8]


def invalid_lines(labels: Iterable[str]) -> int:
    """Lines the contract rejects: every label but ``ok`` and the ``warn_*`` ones."""
    return sum(1 for label in labels if label != "ok" and not label.startswith("warn_"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--size", choices=("small", "large", "mixed"), default="mixed")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--invalid", type=float, default=0.05, help="share of defective lines (default: 0.05)")
    parser.add_argument("--defects", choices=("classic", "distinct"), default="classic")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    lines, labels = generate(args.lines, args.size, args.seed, args.invalid, args.defects)
    with open(args.out, "w", encoding="utf-8") as stream:
        stream.writelines(line + "\n" for line in lines)
    with open(args.out + ".labels", "w", encoding="utf-8") as stream:
        stream.writelines(label + "\n" for label in labels)


if __name__ == "__main__":
    main()
