"""/openapi.json as third-party tools read it: valid OpenAPI 3.1 (openapi-spec-validator), and a
whole Python client from a widely used generator (openapi-python-client), in both pricing
variants (their checkout bodies differ)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from carimg.app import create_app
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.mcp.endpoint import MCP_PATH
from carimg.render import RenderPool

# The configuration the docs give users: image bodies read as bytes.
GENERATOR_CONFIG = Path(__file__).parents[2] / "docs" / "openapi-python-client.yaml"


@pytest.fixture(scope="module", params=["A", "B"])
def document(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, catalog: Catalog
) -> dict[str, Any]:
    """The document /openapi.json serves (built once per variant: it is the same for every
    database)."""
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("openapi"),
        base_url="http://testserver",
        pricing_variant=request.param,
        render_workers=0,
    )
    app = create_app(settings, catalog=catalog, render_pool=RenderPool(0))
    return app.openapi()


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    errors = [
        f"{'/'.join(str(part) for part in error.absolute_path)}: {error.message}"
        for error in OpenAPIV31SpecValidator(document).iter_errors()
    ]
    assert errors == []


def test_the_python_client_generator_keeps_every_operation_but_json_rpc(
    document: dict[str, Any], tmp_path: Path
) -> None:
    # The MCP endpoint's JSON-RPC messages are a union the generator does not model; any other
    # warning means a dropped operation, body or response.
    paths = {path: item for path, item in document["paths"].items() if path != MCP_PATH}
    source = tmp_path / "openapi.json"
    source.write_text(json.dumps(document | {"paths": paths}))
    # The generator formats its output with the ruff installed beside it.
    tools = str(Path(sys.executable).parent)
    result = subprocess.run(
        [
            sys.executable, "-m", "openapi_python_client", "generate",
            "--path", str(source),
            "--config", str(GENERATOR_CONFIG),
            "--meta", "none",
            "--output-path", str(tmp_path / "client"),
            "--fail-on-warning",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"PATH": tools + os.pathsep + os.environ.get("PATH", "")},
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stdout + result.stderr
