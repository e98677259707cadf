"""Where rows lie in the database's files, before and after ``manage.py reorder_responses``
(issue 24; docs/respondent-page.md, "Threat model").

Submissions are stored one after another in a known order, each in its own transaction, as a
live server stores them, on a database of their own (SQLite file, or PostgreSQL when the suite
runs on it). The orderings a reader of the database can still use besides the keys
(tests/surveys/services/test_arrival_order.py) are compared with the sending order: on
PostgreSQL the physical position (``ctid``) and the writing transaction (``xmin``), on
SQLite each row's offset in the database file. Spearman's |ρ| must be below 0.2 after the
command (n = 400: four standard deviations of ρ without any relation).
"""

import json
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from tests.helpers import database_rows
from tests.live import development_server

pytestmark = pytest.mark.slow

COUNT = 400
BOUND = 0.2

SEND_IN_ORDER = """
import json, uuid
from django.contrib.auth import get_user_model
from surveys import services
from surveys.services import grouping
owner, _ = get_user_model().objects.get_or_create(username="order-owner")
survey = services.survey_create(
    owner=owner,
    title="Order",
    questions=["Q?", {{"text": "N?", "type": "numeric", "min": 0, "max": 10, "epsilon": 1.0}}],
)
grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B"])
survey = services.survey_open(survey=survey)
question, number = survey.questions.all()
gq = survey.grouping_questions.get()
options = list(gq.options.values_list("id", flat=True))
sent = []
for index in range({count}):
    submission_id = uuid.uuid4()
    services.submission_receive(
        slug=survey.slug,
        submission_id=str(submission_id),
        answers={{str(question.pk): index % 2 == 0, str(number.pk): index % 7}},
        groups={{str(gq.pk): options[index % 2]}},
    )
    sent.append(submission_id.hex)
print(json.dumps(sent))
"""


def rho(sent, ordered):
    position = {sid: index for index, sid in enumerate(sent)}
    assert sorted(position[sid] for sid in ordered) == list(range(len(sent)))
    return spearmanr(range(len(ordered)), [position[sid] for sid in ordered]).statistic


def physical_orders(server):
    """``{name: submission ids in that order}`` for each physical ordering of the database."""
    url = server.env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        # A row of the submissions table holds its id's hex text followed by its date (the
        # index on (survey, id) holds the hex without it): where each row lies in the file.
        raw = Path(url.removeprefix("sqlite:///")).read_bytes()
        rows = database_rows(server, "SELECT submission_id, received_on FROM surveys_submission")
        offsets = {sid: raw.find(f"{sid}{day}".encode()) for sid, day in rows}
        assert all(offset >= 0 for offset in offsets.values())
        return {"file offset": sorted(offsets, key=offsets.get)}
    ctid = database_rows(
        server, "SELECT replace(submission_id::text, '-', '') FROM surveys_submission ORDER BY ctid"
    )
    answers = database_rows(
        server,
        "SELECT replace(s.submission_id::text, '-', '') FROM surveys_groupanswer AS a"
        " JOIN surveys_submission AS s ON s.id = a.submission_id ORDER BY a.ctid",
    )
    return {
        "heap position": [sid for (sid,) in ctid],
        "grouping answers' heap position": [sid for (sid,) in answers],
    }


def transaction_numbers(server):
    """PostgreSQL: how many distinct writing transactions (xmin) the rows carry, per table
    (the numeric question's histogram too: its rows are rewritten by each report)."""
    return {
        table: database_rows(server, f"SELECT count(DISTINCT xmin::text) FROM {table}")[0][0]
        for table in ("surveys_submission", "surveys_groupanswer", "surveys_numerictally")
    }


def test_reorder_responses_leaves_no_arrival_order_in_the_files():
    with development_server() as server:
        out = server.manage("shell", "-c", SEND_IN_ORDER.format(count=COUNT))
        sent = json.loads(out.strip().splitlines()[-1])
        postgres = not server.env["DATABASE_URL"].startswith("sqlite:///")
        before = {name: rho(sent, order) for name, order in physical_orders(server).items()}
        if postgres:
            # The limit the command lifts: rows lie where and when they arrived.
            assert all(value > 0.99 for value in before.values()), before
            assert transaction_numbers(server)["surveys_submission"] == COUNT
            # Each histogram row (a value in a tally shard) last written by a different
            # submission: each submission writes one of them.
            histogram_rows = database_rows(server, "SELECT count(*) FROM surveys_numerictally")
            assert transaction_numbers(server)["surveys_numerictally"] == histogram_rows[0][0] > 7
        assert "rewritten" in server.manage("reorder_responses")
        after = {name: rho(sent, order) for name, order in physical_orders(server).items()}
        if postgres:
            assert transaction_numbers(server) == {
                "surveys_submission": 1,
                "surveys_groupanswer": 1,
                "surveys_numerictally": 1,
            }
        assert rows_intact(server) == COUNT
    assert all(abs(value) < BOUND for value in after.values()), (before, after)


def rows_intact(server):
    """Submissions whose grouping answer still points at them (the rewrite kept every row)."""
    return database_rows(
        server,
        "SELECT count(*) FROM surveys_submission AS s"
        " JOIN surveys_groupanswer AS a ON a.submission_id = s.id",
    )[0][0]
