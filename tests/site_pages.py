"""The documentation site as a test reads it: build it once into a folder, parse each page's anchors, links and
headings (html.parser, standard library), and resolve a link the way a browser does."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from verify_contract.docsite import build_site

ROOT = Path(__file__).resolve().parents[1]


def build(out: Path) -> Path:
    build_site(out, ROOT)
    return out


@dataclass
class Parsed:
    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    headings: list[int] = field(default_factory=list)
    lang: str | None = None
    images: list[dict[str, str | None]] = field(default_factory=list)
    labels: set[str] = field(default_factory=set)
    inputs: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.page = Parsed()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.page.ids.add(str(found["id"]))
        if tag == "html":
            self.page.lang = found.get("lang")
        for attribute in ("href", "src"):
            if found.get(attribute) and tag in ("a", "link", "script", "img"):
                self.page.links.append(str(found[attribute]))
        if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit():
            self.page.headings.append(int(tag[1]))
        if tag == "img":
            self.page.images.append(found)
        if tag == "label" and found.get("for"):
            self.page.labels.add(str(found["for"]))
        if tag in ("input", "select") and found.get("id"):
            self.page.inputs.append(str(found["id"]))


def parse(path: Path) -> Parsed:
    parser = _Parser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.page


def pages(site: Path) -> dict[Path, Parsed]:
    return {path: parse(path) for path in sorted(site.rglob("*.html"))}


def resolve(site: Path, page: Path, link: str) -> tuple[Path, str] | None:
    """The file and fragment a relative link of ``page`` names (None for a link off the site)."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc:
        return None
    target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    if target.is_dir():
        target = target / "index.html"
    assert target.is_relative_to(site.resolve()), f"{page}: {link} leaves the site"
    return target, unquote(parts.fragment)
