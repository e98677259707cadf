"""The breakdown of the questions whose report is a code (issue 33 item 4): a compared
question's two arms per group, a cheating-detection question's pi (and gamma or t) per group,
each group's numbers those of the whole-survey estimator run on that group's rows only; and a
breakdown by the comprehension check (passed the practice on the first try or not)."""

import uuid

import pytest

import dpengine
from surveys import selectors, services
from surveys.selectors.breakdown import survey_breakdown
from surveys.selectors.comprehension import comprehension_questions
from tests.helpers import CODED_QUESTIONS as QUESTIONS
from tests.helpers import CODED_ROWS as ROWS

pytestmark = pytest.mark.django_db


def _cheating_counts(rows, position):
    """``(n1, yes1, n2, yes2)`` of the code at ``position`` over ``rows``, counted here."""
    codes = [0, 0, 0, 0]
    for row, count in rows:
        codes[row[position]] += count
    return {
        "n1": codes[0] + codes[1],
        "yes1": codes[1],
        "n2": codes[2] + codes[3],
        "yes2": codes[3],
    }


def test_cheating_pi_per_group_is_the_estimator_on_that_groups_rows(coded_survey):
    survey, department = coded_survey
    result = survey_breakdown(survey=survey, grouping_question=department)
    cdm, compared, sld = result.code_rows
    assert (cdm.kind, compared.kind, sld.kind) == ("cheating", "compared", "cheating")
    assert [cdm.column, compared.column, sld.column] == ["Q1", "Q2", "Q4"]
    questions = list(survey.questions.all())
    for row, position in ((cdm, 0), (sld, 3)):
        design = selectors.question_design(questions[position], survey=survey)
        for cell in row.cells:
            counts = _cheating_counts(ROWS[cell.label], position)
            expected = dpengine.estimate_cheating(
                design=design, confidence=survey.confidence, **counts
            )
            assert (cell.row.estimate.n1, cell.row.estimate.yes1) == (counts["n1"], counts["yes1"])
            assert cell.row.pi.estimate == expected["pi"].clamped
            assert cell.row.pi.closed_form == expected["pi"].estimate
            assert cell.row.pi.std_error == expected["pi"].std_error
            assert (cell.row.pi.ci_low, cell.row.pi.ci_high) == (
                min(expected["pi"].ci_low, expected["pi"].clamped),
                max(expected["pi"].ci_high, expected["pi"].clamped),
            )
        # Everyone in a group together: the whole survey's row (nobody skipped the grouping).
        whole = selectors.survey_estimates(survey=survey)
        survey_row = next(r for r in whole.rows if r.question_id == row.question_id)
        assert row.overall.row.pi.closed_form == survey_row.pi.closed_form


# RRreg 0.7.5 (R 4.x), per group's rows of ROWS: for each coin group g the reports
# y <- c(rep(0, no1), rep(1, yes1), rep(0, no2), rep(1, yes2)), g <- c(rep(1, n1), rep(2, n2)),
# f <- RRuni(response = y, model = "CDM" (p = c(0.25, 0.75)) or "SLD" (p = c(0.3, 0.8)),
#            group = g, MLest = FALSE); sprintf("%.17g", c(f$pi, f$piSE)).
# (no1, yes1, no2, yes2) -> (pi, se): RRreg's closed form, also where it leaves [0, 1].
RRREG_PI = {
    ("cdm", "Sales"): ((4, 2, 2, 4), 0.16666666666666669, 0.33333333333333337),
    ("cdm", "Office"): ((3, 2, 1, 7), 0.16250000000000009, 0.37270128789688939),
    ("sld", "Sales"): ((4, 2, 0, 6), 2.3333333333333335, 0.4216370213557839),
    ("sld", "Office"): ((2, 3, 1, 7), 1.55, 0.55000000000000004),
}


def test_pi_per_group_equals_rrreg_on_each_groups_rows(coded_survey):
    survey, department = coded_survey
    cdm, _compared, sld = survey_breakdown(survey=survey, grouping_question=department).code_rows
    for row in (cdm, sld):
        for cell in row.cells:
            counts, pi, std_error = RRREG_PI[row.design_name, cell.label]
            found = cell.row.estimate
            assert (found.n1 - found.yes1, found.yes1, found.n2 - found.yes2, found.yes2) == counts
            assert cell.row.pi.closed_form == pytest.approx(pi, rel=1e-12)
            assert cell.row.pi.std_error == pytest.approx(std_error, rel=1e-12)
            # Shown: the likelihood's maximum on [0, 1], inside its interval.
            assert 0 <= cell.row.pi.ci_low <= cell.row.pi.estimate <= cell.row.pi.ci_high <= 1


def test_compared_arms_per_group_are_counted_from_their_codes(coded_survey):
    survey, department = coded_survey
    compared = survey_breakdown(survey=survey, grouping_question=department).code_rows[1]
    design = selectors.question_design(list(survey.questions.all())[1], survey=survey)
    for cell in compared.cells:
        codes = [0, 0, 0, 0]
        for row, count in ROWS[cell.label]:
            codes[row[1]] += count
        assert cell.arms.randomized_n == codes[0] + codes[1]
        assert cell.arms.randomized_yes == codes[1]
        assert cell.arms.direct_n == codes[2] + codes[3]
        assert cell.arms.direct_yes == codes[3]
        expected = dpengine.estimate(
            yes=codes[1], n=codes[0] + codes[1], design=design, confidence=survey.confidence
        )
        assert cell.randomized.estimate == pytest.approx(expected.estimate, abs=1e-15)
        assert cell.direct.share == codes[3] / (codes[2] + codes[3])
    # Withheld per arm below the survey's minimum n (5): Sales has 6 randomized, 6 direct.
    sales, office = compared.cells
    assert (sales.randomized_shown, sales.direct_shown) == (True, True)
    assert (office.arms.randomized_n, office.arms.direct_n) == (8, 5)


def test_compared_and_cheating_are_no_longer_left_out(coded_survey):
    survey, department = coded_survey
    result = survey_breakdown(survey=survey, grouping_question=department)
    assert [row.column for row in result.rows] == ["Q3"]
    assert result.left_out == ()
    assert result.left_out_questions == 0


def test_breakdown_by_a_direct_question_counts_codes_by_its_answers(make_survey):
    survey = make_survey(
        questions=[*QUESTIONS[:2], {"text": "Office?", "randomized": False}],
        min_n=1,
        control_share=0.5,
    )
    ids = [question.pk for question in survey.questions.all()]
    for cdm, compared, office in [(1, 0, True), (3, 3, True), (0, 2, False), (2, 1, True)]:
        services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(ids[0]): cdm, str(ids[1]): compared, str(ids[2]): office},
        )
    direct = selectors.direct_grouping(survey=survey, question=survey.questions.all()[2])
    cdm, compared = survey_breakdown(survey=survey, grouping_question=direct).code_rows
    yes, no = cdm.cells  # the direct question's "Yes" group first
    assert (yes.row.estimate.n1, yes.row.estimate.yes1, yes.row.estimate.n2) == (1, 1, 2)
    assert (no.row.estimate.n1, no.row.estimate.n2) == (1, 0)
    yes, no = compared.cells
    assert (yes.arms.randomized_n, yes.arms.randomized_yes, yes.arms.direct_yes) == (2, 1, 1)
    assert (no.arms.direct_n, no.arms.direct_yes) == (1, 0)


def test_estimates_split_by_the_comprehension_check(coded_survey):
    survey, _department = coded_survey
    check = comprehension_questions(survey=survey)[0]
    by_practice = selectors.direct_grouping(survey=survey, question=check)
    result = survey_breakdown(survey=survey, grouping_question=by_practice)
    understood, not_understood = result.options
    assert (understood.label, not_understood.label) == (
        "Right on the first try",
        "Not on the first try",
    )
    # The first two rows of each group answered the practice right on the first try.
    assert understood.respondents == 6 + 5
    assert not_understood.respondents == 6 + 8
    (bit_row,) = result.rows
    passed, failed = bit_row.cells
    assert (passed.estimate.n, passed.estimate.yes) == (11, 2 + 3)
    assert (failed.estimate.n, failed.estimate.yes) == (14, 4 + 4)
    cdm = result.code_rows[0]
    assert cdm.cells[0].row.n == 11
