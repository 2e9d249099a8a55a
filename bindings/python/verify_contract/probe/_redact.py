"""Secrets a request carries stay out of the probe's report, however the server quotes them back.

A server may echo the request it got: in a 400 body, in a batch array, in a header, as JSON (escaped, or
not), as a Python repr, percent-encoded or HTML-escaped. The probe never prints a request, but it quotes
replies, so the value of every request member whose name looks secret is replaced by ``[REDACTED]`` in
the reply (body, content type, error) before any check reads it: no message, context, cap or output
format can then show it, or a prefix of it.
"""

from __future__ import annotations

import fnmatch
import html
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import lru_cache
from typing import Any
from urllib.parse import quote, quote_plus

from verify_contract.probe._checks import Reply

SECRET_NAMES: tuple[str, ...] = ("*key*", "*token*", "*secret*", "*password*", "authorization")
"""Member names (shell patterns, any case) whose values are redacted; ``--redact NAME`` adds more."""
MIN_SECRET_LENGTH = 4
"""Shorter values are left alone: a value of a few characters ("0", "true") would be found in every reply
and the redaction would rewrite numbers and literals, changing the verdict rather than hiding anything."""
REDACTED = "[REDACTED]"


def _secret_values(value: Any) -> Iterator[str]:
    """Every text under a secret member: its strings, and its numbers as JSON writes them."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _secret_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _secret_values(item)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield json.dumps(value)


def _collect_secrets(value: Any, secret_name: Callable[[str], bool], found: list[str]) -> None:
    """The texts under every member, at any depth, whose name is secret. A plain
    recursion that enters containers only: the probe runs it on every request (a generator per member cost
    three times as much)."""
    if isinstance(value, dict):
        for name, item in value.items():
            if secret_name(name):
                found.extend(_secret_values(item))
            if isinstance(item, (dict, list)):
                _collect_secrets(item, secret_name, found)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _collect_secrets(item, secret_name, found)


def _quoted_forms(secret: str) -> set[str]:
    """The ways a server can write ``secret`` back: as is, JSON-escaped (ASCII or not, ``/`` escaped or not),
    JSON inside JSON, a Python repr, percent-encoded and HTML-escaped."""
    forms = {secret, html.escape(secret), quote(secret, safe=""), quote_plus(secret), repr(secret)[1:-1]}
    for ascii_only in (True, False):
        escaped = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        forms |= {escaped, escaped.replace("/", "\\/"), json.dumps(escaped, ensure_ascii=ascii_only)[1:-1]}
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


REMEMBERED_NAMES = 4096
"""Member names whose verdict a matcher keeps: requests repeat the same few tens of names."""


@lru_cache(maxsize=8)
def _secret_name_matcher(names: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a member name is secret: the patterns as one compiled expression (a request has tens of members,
    the probe thousands of requests: a pattern matched member by member with ``fnmatch`` cost 0.3 ms a
    request), its verdict kept by name (the expression's ``.*`` runs cost 1 us a name)."""
    expression = "|".join(f"(?:{fnmatch.translate(name.lower())})" for name in names) or r"(?!)"
    match = re.compile(expression, re.DOTALL).match
    verdicts: dict[str, bool] = {}

    def secret(name: str) -> bool:
        verdict = verdicts.get(name)
        if verdict is None:
            verdict = match(name.lower()) is not None
            if len(verdicts) < REMEMBERED_NAMES:
                verdicts[name] = verdict
        return verdict

    return secret


class Redactor:
    """Replaces the secrets of one request wherever a reply quotes them."""

    def __init__(self, secrets: Iterable[str]) -> None:
        forms = {form for secret in secrets if len(secret) >= MIN_SECRET_LENGTH for form in _quoted_forms(secret)}
        # Longest first: a secret that holds another is replaced whole, not around the shorter one.
        self._texts = sorted(forms, key=len, reverse=True)
        self._bytes = [form.encode("utf-8", "surrogatepass") for form in self._texts]

    @classmethod
    def for_request(cls, request: Any, names: Iterable[str] = SECRET_NAMES) -> Redactor:
        secrets: list[str] = []
        _collect_secrets(request, _secret_name_matcher(tuple(names)), secrets)
        return cls(secrets)

    def __bool__(self) -> bool:
        return bool(self._texts)

    def text(self, text: str) -> str:
        for form in self._texts:
            text = text.replace(form, REDACTED)
        return text

    def body(self, body: bytes) -> bytes:
        for form in self._bytes:
            body = body.replace(form, REDACTED.encode("ascii"))
        return body

    def reply(self, reply: Reply) -> Reply:
        if not self:
            return reply
        return replace(
            reply, body=self.body(reply.body), content_type=self.text(reply.content_type), error=self.text(reply.error)
        )
