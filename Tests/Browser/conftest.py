"""Fixtures for the browser suite (run it through scripts/browser.sh, which installs Chromium,
chromedriver and selenium and sets UMFA_BIN). The live `umfa serve` comes from the interop
suite's support.py; the browser, the virtual authenticator and the demo page from demo.py."""

import os
import shutil
import sys
from pathlib import Path
from typing import Callable

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Interop"))

from demo import Authenticator, DemoPage, Steps, chromium  # noqa: E402
from support import ADMIN_TOKEN, Server, umfa_binary  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test item, so fixtures know whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, "report_" + report.when, report)


@pytest.fixture(scope="session")
def umfa_bin(tmp_path_factory) -> Path:
    """A private copy of the binary: it must serve the page without the build folder."""
    copy = tmp_path_factory.mktemp("bin") / "umfa"
    shutil.copy2(umfa_binary(), copy)
    return copy


@pytest.fixture
def server(umfa_bin: Path, tmp_path: Path):
    """A `umfa serve` on a fresh data dir: the development application has the origin
    http://localhost:<port>, which is where the browser opens the page."""
    server = Server(umfa_bin, tmp_path, tmp_path / "data", {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}).start()
    yield server
    server.stop()


@pytest.fixture
def provider(umfa_bin: Path, tmp_path: Path):
    """A server whose public URL is the page's origin (http://localhost:<port>), so the hosted
    pages run on an origin of the development application; no mail server."""
    server = Server(umfa_bin, tmp_path, tmp_path / "data", {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN})
    server.env["UMFA_PUBLIC_URL"] = server.origin
    server.start()
    yield server
    server.stop()


@pytest.fixture
def driver():
    browser = chromium()
    yield browser
    browser.quit()


@pytest.fixture
def steps(driver, request) -> Steps:
    """Screenshots of every step; kept when the test fails (or UMFA_KEEP_SCREENSHOTS=1), removed
    when it passes."""
    steps = Steps(driver, request.node.name)
    yield steps
    failed = any(getattr(request.node, "report_" + phase, None) is not None
                 and getattr(request.node, "report_" + phase).failed for phase in ("setup", "call"))
    if failed:
        try:
            steps.shot("failure")
        except Exception:  # the browser itself may be gone
            pass
        print(f"\nscreenshots of the failed test: {steps.folder}")
    elif os.environ.get("UMFA_KEEP_SCREENSHOTS") != "1":
        shutil.rmtree(steps.folder, ignore_errors=True)


@pytest.fixture
def authenticator(driver) -> Callable[..., Authenticator]:
    """authenticator(user_verification=True, prf=None) -> a new virtual authenticator in the browser."""
    return lambda user_verification=True, prf=None: Authenticator(driver, user_verification, prf)


@pytest.fixture
def page(driver, server: Server, steps: Steps) -> DemoPage:
    return DemoPage(driver, server.origin, steps)


@pytest.fixture
def create_app(server: Server) -> Callable[..., dict]:
    """create_app(**settings) -> a new application (admin API answer: application_id, api_key, …),
    rp_id localhost, enrollment policy open and the page's origin unless the settings say otherwise."""
    def create(**settings) -> dict:
        body = {"name": "Browser test", "rp_id": "localhost", "origins": [server.origin],
                "enrollment_policy": "open", **settings}
        return server.ok("POST", "/api/admin/applications", body, status=201, bearer=ADMIN_TOKEN)
    return create
