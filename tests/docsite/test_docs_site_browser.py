"""The documentation site as a reader meets it: built into a temporary folder, served by Python's http.server on
127.0.0.1 and opened in a real headless Chromium (Debian's ``chromium``, driven by Playwright for Python; its own
browser download is never used). The search finds ``session_lost`` and lands on its anchor, a deprecated field
links to its replacement, the version switcher switches, the search is reachable by keyboard, no page logs a
console error, axe-core finds no serious accessibility violation, and the screenshots at desktop and phone widths
(kept in the test's output folder) are pictures, not blank pages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.contract import contract_model, version_key
from verify_contract.generated import CONTRACT_VERSIONS, LATEST_VERSION

from site_pages import build
from user_cache import user_cache

# Debian's chromium on the PATH (.ci/run installs it), or the one VERIFY_CONTRACT_CHROMIUM names.
CHROMIUM = os.environ.get("VERIFY_CONTRACT_CHROMIUM") or shutil.which("chromium") or ""
# Headless, and nothing that reaches out: no background networking, updates, sync or QUIC.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
AXE_VERSION = "4.11.0"
WAIT_MS = 10_000

playwright_api = pytest.importorskip("playwright.sync_api")
if not CHROMIUM or not Path(CHROMIUM).is_file():
    pytest.skip("no chromium on the PATH (apt-get install chromium; .ci/run installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test's output folder: the screenshots stay here to be looked at."""
    return tmp_path_factory.mktemp("docs-browser")


@pytest.fixture(scope="module")
def site(output: Path) -> Path:
    return build(output / "site")


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site as a host serves it: Python's http.server on 127.0.0.1, an ephemeral port."""
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(site), "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        port = int(line.split(" port ")[1].split()[0])
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def browser(output: Path) -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(output / "profile"),  # a fresh user-data folder
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=VIEWPORTS["desktop"],
        )
        try:
            yield context
        finally:
            context.close()


class Console:
    """Console errors and uncaught exceptions of a page."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))


@pytest.fixture
def page(browser: Any) -> Iterator[tuple[Any, Console]]:
    opened = browser.new_page()
    console = Console(opened)
    yield opened, console
    opened.close()
    assert console.errors == []


def _lands_on(page: Any, anchor: str) -> None:
    """The page's target is ``anchor`` and it is scrolled into view (waited for: scrolling follows the URL)."""
    page.wait_for_function(
        """anchor => {
            const target = document.querySelector(':target');
            if (!target || target.id !== anchor) return false;
            const top = target.getBoundingClientRect().top;
            return top > -2 && top < window.innerHeight;  // scrolled to: at the top, give or take a subpixel
        }""",
        arg=anchor,
        timeout=WAIT_MS,
    )


@pytest.mark.parametrize("origin", ["http", "file"])
def test_search_finds_session_lost_and_lands_on_its_anchor(
    origin: str, served: str, site: Path, page: tuple[Any, Console]
) -> None:
    """Served, and opened from the disk (README: "open site/index.html"): the index is a script, not a fetch."""
    tab, _ = page
    tab.goto((served if origin == "http" else site.as_uri() + "/") + "index.html")
    tab.fill("#search", "session_lost")
    first = tab.locator("#search-results a").first
    first.wait_for(timeout=WAIT_MS)
    assert first.locator("code").inner_text() == "session_lost"
    tab.press("#search", "Enter")
    tab.wait_for_url("**/kinds/index.html#session_lost", timeout=WAIT_MS)
    _lands_on(tab, "session_lost")


def test_a_deprecated_field_leads_to_its_replacement(served: str, page: tuple[Any, Console]) -> None:
    tab, _ = page
    deprecated = next(f for f in contract_model(LATEST_VERSION).fields if f.deprecated)
    anchor = ".".join(deprecated.path)
    tab.goto(served + "index.html")
    tab.fill("#search", anchor)
    tab.locator("#search-results a").first.wait_for(timeout=WAIT_MS)
    tab.press("#search", "Enter")
    tab.wait_for_url(f"**/versions/{LATEST_VERSION}/index.html#{anchor}", timeout=WAIT_MS)
    tab.locator(f"[id='{anchor}'] a.replacement").click()
    replacement = contract_model(LATEST_VERSION).role("mask")
    assert replacement is not None
    tab.wait_for_url(f"**#{'.'.join(replacement.path)}", timeout=WAIT_MS)
    _lands_on(tab, ".".join(replacement.path))


def test_the_version_switcher_switches_and_keeps_the_anchor(served: str, page: tuple[Any, Console]) -> None:
    tab, _ = page
    oldest = min(CONTRACT_VERSIONS, key=version_key)
    tab.goto(served + f"versions/{LATEST_VERSION}/index.html#reward")
    tab.select_option("#version-switch", label=oldest)
    tab.wait_for_url(f"**/versions/{oldest}/index.html#reward", timeout=WAIT_MS)
    assert tab.locator("h1").inner_text() == f"Contract {oldest}"
    assert tab.locator("#version-switch").input_value().endswith(f"versions/{oldest}/index.html")


def test_the_search_is_reachable_by_keyboard(served: str, page: tuple[Any, Console]) -> None:
    tab, _ = page
    tab.goto(served + "rules/index.html")
    for _ in range(6):  # the skip link, the home link, then the search box
        tab.keyboard.press("Tab")
        if tab.evaluate("document.activeElement.id") == "search":
            break
    assert tab.evaluate("document.activeElement.id") == "search"
    tab.keyboard.type("reward-type")
    tab.locator("#search-results a").first.wait_for(timeout=WAIT_MS)
    tab.keyboard.press("ArrowDown")
    assert tab.evaluate("document.activeElement.textContent").startswith("reward-type")
    tab.keyboard.press("Enter")
    tab.wait_for_url("**/rules/index.html#reward-type", timeout=WAIT_MS)


def _axe_script() -> Path:
    """axe-core from npm, installed once per machine into the user's cache (like the Gym oracle venvs)."""
    folder = user_cache(f"axe-core-{AXE_VERSION}")
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: axe-core cannot be installed")
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder), f"axe-core@{AXE_VERSION}"],
            check=True,
            capture_output=True,
            timeout=300,
        )
    return script


PAGES = ("index.html", f"versions/{LATEST_VERSION}/index.html", "kinds/index.html", "rules/index.html")
PAGES += ("budget/index.html", "spec/index.html", "names/index.html", "profiles/index.html", "obligations/index.html")
PAGES += ("changes/index.html", "cli/index.html")


def test_axe_core_finds_no_serious_violation(served: str, page: tuple[Any, Console]) -> None:
    tab, _ = page
    script = _axe_script()
    found = {}
    for name in PAGES:
        tab.goto(served + name)
        tab.add_script_tag(path=str(script))
        result = tab.evaluate("axe.run(document, {resultTypes: ['violations']})")
        serious = [v["id"] for v in result["violations"] if v["impact"] in ("serious", "critical")]
        if serious:
            found[name] = serious
    assert found == {}


@pytest.mark.parametrize("width", list(VIEWPORTS))
def test_screenshots_are_pictures(served: str, browser: Any, output: Path, width: str) -> None:
    from matplotlib import image

    tab = browser.new_page()
    tab.set_viewport_size(VIEWPORTS[width])
    console = Console(tab)
    try:
        for name, path in (
            ("home", "index.html"),
            ("kinds", "kinds/index.html#session_lost"),
            ("budget", "budget/index.html"),
        ):
            tab.goto(served + path)
            tab.wait_for_load_state("load")
            shot = output / f"{name}-{width}.png"
            tab.screenshot(path=str(shot))
            pixels = image.imread(shot)
            assert pixels.shape[1] == VIEWPORTS[width]["width"]
            # Not blank: a page of text has many shades; a blank or failed page is one flat colour.
            assert float(pixels[..., :3].std()) > 0.05, shot
            assert len({tuple(p) for p in pixels[::7, ::7, :3].reshape(-1, 3).round(2).tolist()}) > 20, shot
    finally:
        tab.close()
    assert console.errors == []
