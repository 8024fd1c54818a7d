import os

from hypothesis import HealthCheck, settings

# numba compiles on first call; the first example of a property test may be slow.
settings.register_profile("sweeplab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "sweeplab"))


import pytest  # noqa: E402


# Tests that take a second or more on the shared 2-core box carry @pytest.mark.slow themselves, so
# that the quick subset (`scripts/test --quick`: not slow, not browser) stays under a minute; they still
# run in the whole suite, which is what CI runs. Tests that drive the browser are marked here, by fixture.
def pytest_collection_modifyitems(config, items):
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)

# The browser the end-to-end tests drive: Debian's chromium, or another binary named in SWEEPLAB_CHROMIUM.
CHROMIUM = os.environ.get("SWEEPLAB_CHROMIUM", "/usr/bin/chromium")
NO_CHROMIUM = (f"{CHROMIUM} is missing: the browser tests drive Debian's chromium; install it with "
               "`apt-get install chromium` as root (scripts/test does), or name another binary in SWEEPLAB_CHROMIUM")


ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def chromium() -> dict:
    """Playwright's launch arguments for the browser; a missing binary fails each browser test with one
    line (never a skip)."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(NO_CHROMIUM, pytrace=False)
    return {"executable_path": CHROMIUM, "args": ARGS}


@pytest.fixture(scope="module")
def browser(chromium):
    """One browser for a module's tests."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(**chromium)
        yield b
        b.close()


@pytest.fixture(scope="module")
def viewport() -> dict:
    """The page's size; a module whose pages need another size defines its own `viewport`."""
    return {"width": 1200, "height": 900}


@pytest.fixture()
def page(browser, viewport):
    """A fresh page of the module's browser; the test fails if the page's script threw."""
    ctx = browser.new_context(viewport=viewport)
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert errors == []
