"""The project as a newcomer meets it: the README's commands, the package, the image's files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_the_quick_start_is_two_commands_one_to_serve_one_to_test() -> None:
    assert quick_start_commands() == [
        "pip install . && python -m service",
        "pip install -e '.[test]' && pytest",
    ]


def test_ci_runs_the_readmes_test_command_exactly() -> None:
    test_command = quick_start_commands()[1]
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_the_wheel_carries_the_contract_it_serves(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = tmp_path.glob("bestmove-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert archive.read("service/openapi.yaml") == (ROOT / "openapi.yaml").read_bytes()
    assert {"service/__init__.py", "service/__main__.py", "service/engine.py"} <= names
    assert not any(name.startswith("tests/") for name in names)


def test_the_domain_imports_neither_flask_nor_pydantic() -> None:
    for module in ("board", "legality", "minimax", "engine"):
        source = (ROOT / "service" / f"{module}.py").read_text()
        imports = re.findall(r"^(?:from|import) (\S+)", source, flags=re.MULTILINE)
        assert not [
            name for name in imports if name.split(".")[0] in {"flask", "pydantic", "werkzeug"}
        ]


def test_the_readme_documents_exactly_the_variables_the_service_reads() -> None:
    table = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", table, flags=re.MULTILINE))
    # The modules that read configuration (observability.py reads WSGI environs, not settings).
    readers = ["settings.py", "server.py", "app.py", "__main__.py", "healthcheck.py"]
    source = "\n".join((ROOT / "service" / name).read_text() for name in readers)
    read = {
        *re.findall(r'environ,\s*"([A-Z_]+)"', source),  # whole_number(environ, "PORT", ...)
        *re.findall(r'environ\.get\("([A-Z_]+)"', source),  # environ.get("HOST", ...)
        *re.findall(r'_VARIABLE = "([A-Z_]+)"', source),  # METRICS_DIR_VARIABLE = "..."
    }
    assert documented == read


def test_the_readmes_example_answers_are_the_real_ones(client: object) -> None:
    """Each curl example in the README, sent to the app, gets the answer the README shows."""
    examples = re.findall(r"```console\n\$ curl (.+?)\n```", README, flags=re.DOTALL)
    assert len(examples) >= 4
    for example in examples:
        command, shown = example.split("\n", 1)
        while command.endswith("\\"):
            more, shown = shown.split("\n", 1)
            command = command[:-1] + more
        path = re.search(r"localhost:8000(/\S*)", command).group(1)  # type: ignore[union-attr]
        body = re.search(r"-d '(.+)'", command).group(1)  # type: ignore[union-attr]
        expected = json.loads("".join(line.strip() for line in shown.splitlines()))
        answer = client.post(path, data=body, content_type="application/json")  # type: ignore[attr-defined]
        assert answer.get_json() == expected, command
