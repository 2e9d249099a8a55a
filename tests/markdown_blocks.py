"""The fenced code blocks of the project's Markdown documents, so that tests can run them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    document: str
    language: str
    line: int
    code: str

    @property
    def id(self) -> str:
        return f"{self.document}:{self.line}"


def blocks(document: str, language: str = "python") -> list[Block]:
    """The ``language`` blocks of a Markdown file at the repository root, with their first line number.

    Blocks marked ``<!-- example: NAME -->`` are left out here and run where what they import exists: code that a
    preceding ``verify-contract generate`` block writes (tests/codegen/test_generate_docs.py runs them in a generated
    project), or a trainer's adapter (tests/trainers/inside runs them beside real verl and torch)."""
    text = (ROOT / document).read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        if text[: match.start()].rstrip().endswith("-->") and "<!-- example:" in text[: match.start()].rstrip()[-80:]:
            continue
        if match.group(1) == language:
            line = text.count("\n", 0, match.start(2)) + 1
            found.append(Block(document, language, line, match.group(2)))
    return found


def run_block(block: Block) -> dict[str, Any]:
    """Execute a block in a fresh namespace, as a reader pasting it would, and return that namespace."""
    namespace: dict[str, Any] = {"__name__": f"markdown_block_{block.line}"}
    exec(compile(block.code, block.id, "exec"), namespace)  # the project's own documentation
    return namespace


def defining(document: str, name: str) -> Any:
    """The object a document's Python block defines under ``name`` (the block that defines it, run alone)."""
    for block in blocks(document):
        if re.search(rf"^def {name}\(", block.code, re.MULTILINE):
            return run_block(block)[name]
    raise LookupError(f"no Python block of {document} defines {name}")
