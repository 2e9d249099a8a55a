#!/usr/bin/env python3
"""Generate a realistic JSONL corpus of verify responses (deterministic, stdlib only).

Large lines are Gym-like rollout results of 5-20 KB: a `responses_create_params` echo, a `response`
whose output items carry long text (newlines, quotes, LaTeX backslashes, non-ASCII) and token-id and
log-prob arrays, environment metrics, sometimes an `instance_config` and a failure. Small lines (~200 B)
hold the contract fields and a few metrics. About 5% of the lines are invalid, spread over the kinds in
DEFECTS; 1% of the valid lines only warn (the legacy mask alone). A sidecar `<out>.labels` names each
line's defect ("ok" otherwise).

    python benchmarks/gen_corpus.py --lines 100000 --size large --out /tmp/large.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
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
KINDS = ("agent_timeout", "judge_failed", "verifier_error", "provider_unavailable", "swe:eval_timeout", None)
WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
    "was",
    "on",
    "be",
    "by",
    "this",
    "are",
    "or",
    "an",
    "from",
    "at",
    "which",
    "we",
    "so",
    "answer",
    "solution",
    "step",
    "first",
    "then",
    "therefore",
    "compute",
    "value",
    "function",
    "return",
    "list",
    "index",
    "error",
    "test",
    "case",
    "result",
    "equation",
    "integral",
    "derivative",
    "matrix",
    "vector",
    "probability",
    "def",
    "import",
    "class",
    "self",
    "print",
    "range",
    "len",
    "while",
]
ODD = ("é", "—", "→", "≤", "π", "中文", "😀", "\\frac{a}{b}", "\\boxed{42}", '"quoted"', "\n", "\t")


def text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(ODD) if rng.random() < 0.03 else rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


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
        "judge_verdict": rng.choice(("correct", "wrong", "unparseable")),
    }
    for key in ("mask_sample", "failure_kind", "failure_reason"):
        if rng.random() < 0.25:
            del row[key]
    return row


def large(rng: random.Random, index: int) -> dict[str, Any]:
    target = rng.randint(5_000, 20_000)
    failed = rng.random() < 0.1
    tokens = [rng.randrange(0, 151_000) for _ in range(target // 40)]
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


def defect(rng: random.Random, row: dict[str, Any], kind: str) -> str:
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
    line = json.dumps(row)
    if kind == "duplicate_key":
        return line[:-1] + ', "reward": 1.0}'
    if kind == "truncated":
        return line[: rng.randrange(1, len(line) - 1)]
    return line


def generate(lines: int, size: str, seed: int, invalid: float) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    out: list[str] = []
    labels: list[str] = []
    for index in range(lines):
        big = size == "large" or (size == "mixed" and rng.random() < 0.5)
        row = large(rng, index) if big else small(rng, index)
        if rng.random() < invalid:
            kind = rng.choice(DEFECTS)
            out.append(defect(rng, row, kind))
            labels.append(kind)
            continue
        if rng.random() < 0.01 and row.get("mask_sample") is not None:
            row.pop("mask_sample")
            row["instance_config"] = {"mask_sample": True}
            labels.append("warn_legacy_only")
        else:
            labels.append("ok")
        out.append(json.dumps(row))
    return out, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--size", choices=("small", "large", "mixed"), default="mixed")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--invalid", type=float, default=0.05, help="share of invalid lines (default: 0.05)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    lines, labels = generate(args.lines, args.size, args.seed, args.invalid)
    with open(args.out, "w", encoding="utf-8") as stream:
        stream.writelines(line + "\n" for line in lines)
    with open(args.out + ".labels", "w", encoding="utf-8") as stream:
        stream.writelines(label + "\n" for label in labels)


if __name__ == "__main__":
    main()
