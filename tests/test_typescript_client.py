"""The TypeScript client (clients/typescript): its own tests with Vitest against a live
service, and the built package used from Node and from a browser."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from scripts.servers import RunningServer
from tests.helpers import missing_tool

CLIENT = Path(__file__).resolve().parent.parent / "clients" / "typescript"


def npm(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run npm in the client's folder; return what it did."""
    return subprocess.run(
        ["npm", *arguments],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def installed() -> Path:
    """Install the client's tools exactly as its committed package-lock.json pins them."""
    if shutil.which("npm") is None:
        missing_tool("npm", ".ci/run installs Node.js", "apt-get install nodejs npm")
    done = npm("ci", "--no-audit", "--no-fund")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return CLIENT


@pytest.fixture(scope="module")
def built(installed: Path) -> Path:
    done = npm("run", "build")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return installed / "dist" / "index.js"


def test_the_clients_own_tests_pass_against_the_live_service(
    installed: Path, server: RunningServer
) -> None:
    """Type-checked with tsc, then Vitest: typed answers, typed problems, Retry-After."""
    done = npm("test", env={"BESTMOVE_URL": server.base_url})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert "19 passed" in output


def test_the_client_has_no_runtime_dependency(installed: Path) -> None:
    package = json.loads((installed / "package.json").read_text())
    assert "dependencies" not in package
    lock = json.loads((installed / "package-lock.json").read_text())
    assert lock["packages"][""].get("dependencies") is None


def test_the_built_client_works_from_node(built: Path, server: RunningServer) -> None:
    script = (
        f"import {{ BestmoveClient }} from {json.dumps(built.as_uri())};\n"
        f"const client = new BestmoveClient({{ baseUrl: {json.dumps(server.base_url)} }});\n"
        "const answer = await client.move({ board: 'O.XX.X.OO' });\n"
        "console.log(JSON.stringify([answer.move, answer.outcome]));\n"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [4, "win"]


def test_the_built_client_works_in_a_browser(
    built: Path, server: RunningServer, browser: Browser
) -> None:
    """Chromium imports the built module as it is and asks the service through it."""
    page = browser.new_page()
    try:
        page.goto(server.base_url + "/healthz")
        answer = page.evaluate(
            """async (source) => {
                const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
                const { BestmoveClient, BestmoveError } = await import(url);
                const client = new BestmoveClient({ baseUrl: location.origin });
                const move = await client.move({ board: "O.XX.X.OO" });
                const refused = await client.move({ board: "XXXXX...." }).catch((error) => error);
                return [move.move, refused instanceof BestmoveError, refused.code];
            }""",
            built.read_text(),
        )
    finally:
        page.close()
    assert answer == [4, True, "mark_count_gap"]
