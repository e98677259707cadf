"""Every researcher page and API route that shows what the responses say reads write-time
tallies, cells and stored releases, never the stored submissions (issue 34: flat to ten
million, measured by bench/bench_scale.py). Checked by structure, not by time: no statement
of a request names the submissions' or the grouping answers' table, and a request makes the
same number of statements at 60 and at 120 responses. The numbers shown are the rows'.
"""

from datetime import timedelta

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from surveys import services
from surveys.management.commands import seed_demo
from surveys.models import GroupAnswer, Submission, question_key
from surveys.services import grouping, public_release
from tests.routes import response_routes

pytestmark = pytest.mark.django_db

DAYS = 20
# The tables whose rows grow with every response.
RESPONSE_TABLES = ('"surveys_submission"', '"surveys_groupanswer"')


@pytest.fixture
def demo_survey(owner):
    """The bench's shape: the demo's questions, one grouping question of three options, the
    public page on since DAYS days ago (releasing every 7 days)."""
    survey = services.survey_create(
        owner=owner, title="Demo shape", questions=list(seed_demo.DEMO_QUESTIONS), min_n=5
    )
    grouping.grouping_question_add(
        survey=survey,
        text=seed_demo.DEMO_GROUPING_QUESTION,
        options=[label for label, _n, _truths in seed_demo.DEMO_DEPARTMENTS],
    )
    survey = services.survey_open(survey=survey)
    public_release.public_results_update(
        survey=survey,
        enabled=True,
        epsilon=1.0,
        release_days=7,
        releases=20,
        today=timezone.now().date() - timedelta(days=DAYS),
    )
    survey.refresh_from_db()
    return survey


def _add(survey, n, seed):
    rng = np.random.default_rng(seed)
    options = [o.pk for o in survey.grouping_questions.get().options.all()]
    services.simulated_submissions_record(
        survey=survey,
        reports=services.simulated_reports_draw(
            survey=survey, shares=seed_demo.true_values(), n=n, rng=rng
        ),
        options=rng.choice(options, size=(n, 1)).tolist(),
        received_on=timezone.now().date() - timedelta(days=DAYS - seed),
    )
    survey.refresh_from_db()
    # The releases due are made here, apart: making one reads the day counts (once per
    # release period, timed apart by the bench), what a page view then reads is stored.
    public_release.make_due_releases(survey=survey)
    return survey


def _statements(client, api, survey):
    """Per route: the SQL of one request (after a first, which may fill caches)."""
    found = {}
    for name, (path, is_api) in response_routes(survey_id=survey.pk, slug=survey.slug).items():
        reader = api if is_api else client
        assert reader.get(path).status_code == 200, name
        with CaptureQueriesContext(connection) as queries:
            response = reader.get(path)
            if response.streaming:
                b"".join(response.streaming_content)
        assert response.status_code == 200, name
        found[name] = [query["sql"] for query in queries.captured_queries]
    return found


@pytest.mark.slow  # 68 requests through the whole stack
def test_no_route_reads_the_responses_and_none_makes_more_statements_as_they_grow(
    demo_survey, owner_client, owner_api
):
    survey = _add(demo_survey, 60, seed=1)
    before = _statements(owner_client, owner_api, survey)
    for name, statements in before.items():
        scans = [sql for sql in statements if any(table in sql for table in RESPONSE_TABLES)]
        assert scans == [], (name, scans)
    survey = _add(survey, 60, seed=9)
    after = _statements(owner_client, owner_api, survey)
    assert {name: len(sql) for name, sql in after.items()} == {
        name: len(sql) for name, sql in before.items()
    }


def test_what_the_routes_read_is_what_the_rows_say(demo_survey, owner_api):
    """The tallies and cells the routes read count the stored rows exactly."""
    survey = _add(_add(demo_survey, 60, seed=1), 45, seed=9)
    rows = Submission.objects.filter(survey=survey)
    assert rows.count() == 105
    estimates = owner_api.get(f"/api/v1/surveys/{survey.pk}/estimates/").json()
    assert estimates["response_count"] == 105
    yes_no = [row for row in estimates["estimates"] if row["type"] == "yes_no"]
    assert len(yes_no) == 5  # four classic, one Warner
    for row in yes_no:
        key = question_key(row["question_id"])
        assert row["n"] == rows.filter(reports__has_key=key).count()
        assert row["yes"] == rows.filter(**{f"reports__{key}": True}).count()
    question = survey.questions.order_by("position").first()
    regression = owner_api.get(
        f"/api/v1/surveys/{survey.pk}/regression/", {"question": question.pk}
    ).json()
    assert regression["n"] == rows.filter(reports__has_key=question_key(question.pk)).count()
    (covariate,) = regression["covariates"]
    assert {level["option_id"]: level["respondents"] for level in covariate["levels"]} == {
        option.pk: GroupAnswer.objects.filter(option=option).count()
        for option in survey.grouping_questions.get().options.all()
    }
