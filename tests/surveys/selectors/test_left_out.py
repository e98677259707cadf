"""The questions a page leaves out, by kind: computed from the survey's questions, so a
sentence counting them counts what it names (issue 36 item 1)."""

import pytest

from surveys import selectors
from surveys.selectors import left_out
from surveys.selectors.mechanisms import reports_a_bit
from tests.helpers import EVERY_KIND_QUESTIONS, EVERY_KIND_SETTINGS

pytestmark = pytest.mark.django_db


@pytest.fixture
def every_kind(make_survey):
    return make_survey(questions=EVERY_KIND_QUESTIONS, status="draft", **EVERY_KIND_SETTINGS)


def test_each_question_is_named_by_its_kind(every_kind):
    kinds = [left_out.question_kind(question) for question in every_kind.questions.all()]
    assert kinds == [
        "yes_no",
        "yes_no",
        "compared",
        "cheating",
        "choice",
        "numeric",
        "direct",
        "text",
    ]


def test_what_a_page_leaves_out_is_counted_by_kind_with_where_it_is_analysed(every_kind):
    questions = list(every_kind.questions.all())
    kept = {question.pk for question in questions if reports_a_bit(question)}
    found = left_out.questions_left_out(questions=questions, kept_ids=kept)
    assert [(group.kind, group.count) for group in found] == [
        ("choice", 1),
        ("numeric", 1),
        ("direct", 1),
        ("text", 1),
        ("compared", 1),
        ("cheating", 1),
    ]
    by_kind = {group.kind: group.questions[0] for group in found}
    assert by_kind["numeric"].column == "Q6"
    assert by_kind["numeric"].anchor == f"result-{questions[5].pk}-title"
    assert by_kind["compared"].anchor == "control-group-title"
    assert sum(group.count for group in found) == len(questions) - len(kept)


def test_nothing_is_named_when_every_question_is_kept(every_kind):
    questions = list(every_kind.questions.all())
    kept = {question.pk for question in questions}
    assert left_out.questions_left_out(questions=questions, kept_ids=kept) == ()


def test_the_breakdown_keeps_compared_and_cheating_questions(every_kind):
    # Issue 33: their codes are broken down per group (selectors.breakdown_codes).
    office = selectors.direct_grouping_questions(survey=every_kind)[0]
    grouping = selectors.direct_grouping(survey=every_kind, question=office)
    result = selectors.survey_breakdown(survey=every_kind, grouping_question=grouping)
    assert [(group.kind, group.count) for group in result.left_out] == [
        ("choice", 1),
        ("numeric", 1),
        ("direct", 1),
        ("text", 1),
    ]
    assert [row.kind for row in result.sections] == ["yes_no", "yes_no", "compared", "cheating"]
    assert result.left_out_questions == 4


def test_the_regression_offers_compared_questions_but_not_cheating_detection(every_kind):
    questions = list(every_kind.questions.all())
    offered = selectors.regression_questions(questions)
    found = left_out.questions_left_out(
        questions=questions, kept_ids={question.pk for question in offered}
    )
    assert "compared" not in [group.kind for group in found]
    assert [group.kind for group in found][-1] == "cheating"
