"""The contract's rules as SQL conditions (surveys/services/submissions/rules.py). The rules
as a whole are held against the ORM oracle by
tests/surveys/services/test_submissions_contract.py."""

import math
import random

import pytest
from django.db import connection

from dpengine import BoundedNumeric, report_bounds
from surveys.models import Question
from surveys.services.submissions.rules import NUMERIC_SLACK_SQL

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the statement's SQL runs on PostgreSQL only"
)
def test_the_statement_computes_every_numeric_slack_as_dpengine_does(make_survey):
    """The statement's slack (submissions.rules.NUMERIC_SLACK_SQL) on 400 stored questions with
    random ranges and ε against dpengine.report_bounds: equal to the unit."""
    survey = make_survey(questions=[{"text": "Q?"}], status="draft")
    rng = random.Random(23)
    rows = []
    for position in range(400):
        low = rng.randint(-1000, 1000)
        rows.append(
            Question(
                survey=survey,
                position=position + 100,
                text=f"N{position}?",
                kind=Question.Kind.NUMERIC,
                min_value=low,
                max_value=low + rng.randint(1, 1000),
                epsilon=rng.choice([rng.uniform(0.01, 2.2), math.log(3), 0.1, 2.0]),
            )
        )
    Question.objects.bulk_create(rows)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT q.min_value, q.max_value, q.epsilon, {NUMERIC_SLACK_SQL}"
            f" FROM {Question._meta.db_table} AS q WHERE q.survey_id = %s AND q.kind = 'numeric'",
            [survey.pk],
        )
        stored = cursor.fetchall()
    assert len(stored) == 400
    for low, high, epsilon, slack in stored:
        assert slack == report_bounds(BoundedNumeric(lo=low, hi=high, epsilon=epsilon)).slack
