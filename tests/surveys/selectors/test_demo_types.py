"""The demo of `make run` shows every question type, and simulate_responses fills them."""

import io

import pytest
from django.core.management import call_command

from surveys import selectors
from surveys.management.commands.seed_demo import DEMO_TITLE, true_values
from surveys.models import Survey


def test_seed_demo_has_every_type_with_estimates_near_the_truth(db):
    call_command("seed_demo", stdout=io.StringIO())
    survey = Survey.objects.get(title=DEMO_TITLE)
    rows = selectors.survey_estimates(survey=survey).rows
    assert [row.design_name for row in rows] == [
        *["forced_response"] * 4,
        "warner",
        "choice",
        "numeric",
    ]
    truth = true_values()
    # Seeded (the command's default seed), 3,000 respondents: tolerances of about 4
    # standard errors of each estimator at that n.
    assert rows[4].estimate.estimate == pytest.approx(truth[4], abs=0.08)
    assert [o.estimate for o in rows[5].options] == pytest.approx(truth[5], abs=0.08)
    assert rows[6].mean.estimate == pytest.approx(truth[6], abs=0.3)
    # Offered in every site language: each question's text is translated.
    assert set(survey.questions.all()[5].translations) >= {"ko", "zh-hans"}


def test_simulate_responses_fills_every_type(make_survey):
    survey = make_survey(
        questions=[
            {"text": "Yes or no?"},
            {"text": "Which?", "type": "choice", "options": ["A", "B"]},
            {"text": "How many?", "type": "numeric", "min": 0, "max": 10},
        ]
    )
    # A slug may start with "-" (token_urlsafe's alphabet): this one does.
    Survey.objects.filter(pk=survey.pk).update(slug="-" + survey.slug[1:])
    survey.refresh_from_db()
    out = io.StringIO()
    # "--" before the slug, so that argparse does not read it as an option.
    call_command(
        "simulate_responses",
        "--n",
        "50",
        "--p",
        "0.4",
        "--seed",
        "1",
        "--",
        survey.slug,
        stdout=out,
    )
    assert "Added 50 simulated respondents" in out.getvalue()
    tallies = selectors.survey_tallies(survey=survey)
    assert [tallies.reports_of(q.pk) for q in survey.questions.all()] == [50, 50, 50]
    assert sum(tallies.counts_of(survey.questions.all()[1].pk, width=2)) == 50
