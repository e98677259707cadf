"""SPEC §2.5: no IP address or user agent reaches the database or any log, nor any request of a
respondent's (their page, their submission).

A gunicorn with the production configuration (deploy/gunicorn.conf.py, DEBUG off) logs to
files at the most verbose level both gunicorn and Django offer, with an access log whose
format asks for everything (client address, user agent, time, X-Forwarded-For): what an
operator might switch on while debugging. It listens on 127.0.0.2, and every request comes
from 127.0.0.1 with a marker user agent and a marker X-Forwarded-For. Afterwards neither the
logs nor a dump of every table contain any of the three.
"""

import re
import secrets
import socket
import time
import uuid

import pytest

from tests.helpers import database_dump, live_survey
from tests.live import development_server, gunicorn_server

pytestmark = pytest.mark.slow

CLIENT = "127.0.0.1"
SERVER = "127.0.0.2"
MARKER_AGENT = f"PrivacyMarkerAgent/{secrets.token_hex(6)}"
# An address from TEST-NET-2 (RFC 5737), as a proxy would forward it.
MARKER_FORWARDED = "198.51.100.173"
# Everything gunicorn can put in an access line, client details included.
GREEDY_ACCESS_FORMAT = (
    '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" '
    "%({x-forwarded-for}i)s %({user-agent}i)s %({remote_addr}e)s %(p)s"
)


@pytest.fixture(scope="module")
def server(collected_static):
    with gunicorn_server(
        workers=2,
        debug=False,
        host=SERVER,
        env={
            "ALLOWED_HOSTS": SERVER,
            "STATIC_ROOT": collected_static,
            "LOG_LEVEL": "DEBUG",
            # The throttle reads the forwarded address: it must not keep it either.
            "TRUSTED_PROXIES": "1",
            "RESPONSE_RATE_LIMIT": "4/min",
        },
        args=(
            "-c",
            "deploy/gunicorn.conf.py",
            "--log-level",
            "debug",
            "--access-logformat",
            GREEDY_ACCESS_FORMAT,
        ),
    ) as live:
        yield live


def send(server, method, path, *, body=None, headers=None):
    headers = {"User-Agent": MARKER_AGENT, "X-Forwarded-For": MARKER_FORWARDED, **(headers or {})}
    status, _headers, _body = server.request(
        method, path, body=body, headers=headers, source=CLIENT
    )
    return status


def send_malformed(server):
    """A request gunicorn itself rejects, quoting the offending header line in its error."""
    with socket.create_connection((server.host, server.port), source_address=(CLIENT, 0)) as sock:
        request = (
            f"GET / HTTP/1.1\r\nHost: {SERVER}\r\nUser-Agent: {MARKER_AGENT}\r\n"
            f"X-Forwarded-For: {MARKER_FORWARDED}\r\n{MARKER_AGENT} {MARKER_FORWARDED}\r\n\r\n"
        )
        sock.sendall(request.encode())
        return sock.recv(1024).split(b" ", 2)[1]


def without_settings_listing(log):
    """The log without the list of gunicorn's own settings it prints at start-up (at debug
    level), before any request: it names the addresses allowed to send proxy headers."""
    return re.sub(r"^.*Current configuration:\n(?:  .*\n)*", "", log, flags=re.MULTILINE)


def test_no_address_or_user_agent_reaches_the_database_or_any_log(server):
    survey = live_survey(server, questions=3)
    slug, ids = survey["slug"], survey["question_ids"]
    submissions = [str(uuid.uuid4()) for _ in range(3)]

    def answers(bit):
        return {str(qid): bit for qid in ids}

    statuses = {
        "respondent page": send(server, "GET", f"/s/{slug}/"),
        "home": send(server, "GET", "/"),
        "login page": send(server, "GET", "/accounts/login/"),
        "api docs": send(server, "GET", "/api/docs/"),
        "public survey": send(server, "GET", f"/api/v1/public/surveys/{slug}/"),
        "favicon": send(server, "GET", "/static/favicon.svg"),
        "researcher estimates": send(
            server,
            "GET",
            f"/api/v1/surveys/{survey['id']}/estimates/",
            headers={"Authorization": f"Token {survey['token']}"},
        ),
        "missing page": send(server, "GET", "/no/such/page/"),
        "missing survey": send(server, "GET", "/api/v1/public/surveys/no-such-survey/"),
        "bad json": send(
            server,
            "POST",
            f"/api/v1/public/surveys/{slug}/responses/",
            body=b"{not json",
            headers={"Content-Type": "application/json"},
        ),
        "login without csrf": send(
            server,
            "POST",
            "/accounts/login/",
            body=b"username=x&password=y",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        ),
        "foreign host": send(server, "GET", "/", headers={"Host": "evil.example"}),
        "malformed request": int(send_malformed(server)),
    }
    for index, submission_id in enumerate(submissions):
        body = {"submission_id": submission_id, "answers": answers(index % 2 == 0)}
        statuses[f"submission {index}"] = send(
            server, "POST", f"/api/v1/public/surveys/{slug}/responses/", body=body
        )
    statuses["throttled"] = send(
        server,
        "POST",
        f"/api/v1/public/surveys/{slug}/responses/",
        body={"submission_id": str(uuid.uuid4()), "answers": answers(True)},
    )
    assert statuses == {
        "respondent page": 200,
        "home": 200,
        "login page": 200,
        "api docs": 200,
        "public survey": 200,
        "favicon": 200,
        "researcher estimates": 200,
        "missing page": 404,
        "missing survey": 404,
        "bad json": 400,
        "login without csrf": 403,
        "foreign host": 400,
        "malformed request": 400,
        "submission 0": 201,
        "submission 1": 201,
        "submission 2": 201,
        "throttled": 429,
    }

    dump = database_dump(server)
    logs = {
        path.name: without_settings_listing(path.read_text())
        for path in (server.access_log, server.error_log)
    }
    # They are the real records: the submissions are in the dump, the requests in the logs,
    # gunicorn's and Django's debug lines in the error log.
    assert all(
        submission_id.replace("-", "") in dump.replace("-", "") for submission_id in submissions
    )
    assert "/accounts/login/" in logs["access.log"]
    assert "[DEBUG]" in logs["error.log"]
    assert "django.request Not Found: /no/such/page/" in logs["error.log"]
    # Respondents' requests leave no line at all, at any level (issue 12: a timestamped line
    # per submission would give the order in which people answered).
    for name, text in logs.items():
        assert slug not in text, f"the survey's slug found in {name}"
        assert "/api/v1/public/" not in text, f"a public API path found in {name}"
        assert "no-such-survey" not in text, f"a respondent's path found in {name}"

    for name, text in {"database": dump, **logs}.items():
        for marker in (MARKER_AGENT, CLIENT, MARKER_FORWARDED):
            assert marker not in text, f"{marker!r} found in {name}"
    # gunicorn's own line about the malformed request is there, without address or quote.
    assert "Invalid request refused (400): Invalid HTTP Header" in logs["error.log"]


# --- the respondent page's static files and translations (issue 24) ----------------------
# A respondent's browser loads the page, then its stylesheets, scripts (the modules the page
# names and the modules they import), icon and JavaScript catalog. One timestamped line per
# file would tell when someone opened the survey as surely as a line for the page itself.

_ASSET = re.compile(r'(?:src|href)="(/(?:static|jsi18n)/[^"]*)"')
_IMPORT = re.compile(r'(?:from|import)\s*"(\./[^"]+\.js)"')


def respondent_page_resources(server, slug):
    """Every URL the respondent page at ``slug`` loads besides itself, as a browser would
    find them: named in the page, or imported by one of its modules (relative imports)."""
    status, _headers, html = server.request("GET", f"/s/{slug}/")
    assert status == 200
    pending = [url.replace("&amp;", "&") for url in _ASSET.findall(html.decode())]
    found = []
    while pending:
        url = pending.pop()
        if url in found:
            continue
        found.append(url)
        status, _headers, body = server.request("GET", url)
        assert status == 200, url
        if url.endswith(".js"):
            folder = url.rsplit("/", 1)[0]
            pending += [f"{folder}/{name[2:]}" for name in _IMPORT.findall(body.decode())]
    return found


def assert_no_line_names(log, resources):
    for url in resources:
        path = url.split("?", 1)[0]
        assert path not in log, f"{path} found in the log"
        name = path.rstrip("/").rsplit("/", 1)[-1]  # "respond.d73b41264672.js", "jsi18n"
        assert name not in log, f"{name} found in the log"
    assert "/static/" not in log


def logged_after(paths, line):
    """The text of the log files at ``paths`` once ``line`` is in it: a server writes a
    request's line after its response, so the last request's line may still be coming."""
    deadline = time.monotonic() + 10
    while True:
        text = "\n".join(without_settings_listing(path.read_text()) for path in paths)
        if line in text or time.monotonic() > deadline:
            return text
        time.sleep(0.05)  # waiting for a write, not timing a behaviour


@pytest.fixture(scope="module")
def static_server(collected_static):
    """The production configuration at its most verbose, with an access log."""
    with gunicorn_server(
        workers=1,
        debug=False,
        env={"STATIC_ROOT": collected_static, "LOG_LEVEL": "DEBUG"},
        args=("-c", "deploy/gunicorn.conf.py", "--log-level", "debug"),
    ) as live:
        yield live


def test_the_respondent_pages_files_leave_no_line_in_productions_logs(static_server):
    survey = live_survey(static_server, questions=2)
    resources = respondent_page_resources(static_server, survey["slug"])
    # The page's modules (hashed names in production) and the catalog were all fetched.
    assert any("/jsi18n/" in url for url in resources)
    for module in ("respond", "coins", "memory", "designs", "exact", "body"):
        assert any(re.search(rf"/js/{module}(\.[0-9a-f]+)?\.js$", url) for url in resources)
    assert any(url.endswith(".css") for url in resources)
    # A researcher's page is still logged: the access log is on and working.
    assert send(static_server, "GET", "/accounts/login/") == 200
    logs = logged_after((static_server.access_log, static_server.error_log), "GET /accounts/login/")
    assert "GET /accounts/login/" in logs and "[DEBUG]" in logs
    assert survey["slug"] not in logs
    assert_no_line_names(logs, resources)


def test_the_respondent_pages_files_leave_no_line_in_make_runs_logs():
    """``make run`` serves with runserver and DEBUG=1; LOG_LEVEL=debug is its most verbose."""
    with development_server(env={"LOG_LEVEL": "DEBUG"}) as server:
        survey = live_survey(server, questions=2)
        resources = respondent_page_resources(server, survey["slug"])
        assert any("/jsi18n/" in url for url in resources)
        assert any(url.endswith("/js/body.js") for url in resources)
        assert send(server, "GET", "/accounts/login/") == 200
        log = logged_after((server.error_log,), '"GET /accounts/login/ HTTP/1.1" 200')
    # runserver's request lines and Django's debug lines reach this log: the researcher's
    # page is there, and the queries of the survey made for the test.
    assert '"GET /accounts/login/ HTTP/1.1" 200' in log
    assert "DEBUG django.db.backends" in log
    # Not even the queries that served the respondent's page (they name its slug).
    assert survey["slug"] not in log
    assert_no_line_names(log, resources)
