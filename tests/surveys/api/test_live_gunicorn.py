"""Against a real ``gunicorn --workers 2``: the submission limit is shared by the workers,
cannot be dodged with X-Forwarded-For, leaves no address in the cache, and oversized bodies
are refused cleanly. Each client is a distinct loopback source address (127.0.0.x)."""

import json
import re
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.slow

LIMIT = 20
BURST = 60


@pytest.fixture(scope="module")
def gunicorn_env():
    return {"RESPONSE_RATE_LIMIT": f"{LIMIT}/min", "TRUSTED_PROXIES": "0"}


@pytest.fixture(scope="module")
def live_survey(gunicorn, live_researcher):
    status, survey = gunicorn.json(
        "POST",
        "/api/v1/surveys/",
        headers=live_researcher,
        body={
            "title": "Live",
            "p_truth": 0.5,
            "p_forced_yes": 0.5,
            "questions": [{"text": "First?"}, {"text": "Second?"}],
        },
    )
    assert status == 201, survey
    status, survey = gunicorn.json(
        "POST", f"/api/v1/surveys/{survey['id']}/open/", headers=live_researcher
    )
    assert status == 200, survey
    return survey


def submit(server, survey, *, source, submission_id=None, headers=None):
    body = {
        "submission_id": str(submission_id or uuid.uuid4()),
        "answers": {str(q["id"]): True for q in survey["questions"]},
    }
    return server.request(
        "POST",
        f"/api/v1/public/surveys/{survey['slug']}/responses/",
        body=body,
        headers=headers,
        source=source,
    )


def response_count(server, survey, auth):
    return server.json("GET", f"/api/v1/surveys/{survey['id']}/", headers=auth)[1]["response_count"]


def test_the_limit_is_shared_by_both_workers_and_ignores_forwarded_for(
    gunicorn, live_survey, live_researcher
):
    def submit_from(source):
        return submit(gunicorn, live_survey, source=source)[0]

    # A burst must fall inside one rate window; if the minute turns during it, the next
    # client address repeats the burst in the new window.
    for source in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
        served_before = len(gunicorn.worker_pids())
        window = int(time.time() // 60)
        with ThreadPoolExecutor(max_workers=8) as pool:
            burst = list(pool.map(submit_from, [source] * BURST))
        spoofed = [
            submit(gunicorn, live_survey, source=source, headers={"X-Forwarded-For": fake})[0]
            for fake in ("203.0.113.1", "198.51.100.2, 203.0.113.3", source)
        ]
        other_client = submit(gunicorn, live_survey, source="127.0.0.99")[0]
        if int(time.time() // 60) == window:
            break
    assert Counter(burst) == {201: LIMIT, 429: BURST - LIMIT}
    assert spoofed == [429, 429, 429]
    assert other_client == 201
    served_by = Counter(gunicorn.worker_pids()[served_before : served_before + BURST])
    assert len(served_by) == 2, f"one worker served everything: {served_by}"
    assert sum(served_by.values()) == BURST


def test_the_counters_hold_no_client_address(gunicorn, live_survey):
    for _ in range(3):
        submit(gunicorn, live_survey, source="127.0.0.7")
    dump = gunicorn.manage(
        "shell",
        "-c",
        "import json\n"
        "from django.db import connection\n"
        "with connection.cursor() as c:\n"
        "    c.execute('SELECT key, hits, expires FROM surveys_ratecounter')\n"
        "    rows = c.fetchall()\n"
        "print(json.dumps([[k, repr(h), str(e)] for k, h, e in rows]))\n",
    )
    rows = json.loads(dump.strip().splitlines()[-1])
    assert rows, "the throttle counted nothing"
    text = json.dumps(rows)
    assert "127.0.0" not in text
    assert "203.0.113" not in text
    for key, value, _expires in rows:
        assert re.fullmatch(r"throttle:(responses|token):[0-9a-f]{32}", key)
        assert re.fullmatch(r"\d+", value)


def test_concurrent_replays_across_workers_are_stored_once(gunicorn, live_survey, live_researcher):
    before = response_count(gunicorn, live_survey, live_researcher)
    submission_id = uuid.uuid4()
    with ThreadPoolExecutor(max_workers=6) as pool:
        replies = list(
            pool.map(
                lambda i: submit(
                    gunicorn, live_survey, source=f"127.0.1.{i}", submission_id=submission_id
                ),
                range(12),
            )
        )
    assert {status for status, _headers, _body in replies} == {201}
    assert len({body for _status, _headers, body in replies}) == 1
    assert response_count(gunicorn, live_survey, live_researcher) == before + 1


def test_a_12_mib_body_gets_413_in_the_error_shape(gunicorn, live_survey, live_researcher):
    padding = "x" * (12 * 1024 * 1024)
    for path, headers in (
        (f"/api/v1/public/surveys/{live_survey['slug']}/responses/", {}),
        ("/api/v1/surveys/", live_researcher),
    ):
        status, _headers, body = gunicorn.request(
            "POST",
            path,
            body=json.dumps({"pad": padding}).encode(),
            headers={**headers, "Content-Type": "application/json"},
            source="127.0.0.8",
        )
        assert status == 413
        assert json.loads(body) == {
            "detail": "The request body is too large: at most 1048576 bytes.",
            "errors": {},
        }
