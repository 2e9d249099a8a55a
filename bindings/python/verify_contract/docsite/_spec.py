"""SPEC.md as an HTML page: markdown-it-py (CommonMark with tables), every numbered heading given a stable anchor
(``section-3.5``), and the cross-references made links: "section 3.5" to its heading, a rule id, failure kind,
obligation id or field path in code to its own page's anchor."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from verify_contract.docsite._content import SPEC_HEADING

# "section 3.5", "sections 3.1 and 3.6", "SPEC 4.2": a number of this document. Another document's section
# ("I-JSON section 2.3", "RFC 8259 section 6") is left alone.
SECTION_REFERENCE = re.compile(
    r"(?<![A-Z0-9]\s)(?<![A-Z0-9]-JSON\s)\b(?P<word>[Ss]ections?|SPEC) "
    r"(?P<numbers>\d+(?:\.\d+)*(?:(?:, | and | or )\d+(?:\.\d+)*)*)"
)
NUMBER = re.compile(r"\d+(?:\.\d+)*")


def section_anchor(number: str) -> str:
    return f"section-{number}"


@dataclass
class RenderedSpec:
    html: str
    sections: dict[str, str]
    """Section number -> title."""
    unresolved: list[str] = field(default_factory=list)
    """References to section numbers the document does not have."""


def _section_link(number: str, sections: Mapping[str, str], unresolved: list[str], base: str) -> str:
    """A link to the section, or to the nearest enclosing one (4.1.5 is the fifth item of 4.1)."""
    parts = number.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in sections:
            return f'<a href="{html.escape(base)}#{section_anchor(candidate)}">{html.escape(number)}</a>'
        parts.pop()
    unresolved.append(number)
    return html.escape(number)


def link_sections(text: str, sections: Mapping[str, str], unresolved: list[str], base: str = "") -> str:
    """Escaped ``text`` with each reference to a section of the SPEC a link (``href="BASE#section-N"``; ``base``
    is the SPEC page's URL from the page the text is on, empty on the SPEC page itself)."""
    out: list[str] = []
    last = 0
    for found in SECTION_REFERENCE.finditer(text):
        out.append(html.escape(text[last : found.start("numbers")]))
        numbers = found["numbers"]
        position = 0
        for number in NUMBER.finditer(numbers):
            out.append(html.escape(numbers[position : number.start()]))
            out.append(_section_link(number.group(), sections, unresolved, base))
            position = number.end()
        out.append(html.escape(numbers[position:]))
        last = found.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def spec_section_titles(text: str) -> dict[str, str]:
    return {m["number"]: m["title"] for m in map(SPEC_HEADING.match, text.splitlines()) if m}


def render_spec(
    text: str,
    names: Mapping[str, tuple[str, str]],
    root: str,
    sections: Mapping[str, str] | None = None,
    base: str = "",
) -> RenderedSpec:
    """SPEC.md, or a part of it, as HTML. ``names``: a name written in code (a rule id, a kind, an obligation,
    a field path) -> its URL, relative to the site's root, and its one-line definition (shown where the name
    is used, as the link's title); ``root`` is the page's way back to the root;
    ``sections`` the whole SPEC's sections (default: the text's own) and ``base`` the SPEC page's URL from this
    page (empty: this is the SPEC page)."""
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

    sections = spec_section_titles(text) if sections is None else sections
    unresolved: list[str] = []
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    tokens = md.parse(text)
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag != "h1":
            inline = tokens[index + 1]
            heading = SPEC_HEADING.match(f"{token.markup} {inline.content}")
            if heading:
                token.attrSet("id", section_anchor(heading["number"]))
        if token.type != "inline" or token.children is None:
            continue
        children: list[Token] = []
        in_repository_link = False
        for child in token.children:
            href = str(child.attrGet("href") or "")
            if child.type == "link_open" and not re.match(r"[a-z][a-z0-9+.-]*:|#", href):
                # A file of the repository (docs/compatibility.md): the site does not carry it, so its name stays
                # text, marked as the repository's (a link would be dead on any host of the site).
                span = Token("html_inline", "", 0)
                span.content = f'<span class="repo-file" title="in the repository: {html.escape(href)}">'
                children.append(span)
                in_repository_link = True
            elif child.type == "link_close" and in_repository_link:
                close = Token("html_inline", "", 0)
                close.content = "</span>"
                children.append(close)
                in_repository_link = False
            elif child.type == "code_inline" and child.content in names:
                link = Token("html_inline", "", 0)
                url, definition = names[child.content]
                link.content = (
                    f'<a href="{html.escape(root + url)}" title="{html.escape(definition)}">'
                    f"<code>{html.escape(child.content)}</code></a>"
                )
                children.append(link)
            elif child.type == "text" and SECTION_REFERENCE.search(child.content):
                linked = Token("html_inline", "", 0)
                linked.content = link_sections(child.content, sections, unresolved, base)
                children.append(linked)
            else:
                children.append(child)
        token.children = children
    # A block that may scroll sideways (a wide table, a long line of code) takes the keyboard's focus, so it can
    # be scrolled without a mouse (axe-core: scrollable-region-focusable).
    body = md.renderer.render(tokens, md.options, {})
    body = body.replace("<pre>", '<pre tabindex="0">').replace("<table>", '<table tabindex="0">')
    return RenderedSpec(body, dict(sections), unresolved)
