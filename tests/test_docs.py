"""The docs: the interactive API docs at /docs, with every asset from the service itself,
and the written ones (README.md, docs/), held to the code they describe."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service.api.schemas import MoveRequest
from tests.helpers import search, without_time

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
API_DOC = (ROOT / "docs" / "API.md").read_text()
ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_docs_page_is_swagger_ui_on_the_served_contract(client: FlaskClient) -> None:
    response = client.get("/docs/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    config = json.loads(search(r"var user_config = (\{.*?\});", html).group(1))
    assert config["url"] == "/openapi.yaml"
    # No validator badge: it would send the contract to a public web service.
    assert config["validatorUrl"] is None


def test_every_asset_of_the_docs_is_served_here(client: FlaskClient) -> None:
    html = client.get("/docs/").get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets
    assert not [asset for asset in assets if asset.startswith(("http:", "https:", "//"))]
    for asset in assets:
        with client.get(asset) as response:
            assert response.status_code == 200, asset


def test_the_docs_without_a_slash_lead_to_the_docs(client: FlaskClient) -> None:
    response = client.get("/docs")
    assert response.status_code in {301, 308}
    assert response.headers["Location"].endswith("/docs/")


def test_the_readme_is_a_way_in_of_at_most_250_lines() -> None:
    assert len(README.splitlines()) <= 250


@pytest.mark.parametrize(("doc", "at_least"), [("README.md", 1), ("docs/API.md", 4)])
def test_every_curl_example_gets_the_answer_its_doc_shows(
    client: FlaskClient, doc: str, at_least: int
) -> None:
    """Each curl example, sent to the app, gets the answer shown (wrapped) under it."""
    text = (ROOT / doc).read_text()
    examples = re.findall(r"```console\n\$ curl (.+?)\n```", text, flags=re.DOTALL)
    assert len(examples) >= at_least
    for example in examples:
        command, shown = example.split("\n", 1)
        while command.endswith("\\"):
            more, shown = shown.split("\n", 1)
            command = command[:-1] + more
        path = search(r"localhost:8000(/\S*)", command).group(1)
        body = search(r"-d '(.+)'", command).group(1)
        expected = json.loads("".join(line.strip() for line in shown.splitlines()))
        answer = client.post(path, data=body, content_type="application/json")
        assert without_time(answer.get_json()) == without_time(expected), command


def test_the_request_table_lists_every_field_of_a_move_request() -> None:
    """One unbroken table: a blank line inside it would push rows out of it."""
    section = API_DOC.split("### `POST /v1/move`", 1)[1]
    table = section[section.index("| field |") :].split("\n\n", 1)[0]
    fields = re.findall(r"^\| `([a-z_]+)` \| (?:required|optional) \|", table, flags=re.MULTILINE)
    assert fields == list(MoveRequest.model_fields)


@pytest.mark.parametrize("doc", DOCS, ids=str)
def test_every_link_of_a_doc_leads_to_a_file_of_the_repository(doc: Path) -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text())
    local = [target for target in targets if not target.startswith(("http:", "https:"))]
    assert not [target for target in local if not (doc.parent / target).exists()]


def test_the_module_map_names_every_module_of_the_package_and_no_other() -> None:
    """The map in docs/ARCHITECTURE.md, against the files the package holds."""
    block = ARCHITECTURE.split("## The module map", 1)[1].split("```\n", 2)[1]
    mapped, folders = set(), [""]  # the folders above an entry, by its indent (two a level)
    for line in block.splitlines():
        if entry := re.match(r"^((?:  ){1,4})(\w+)(/|\.py)", line):
            depth = len(entry.group(1)) // 2
            path = "".join(folders[:depth]) + entry.group(2)
            if entry.group(3) == "/":
                folders[depth:] = [entry.group(2) + "/"]
            else:
                mapped.add(path + ".py")
    present = {
        str(path.relative_to(ROOT / "service"))
        for path in (ROOT / "service").rglob("*.py")
        if path.name != "__init__.py"
    }
    assert mapped == present


def test_the_hostile_corpus_is_counted_once_and_rightly() -> None:
    corpus = json.loads((ROOT / "tests" / "data" / "hostile_requests.json").read_text())
    counts = [
        (doc.name, count)
        for doc in DOCS
        for count in re.findall(r"(\d[\d,]*) hostile\s+requests", doc.read_text())
    ]
    assert counts == [("RELIABILITY.md", str(len(corpus)))]


def test_performance_md_holds_only_what_its_generator_writes() -> None:
    """Each heading is one `python -m benchmarks` writes: a hand-written section would be
    erased by the next run, so it lives in docs/performance-analysis.md instead."""
    generator = (ROOT / "benchmarks" / "__main__.py").read_text()
    document = (ROOT / "docs" / "PERFORMANCE.md").read_text()
    headings = re.findall(r"^#+ .*$", document, flags=re.MULTILINE)
    assert len(headings) >= 5
    assert [heading for heading in headings if f'"{heading}"' not in generator] == []
