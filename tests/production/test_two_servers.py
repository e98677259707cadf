"""Two app servers behind a real reverse proxy, sharing PostgreSQL: the deployment
docs/deploying.md describes ("Deploying rrsurvey", "The proxy in front").

Two ``gunicorn -c deploy/gunicorn.conf.py`` (production settings, two workers each, the same
SECRET_KEY) on one PostgreSQL database, behind Debian's HAProxy (``tests/live.py``: round robin,
health checks, a refused connection retried on the other server). Respondents and a
researcher send requests through the proxy while one server is frozen and then killed
(SIGSTOP, then SIGKILL of its master and workers: the requests it held are cut off). Checked
in the database: every accepted submission stored once, whole; every cut-off submission
resent with the same id accepted by the other server; the rate limit counted across both
servers (the database cache, shared through PostgreSQL; Redis is shared the same way).
"""

import http.client
import json
import os
import random
import re
import secrets
import signal
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import psycopg
import pytest

from tests.helpers import live_survey
from tests.live import gunicorn_server, haproxy, migrated_database

POSTGRES = re.match(r"postgres(ql)?://", os.environ.get("DATABASE_URL", "")) is not None

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not POSTGRES,
        reason="several app servers need PostgreSQL (docs/deploying.md: SQLite is for one "
        "machine); CI's PostgreSQL pass (.ci/run) runs this",
    ),
]

LIMIT = 25  # RESPONSE_RATE_LIMIT per client address and day, shared by both servers
CLIENTS = 8
PER_CLIENT = 40
PER_ADDRESS = 10  # submissions a load client sends from one address: well under LIMIT
QUESTIONS = 3
MAX_ATTEMPTS = 30
CUT_OFF = ("connection error", 502, 503, 504)
MAX_CREATED = 50  # surveys the researcher creates (then reads only), under the account's limit


@pytest.fixture(scope="module")
def cluster():
    env = {
        "SECRET_KEY": secrets.token_urlsafe(50),  # one key for both: sessions, throttle keys
        "TRUSTED_PROXIES": "1",
        "RESPONSE_RATE_LIMIT": f"{LIMIT}/d",
    }
    production = ("-c", "deploy/gunicorn.conf.py")
    with (
        migrated_database() as database_url,
        gunicorn_server(env=env, debug=False, args=production, database_url=database_url) as a,
        gunicorn_server(env=env, debug=False, args=production, database_url=database_url) as b,
        haproxy({"a": a, "b": b}) as proxy,
    ):
        yield SimpleNamespace(a=a, b=b, proxy=proxy, database_url=database_url)


def rows(cluster, sql, params=()):
    with psycopg.connect(cluster.database_url) as conn:
        return conn.execute(sql, params).fetchall()


def answered(stats):
    return sum(int(stats[f"hrsp_{kind}"] or 0) for kind in ("2xx", "3xx", "4xx", "5xx"))


def body(survey, rng):
    bits = {str(qid): rng.random() < 0.5 for qid in survey["question_ids"]}
    return {"submission_id": str(uuid.uuid4()), "answers": bits}


def responses_path(survey):
    return f"/api/v1/public/surveys/{survey['slug']}/responses/"


def test_the_rate_limit_counts_hits_on_both_servers_together(cluster):
    rng = random.Random(1)
    for attempt in range(2):  # once more if the run straddled the limit's window (a day)
        survey = live_survey(cluster.a, questions=QUESTIONS)
        day = time.time() // 86400
        before = cluster.proxy.stats()
        statuses = [
            cluster.proxy.request(
                "POST", responses_path(survey), body=body(survey, rng), source=f"127.3.{attempt}.1"
            )[0]
            for _ in range(LIMIT + 10)
        ]
        after = cluster.proxy.stats()
        if time.time() // 86400 == day:
            break
    served = {name: answered(after[name]) - answered(before[name]) for name in ("a", "b")}
    # Round robin: each server saw about half, fewer than LIMIT; counted apart, all would pass.
    assert served["a"] + served["b"] == LIMIT + 10
    assert min(served.values()) >= 10 and max(served.values()) < LIMIT
    assert statuses == [201] * LIMIT + [429] * 10
    stored = rows(
        cluster, "SELECT count(*) FROM surveys_submission WHERE survey_id = %s", [survey["id"]]
    )
    assert stored == [(LIMIT,)]


class Load:
    """Respondents (``CLIENTS`` threads) and a researcher, through the proxy.

    A respondent resends the same body (same submission id) after a connection error or a
    5xx, as the respondent page does. The researcher reads the estimates (retried likewise)
    and creates surveys (not retried: a create is not idempotent, so one cut off is unknown).
    """

    def __init__(self, cluster, survey):
        self.proxy = cluster.proxy
        self.survey = survey
        self.auth = {"Authorization": f"Token {survey['token']}"}
        self.accepted = {}  # submission id -> {question id: bit}, for every 201
        self.outcomes = Counter()
        self.researcher = Counter()
        self.created = []
        self.done = 0
        self.finished = threading.Event()
        self.lock = threading.Lock()
        self.progress = threading.Condition(self.lock)

    def _count(self, counter, outcome):
        with self.lock:
            counter[outcome] += 1

    def respondent(self, index):
        rng = random.Random(index)
        for sent in range(PER_CLIENT):
            submission = body(self.survey, rng)
            source = f"127.1.{index}.{sent // PER_ADDRESS + 1}"
            for _attempt in range(MAX_ATTEMPTS):
                try:
                    status, _h, _b = self.proxy.request(
                        "POST", responses_path(self.survey), body=submission, source=source
                    )
                except (OSError, http.client.HTTPException):
                    status = "connection error"
                self._count(self.outcomes, status)
                if status not in CUT_OFF:
                    break
            assert status == 201, status
            with self.lock:
                self.accepted[submission["submission_id"]] = {
                    int(qid): bit for qid, bit in submission["answers"].items()
                }
                self.done += 1
                self.progress.notify_all()

    def research(self):
        estimates = f"/api/v1/surveys/{self.survey['id']}/estimates/"
        made = 0
        while not self.finished.is_set():
            try:
                status, _h, _b = self.proxy.request("GET", estimates, headers=self.auth)
            except (OSError, http.client.HTTPException):
                status = "connection error"
            self._count(self.researcher, f"estimates {status}")
            made += 1
            if made > MAX_CREATED:
                continue
            new = {
                "title": f"Made during the run {made}",
                "p_truth": 0.5,
                "p_forced_yes": 0.5,
                "questions": [{"text": "Q?"}],
            }
            try:
                status, _h, reply = self.proxy.request(
                    "POST", "/api/v1/surveys/", body=new, headers=self.auth
                )
            except (OSError, http.client.HTTPException):
                status, reply = "connection error", None
            self._count(self.researcher, f"create {status}")
            if status == 201:
                self.created.append(json.loads(reply)["id"])

    def wait_for(self, done):
        with self.progress:
            self.progress.wait_for(lambda: self.done >= done, timeout=60)


def test_a_server_killed_mid_run_loses_nothing_and_doubles_nothing(cluster):
    survey = live_survey(cluster.a, questions=QUESTIONS)
    load = Load(cluster, survey)
    # One more respondent starts once server a is frozen: round robin sends one of its first
    # two submissions to a, where it is held, whatever the other clients are doing then (on a
    # busy machine they may all be waiting on b for a while).
    total = (CLIENTS + 1) * PER_CLIENT
    held = []

    def kill_a(pool):
        load.wait_for(CLIENTS * PER_CLIENT // 3)
        # Frozen first, so that it holds requests (connections accepted, never answered)...
        cluster.a.stop_all(signal.SIGSTOP)
        late = pool.submit(load.respondent, CLIENTS)
        deadline = time.monotonic() + 30
        while int(cluster.proxy.stats()["a"]["scur"]) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # polling HAProxy's counters, not timing a behaviour
        held.append(cluster.proxy.stats())
        # ...then gone, master and workers at once: the machine died.
        cluster.a.stop_all(signal.SIGKILL)
        return late

    with ThreadPoolExecutor(CLIENTS + 3) as pool:
        respondents = [pool.submit(load.respondent, index) for index in range(CLIENTS)]
        researcher = pool.submit(load.research)
        killer = pool.submit(kill_a, pool)
        for future in respondents:
            future.result()
        killer.result().result()
        load.finished.set()
        researcher.result()

    # The kill cut requests off, and every one of them was resent and accepted.
    at_kill = {name: (row["status"], row["scur"]) for name, row in held[0].items()}
    assert int(held[0]["a"]["scur"]) >= 1, (at_kill, load.outcomes, load.done)
    assert sum(load.outcomes[outcome] for outcome in CUT_OFF) >= 1, load.outcomes
    assert len(load.accepted) == total
    assert cluster.proxy.stats()["a"]["status"].startswith("DOWN")
    assert int(cluster.proxy.stats()["b"]["hrsp_2xx"]) > 0

    # Nothing lost, nothing doubled, each whole: the stored rows are exactly the accepted.
    stored = rows(
        cluster,
        "SELECT submission_id, reports FROM surveys_submission WHERE survey_id = %s",
        [survey["id"]],
    )
    ids = [str(submission_id) for submission_id, _reports in stored]
    assert len(ids) == len(set(ids)) == total
    reports = {
        str(submission_id): {int(key.removeprefix("q")): bit for key, bit in reports.items()}
        for submission_id, reports in stored
    }
    assert reports == load.accepted
    # The running tallies (sharded) agree with the stored rows.
    tallies = rows(
        cluster,
        "SELECT sum(responses) FROM surveys_tallyshard WHERE survey_id = %s",
        [survey["id"]],
    )
    assert tallies == [(total,)]
    per_question = Counter()
    for (shard,) in rows(
        cluster, "SELECT reports FROM surveys_tallyshard WHERE survey_id = %s", [survey["id"]]
    ):
        for key, (n, yes) in (json.loads(shard) if isinstance(shard, str) else shard).items():
            per_question[key, "n"] += n
            per_question[key, "yes"] += yes
    for qid in survey["question_ids"]:
        assert per_question[f"q{qid}", "n"] == total
        assert per_question[f"q{qid}", "yes"] == sum(bits[qid] for bits in load.accepted.values())

    # The researcher was served throughout: reads answered (a cut-off one is a 5xx, never a
    # wrong answer), and every survey created with a 201 is there, once.
    assert load.researcher["estimates 200"] >= 1, load.researcher
    assert not [key for key in load.researcher if key.startswith("estimates 4")]
    made = rows(
        cluster, "SELECT id FROM surveys_survey WHERE title LIKE %s", ["Made during the run %"]
    )
    uncertain = sum(load.researcher[f"create {outcome}"] for outcome in CUT_OFF)
    assert set(load.created) <= {row[0] for row in made}
    assert len(load.created) <= len(made) <= len(load.created) + uncertain
