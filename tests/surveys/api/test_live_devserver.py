"""``make run``'s development server (runserver, WSGI-strict) answers oversized API bodies."""

import json

import pytest

from tests.live import development_server

pytestmark = pytest.mark.slow

TOO_LARGE = {"detail": "The request body is too large: at most 1048576 bytes.", "errors": {}}


@pytest.fixture(scope="module")
def devserver():
    with development_server() as server:
        yield server


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/v1/public/surveys/no-such-survey/responses/"),
        ("POST", "/api/v1/surveys/"),
        ("PATCH", "/api/v1/surveys/1/"),
        ("POST", "/api/v1/auth/token/"),
        ("POST", "/api/v1/no/such/route/"),
    ],
)
def test_a_body_over_one_mib_is_413_on_every_api_route(devserver, method, path):
    body = json.dumps({"pad": "x" * (1024 * 1024 + 1)}).encode()
    status, _headers, reply = devserver.request(
        method, path, body=body, headers={"Content-Type": "application/json"}
    )
    assert status == 413, reply[:300]
    assert json.loads(reply) == TOO_LARGE
    # WSGI forbids hop-by-hop headers; runserver answered 500 when the app set one.
    assert "Hop-by-hop" not in devserver.error_log.read_text()
