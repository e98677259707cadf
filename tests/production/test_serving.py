"""Production serving as ``make serve`` does it: gunicorn with deploy/gunicorn.conf.py, WhiteNoise
serving the collected files under hashed names, compressed, cached for good."""

import gzip
import re
import runpy

import pytest

from tests.live import ROOT, gunicorn_server

pytestmark = pytest.mark.slow

CONFIG = ROOT / "deploy" / "gunicorn.conf.py"


@pytest.fixture(scope="module")
def server(collected_static):
    with gunicorn_server(
        workers=2, debug=False, env={"STATIC_ROOT": collected_static}, args=("-c", str(CONFIG))
    ) as live:
        yield live


def test_make_serve_uses_the_gunicorn_config_and_collects_static_files():
    makefile = (ROOT / "Makefile").read_text()
    serve = makefile.split("\nserve:", 1)[1].split("\n\n", 1)[0]
    assert "collectstatic --noinput" in serve
    assert "gunicorn -c deploy/gunicorn.conf.py" in serve


def test_gunicorn_config_keeps_the_access_log_off_and_client_details_out(monkeypatch):
    monkeypatch.delenv("GUNICORN_ACCESS_LOG", raising=False)
    config = runpy.run_path(str(CONFIG))
    assert config["accesslog"] is None
    assert config["wsgi_app"] == "config.wsgi:application"
    for atom in ("%(h)s", "%(a)s", "%(t)s", "%(f)s", "}i"):
        assert atom not in config["access_log_format"]
    assert config["logger_class"].__name__ == "PrivateLogger"


def test_pages_link_hashed_static_files_served_compressed_and_cached_for_good(server):
    status, _headers, body = server.request("GET", "/accounts/login/")
    assert status == 200
    stylesheet = re.search(rb'href="(/static/css/app\.[0-9a-f]{12}\.css)"', body)
    assert stylesheet, "no hashed stylesheet link"
    status, headers, compressed = server.request(
        "GET", stylesheet.group(1).decode(), headers={"Accept-Encoding": "gzip"}
    )
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert "immutable" in headers["Cache-Control"]
    assert b"{" in gzip.decompress(compressed)
