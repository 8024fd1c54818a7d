import os

from hypothesis import HealthCheck, settings

# numba compiles on first call; the first example of a property test may be slow.
settings.register_profile("sweeplab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "sweeplab"))


import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

# The suite's processes compile their kernels (from the cache the compiler fills below); the tests of the
# tiers (tests/test_tiers.py, tests/test_first_run.py) choose the mode they test.
os.environ.setdefault("SWEEPLAB_KERNELS", "compiled")


@pytest.hookimpl(trylast=True)  # (after the terminal's own, so that it can say what it waits for)
def pytest_configure(config):
    """Compile once, before the test workers start: on an empty kernel cache (a fresh clone, or any
    change to the sources, which keys the cache) two workers would each compile the same kernels at
    the same time, minutes of CPU each. The product's compiler (sweeplab.play.warm) runs its warm-ups
    in two processes side by side and fills the cache the workers then load from. Not in a worker, nor
    without workers, nor where the cache is complete."""
    if getattr(config, "workerinput", None) is not None or not getattr(config.option, "numprocesses", None):
        return
    from sweeplab._numba_cache import cache_dir
    from sweeplab._tiers import is_complete
    if is_complete(cache_dir()):
        return
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        terminal.write_line("compiling the kernels once before the test workers start (nothing is cached yet; a "
                            "minute or two)")
    # (a warm-up that fails leaves its kernels to the tests, which then say what broke)
    subprocess.run([sys.executable, "-m", "sweeplab.play.warm", "--jobs", "2"])


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
