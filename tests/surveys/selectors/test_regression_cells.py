"""The regression reads its cells kept at write time (``GroupCell``), not the submissions: the
same counts, left-out reports and fit as the stored rows give, through every write path
(the statement or SQLite's writes, the ORM transaction, bulk simulation and its recount),
with skipped and "Prefer not to say" answers, and none left after a pilot is discarded. A
survey of one grouping question keeps no cells: its regression reads the per-(question,
option) tallies, and gives the same."""

import random
import uuid
from collections import Counter

import numpy as np
import pytest

import dpengine
from surveys import selectors, services
from surveys.models import PREFER_NOT_TO_SAY, GroupAnswer, GroupCell, Submission
from surveys.selectors import RegressionStatus
from surveys.services import grouping

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_groupings(make_survey):
    """An open two-question survey with two grouping questions (3 and 2 options)."""
    survey = make_survey(status="draft", min_n=5)
    grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B", "C"])
    grouping.grouping_question_add(survey=survey, text="Site?", options=["North", "South"])
    return services.survey_open(survey=survey)


def _submit(survey, rng, count):
    """``count`` submissions through the public path: each grouping question answered,
    declined ("Prefer not to say") or skipped; now and then an optional question skipped."""
    questions = list(survey.questions.values_list("id", flat=True))
    groupings = [
        (gq.pk, list(gq.options.values_list("id", flat=True)))
        for gq in survey.grouping_questions.all()
    ]
    for _ in range(count):
        groups = {}
        for gid, options in groupings:
            draw = rng.random()
            if draw < 0.8:
                groups[str(gid)] = rng.choice(options)
            elif draw < 0.9:
                groups[str(gid)] = PREFER_NOT_TO_SAY
        answers = {str(qid): rng.random() < 0.4 for qid in questions}
        services.submission_receive(
            slug=survey.slug, submission_id=str(uuid.uuid4()), answers=answers, groups=groups
        )


def _from_rows(survey, question):
    """What the regression used to read: each report of ``question`` with its submission's
    option for every grouping question now; complete cases counted, the rest left out."""
    grouping_ids = list(survey.grouping_questions.values_list("id", flat=True))
    chosen = {}
    for sub, gid, oid in GroupAnswer.objects.filter(submission__survey=survey).values_list(
        "submission_id", "grouping_question_id", "option_id"
    ):
        chosen.setdefault(sub, {})[gid] = oid
    cells, left_out = Counter(), 0
    key = f"q{question.pk}"
    for sub, reports in Submission.objects.filter(survey=survey).values_list("id", "reports"):
        if key not in reports:
            continue
        options = tuple(chosen.get(sub, {}).get(gid) for gid in grouping_ids)
        if None in options:
            left_out += 1
        else:
            cells[options, bool(reports[key])] += 1
    return cells, left_out


def _assert_regression_is_the_rows(survey):
    for question in survey.questions.all():
        result = selectors.survey_regression(survey=survey, question=question)
        cells, left_out = _from_rows(survey, question)
        assert (result.n, result.left_out) == (sum(cells.values()), left_out)
        chosen = Counter()
        for (options, _bit), count in cells.items():
            for oid in options:
                chosen[oid] += count
        assert {
            level.option_id: level.respondents for c in result.covariates for level in c.levels
        } == {
            option.pk: chosen[option.pk]
            for gq in survey.grouping_questions.all()
            for option in gq.options.all()
        }
        if result.status == RegressionStatus.FITTED:
            columns = [
                level.option_id
                for c in result.covariates
                for level in c.levels
                if level.role == "coefficient"
            ]
            rows = [key for key, count in cells.items() for _ in range(count)]
            X = np.array([[float(oid in options) for oid in columns] for options, _bit in rows])
            fit = dpengine.fit_logistic(
                X, np.array([bit for _options, bit in rows]), design=dpengine.CLASSIC
            )
            assert [c.estimate for c in result.coefficients] == pytest.approx(fit.coef, rel=1e-6)


@pytest.mark.parametrize("statement", [True, False], ids=["database path", "ORM transaction"])
def test_the_cells_give_what_the_stored_rows_give(two_groupings, settings, statement):
    settings.SUBMISSION_STATEMENT = statement
    _submit(two_groupings, random.Random(7), 160)
    # A few submissions with no grouping answer at all: in no cell, left out.
    for _ in range(5):
        services.submission_receive(
            slug=two_groupings.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(q): True for q in two_groupings.questions.values_list("id", flat=True)},
        )
    keys = set(GroupCell.objects.values_list("key", flat=True))
    assert any(":-" in key for key in keys) and any("," not in key for key in keys)
    _assert_regression_is_the_rows(two_groupings)


@pytest.mark.parametrize("statement", [True, False], ids=["database path", "ORM transaction"])
def test_one_grouping_question_keeps_no_cells_and_its_tallies_give_the_rows(
    make_survey, settings, statement
):
    settings.SUBMISSION_STATEMENT = statement
    survey = make_survey(status="draft", min_n=5)
    grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B", "C"])
    survey = services.survey_open(survey=survey)
    _submit(survey, random.Random(12), 160)
    rng = np.random.default_rng(5)
    options = list(survey.grouping_questions.get().options.values_list("id", flat=True))
    services.simulated_submissions_record(
        survey=survey,
        reports=rng.random((200, 2)) < 0.3,
        options=[[int(rng.choice(options))] for _ in range(200)],
    )
    assert not GroupCell.objects.filter(question__survey=survey).exists()
    _assert_regression_is_the_rows(survey)
    services.group_tallies_rebuild(survey=survey)
    assert not GroupCell.objects.filter(question__survey=survey).exists()
    _assert_regression_is_the_rows(survey)


def test_the_recount_gives_the_cells_the_writes_kept(two_groupings):
    _submit(two_groupings, random.Random(8), 120)
    kept = sorted(GroupCell.objects.totals())
    services.group_tallies_rebuild(survey=two_groupings)
    assert sorted(GroupCell.objects.totals()) == kept


def test_simulated_responses_are_counted_in_cells(two_groupings):
    rng = np.random.default_rng(4)
    groupings = [
        list(gq.options.values_list("id", flat=True))
        for gq in two_groupings.grouping_questions.all()
    ]
    options = [[int(rng.choice(o)) for o in groupings] for _ in range(300)]
    services.simulated_submissions_record(
        survey=two_groupings, reports=rng.random((300, 2)) < 0.4, options=options
    )
    _submit(two_groupings, random.Random(9), 40)  # and real ones on top of them
    _assert_regression_is_the_rows(two_groupings)


def test_a_discarded_pilot_leaves_no_cells(make_survey):
    survey = make_survey(status="draft", min_n=5)
    grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B"])
    grouping.grouping_question_add(survey=survey, text="Site?", options=["North", "South"])
    survey = services.survey_pilot_start(survey=survey)
    _submit(survey, random.Random(11), 20)
    assert GroupCell.objects.filter(question__survey=survey).exists()
    services.survey_pilot_discard(survey=survey)
    assert not GroupCell.objects.filter(question__survey=survey).exists()
