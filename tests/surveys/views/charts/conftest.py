"""The charts' shared survey: one yes/no, one multiple-choice and one numeric question, with
known reports."""

import numpy as np
import pytest

from surveys import selectors, services

SVG = "{http://www.w3.org/2000/svg}"

TYPED = [
    {"text": "Yes or no?"},
    {
        "text": "Which <b>one</b>?",
        "type": "choice",
        "options": ["None", "A label longer than the chart's room", "<script>x</script>"],
    },
    {"text": "How many?", "type": "numeric", "min": 0, "max": 10, "epsilon": 2.0},
]


@pytest.fixture
def typed_estimates(make_survey):
    """``typed_estimates(n=200, min_n=10)``: the estimates of a survey of ``TYPED`` with ``n``
    responses, each option a third of them and the numbers 0..10 in turn (threshold 4)."""

    def estimates(*, n=200, min_n=10):
        survey = make_survey(questions=TYPED, min_n=min_n)
        reports = np.zeros((n, 3), dtype=np.int64)
        reports[:, 1] = np.arange(n) % 3  # options 0, 1, 2 in turn: a third each
        reports[:, 2] = np.arange(n) % 11  # 0..10 in turn
        services.simulated_submissions_record(survey=survey, reports=reports)
        survey.refresh_from_db()
        numeric = survey.questions.all()[2]
        return selectors.survey_estimates(survey=survey, thresholds={numeric.pk: 4})

    return estimates


@pytest.fixture
def chart_points():
    """The points an SVG chart marks."""
    return lambda root: [c for c in root.iter(f"{SVG}circle") if c.get("class") == "chart-point"]
