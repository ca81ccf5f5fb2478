"""Browser walks: Debian's Chromium, headless, driven by Selenium through Debian's
chromium-driver, against the live test server on loopback.

The set-up installs both from Debian's packages when they are missing (never a download
from elsewhere). Each walk saves a screenshot under `artifacts/screenshots/`."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

# Without the background-networking flags Chromium tries to reach Google's hosts at every
# start, which this machine's closed network refuses.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)


def _installed() -> bool:
    return os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)


def _debian_chromium_install() -> str | None:
    """Install Debian's chromium and chromium-driver when missing; None when they are
    there, else why they could not be installed.

    Test workers start together: a file lock lets one install while the others wait and
    then find it done. A machine whose package lists are stale gets them refreshed once."""
    if _installed():
        return None
    if not shutil.which("apt-get"):
        return "apt-get is not available to install Debian's chromium"
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [
        *sudo,
        "apt-get",
        "install",
        "-y",
        "--no-install-recommends",
        "chromium",
        "chromium-driver",
    ]
    with open(Path(tempfile.gettempdir()) / "chromium-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed():
            return None
        done = subprocess.run(install, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            subprocess.run([*sudo, "apt-get", "update"], env=env, capture_output=True, check=False)
            done = subprocess.run(install, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"installing chromium failed: {done.stderr.strip()[-400:]}"
    return None


@pytest.fixture(scope="session")
def chromium_driver_path():
    problem = _debian_chromium_install()
    if problem:
        # CI must run the walks (.ci/run sets CI=true); a laptop without root may skip them.
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(problem)
        pytest.skip(problem)
    return CHROMEDRIVER


@contextmanager
def _chromium(chromium_driver_path: str):
    """A headless Chromium with its own throwaway profile, quit on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(
        service=Service(executable_path=chromium_driver_path), options=options
    )
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def _browser_session(chromium_driver_path):
    with _chromium(chromium_driver_path) as driver:
        yield driver


@pytest.fixture
def second_browser(chromium_driver_path, live_server):
    """Another person's phone beside ``browser`` (a passenger watching while the driver
    works): a second Chromium, with its own cookies and storage."""
    with _chromium(chromium_driver_path) as driver:
        yield driver


@pytest.fixture
def browser(_browser_session, live_server):
    """A clean headless Chromium tab pointed at the live server: `browser.get(url)`.

    The tab is left blank afterwards: a walk that ends on a page that polls (the tracking
    page, the driver app) kept calling the session's live server through the tests that
    came after it on the same worker, which allow no database access, so each poll logged
    an error while those tests ran (and Python 3.11's traceback formatting parses source
    with ``ast``, which raced an ``ast.parse`` in core/tests/test_docstring_names.py into
    "SystemError: AST constructor recursion depth mismatch")."""
    _browser_session.delete_all_cookies()
    _browser_session.get(live_server.url + "/robots.txt")
    _browser_session.delete_all_cookies()
    yield _browser_session
    _browser_session.get("about:blank")


@pytest.fixture
def screenshot(browser):
    """`screenshot("walk-name")` saves the tab as artifacts/screenshots/walk-name.png."""

    def save(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        browser.save_screenshot(str(path))
        return path

    return save
