"""The surveys the accessibility tests check pages on."""

import datetime

import numpy as np
import pytest
from django.utils import timezone

from surveys import services
from surveys.models import Survey
from surveys.services import grouping, public_release, translations
from tests.e2e.accessibility import DEPARTMENTS
from tests.helpers import translation_texts


@pytest.fixture
def surveys(make_survey):
    """A draft being built (every builder control) and an open survey with results to read,
    both with a grouping question (its own block on the respondent page)."""
    draft = make_survey(title="Exam honesty", status=Survey.Status.DRAFT)
    grouping.grouping_question_add(survey=draft, text="Your year?", options=("1st", "2nd"))
    # It checks comprehension: the respondent page has a practice round before the questions,
    # and the results page the comprehension table.
    survey = make_survey(min_n=5, status=Survey.Status.DRAFT, comprehension_check=True)
    grouping.grouping_question_add(
        survey=survey, text="Which department do you work in?", options=DEPARTMENTS
    )
    # Offered in every language: its respondent page speaks the browser's.
    translations.survey_translations_save(survey=survey, texts=translation_texts(survey))
    # The draft's Translations page: Korean half done (inputs, "missing" marks), no Chinese.
    translations.survey_translations_save(
        survey=draft,
        texts={"ko-title": "시험 정직성", "ko-g" + str(draft.grouping_questions.get().pk): "학년"},
    )
    survey = services.survey_open(survey=survey)
    # 40 simulated respondents in two departments; every report of the second question is
    # "no", so its unbiased estimate falls below 0% and the page shows the clamped value with
    # its footnote, and a department nobody chose shows how withheld cells read.
    reports = np.zeros((40, 2), dtype=bool)
    reports[::2, 0] = True
    sales, research, _support = survey.grouping_questions.get().options.all()
    # Received, and the public page switched on, three days ago: its schedule has made three
    # releases by today, the last one with these responses.
    three_days_ago = timezone.now().date() - datetime.timedelta(days=3)
    services.simulated_submissions_record(
        survey=survey,
        reports=reports,
        options=[[sales.pk]] * 25 + [[research.pk]] * 15,
        received_on=three_days_ago,
    )
    public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, today=three_days_ago
    )
    survey.refresh_from_db()
    return {"draft": draft, "open": survey}
