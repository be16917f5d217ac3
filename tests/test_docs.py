"""Interactive API docs at /docs, with every asset from the service itself."""

from __future__ import annotations

import json
import re

from flask.testing import FlaskClient

from tests.helpers import search


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
