"""A survey goes viral: concurrent respondents against a live multi-worker gunicorn, then the
same while workers are killed. Nothing may be lost, doubled or stored half-way.

8 client threads x 150 submissions each, against ``gunicorn --workers 2`` with the production
configuration and no rate limit, on SQLite or (with DATABASE_URL) PostgreSQL. The checks read
the server's database directly: the stored submissions are exactly the accepted ones, each
with one report per question carrying the bit its client sent, and the running tallies equal
the stored reports.
"""

import http.client
import json
import os
import random
import signal
import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.helpers import database_rows, live_survey
from tests.live import gunicorn_server

pytestmark = pytest.mark.slow

CLIENTS = 8
PER_CLIENT = 150
QUESTIONS = 4
MAX_ATTEMPTS = 50


@pytest.fixture(scope="module")
def server():
    with gunicorn_server(
        workers=2,
        env={"RESPONSE_RATE_LIMIT": "off"},
        args=("-c", "deploy/gunicorn.conf.py"),
    ) as live:
        yield live


class Load:
    """``CLIENTS`` threads each sending ``PER_CLIENT`` submissions of random bits.

    With ``retry`` a client resends the same body (same submission id) after a connection
    error or a 5xx, as the respondent page does; without it, such an outcome is recorded.
    """

    def __init__(self, server, survey, *, retry):
        self.server = server
        self.path = f"/api/v1/public/surveys/{survey['slug']}/responses/"
        self.question_ids = survey["question_ids"]
        self.retry = retry
        self.sent = {}  # submission id -> {question id: bit}, for every 201
        self.outcomes = Counter()
        self.done = 0
        self.lock = threading.Lock()
        self.progress = threading.Condition(self.lock)

    def post(self, body):
        for _attempt in range(MAX_ATTEMPTS):
            try:
                status, _headers, _body = self.server.request("POST", self.path, body=body)
            except (OSError, http.client.HTTPException):
                with self.lock:
                    self.outcomes["connection error"] += 1
                if self.retry:
                    continue
                return None
            if status >= 500:
                with self.lock:
                    self.outcomes[status] += 1
                if self.retry:
                    continue
            return status
        raise AssertionError(f"no answer after {MAX_ATTEMPTS} attempts")

    def client(self, seed):
        rng = random.Random(seed)
        for _ in range(PER_CLIENT):
            bits = {str(qid): rng.random() < 0.5 for qid in self.question_ids}
            body = {"submission_id": str(uuid.uuid4()), "answers": bits}
            status = self.post(body)
            with self.lock:
                self.outcomes[f"final {status}"] += 1
                if status == 201:
                    self.sent[body["submission_id"]] = {int(k): v for k, v in bits.items()}
                self.done += 1
                self.progress.notify_all()

    def wait_for(self, done):
        with self.progress:
            self.progress.wait_for(lambda: self.done >= done)

    def run(self, *, during=None):
        with ThreadPoolExecutor(CLIENTS + 1) as pool:
            clients = [pool.submit(self.client, seed) for seed in range(CLIENTS)]
            side = pool.submit(during) if during else None
            for future in clients:
                future.result()
            if side:
                side.result()


def from_json(value):
    """A JSON column's value as read by the raw connection: SQLite hands back text."""
    return json.loads(value) if isinstance(value, str) else value


def stored_state(server, survey):
    submissions = database_rows(
        server,
        "SELECT submission_id, reports FROM surveys_submission WHERE survey_id = %s",
        [survey["id"]],
    )
    by_submission = {
        str(uuid.UUID(str(submission_id))): {
            int(key.removeprefix("q")): bit for key, bit in from_json(reports).items()
        }
        for submission_id, reports in submissions
    }
    # The survey's tallies are the sums over its tally shards.
    response_count, tallies = 0, {}
    for responses, reports in database_rows(
        server,
        "SELECT responses, reports FROM surveys_tallyshard WHERE survey_id = %s",
        [survey["id"]],
    ):
        response_count += responses
        for key, (n, yes) in from_json(reports).items():
            have_n, have_yes = tallies.get(key, (0, 0))
            tallies[key] = (have_n + n, have_yes + yes)
    return {
        "submission_ids": [str(uuid.UUID(str(row[0]))) for row in submissions],
        "reports": by_submission,
        "report_rows": sum(len(bits) for bits in by_submission.values()),
        "tallies": tallies,
        "response_count": response_count,
    }


def assert_stored_exactly(load, state):
    accepted = load.sent
    # Nothing lost, nothing doubled: the stored submissions are exactly the accepted ones.
    assert len(state["submission_ids"]) == len(set(state["submission_ids"]))
    assert set(state["submission_ids"]) == set(accepted)
    assert state["response_count"] == len(accepted)
    # Each one whole: one report per question, the bit its client sent.
    assert state["report_rows"] == len(accepted) * QUESTIONS
    assert state["reports"] == accepted
    # The running tallies the estimates read equal a recount of the stored reports.
    assert len(state["tallies"]) == QUESTIONS
    for qid, (n, yes) in state["tallies"].items():
        assert n == len(accepted)
        assert yes == sum(bits[int(qid.removeprefix("q"))] for bits in accepted.values())


def test_concurrent_respondents_are_all_stored_exactly_once(server):
    survey = live_survey(server, questions=QUESTIONS)
    load = Load(server, survey, retry=False)
    load.run()

    assert load.outcomes == Counter({"final 201": CLIENTS * PER_CLIENT})
    assert_stored_exactly(load, stored_state(server, survey))
    assert "database is locked" not in server.error_log.read_text()


def test_killed_workers_lose_nothing_and_store_nothing_twice_or_half(server):
    survey = live_survey(server, questions=QUESTIONS)
    load = Load(server, survey, retry=True)
    killed = []

    def kill_workers():
        # SIGKILL a worker at least three times during the load, and keep going (every 5% of
        # the load) until one kill has really cut a request off: a kill can land in the instant
        # a worker sits between two requests, and a crash test that cut nothing proves nothing.
        for step in range(1, 20):
            if len(killed) >= 3 and load.outcomes["connection error"] >= 1:
                return
            load.wait_for(step * CLIENTS * PER_CLIENT // 20)
            victim = next(pid for pid in server.worker_processes() if pid not in killed)
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    load.run(during=kill_workers)

    assert len(killed) >= 3
    assert not set(killed) & set(server.worker_processes())  # replaced by the master
    assert load.outcomes["connection error"] >= 1  # some requests really were cut off
    assert load.outcomes["final 201"] == CLIENTS * PER_CLIENT
    assert not [key for key in load.outcomes if isinstance(key, int)]  # no 5xx, ever
    assert_stored_exactly(load, stored_state(server, survey))
    assert "database is locked" not in server.error_log.read_text()
