"""Question types and yes/no designs as services store them: the spec checked field by field,
typed reports validated and counted, the fingerprint and the privacy ledger per type."""

import math
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from surveys import selectors, services
from surveys.models import Question, Submission, Survey
from surveys.services.question_types import DEFAULT_EPSILON, clean_question_type
from tests.helpers import MIXED_QUESTIONS, survey_statements


def _ids(survey):
    return list(survey.questions.values_list("id", flat=True))


def _submit(survey, answers, **extra):
    return services.submission_receive(
        slug=survey.slug,
        submission_id=str(uuid.uuid4()),
        answers={str(k): v for k, v in answers.items()},
        **extra,
    )


def _field_errors(excinfo):
    return excinfo.value.message_dict


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"type": "rating"}, "type"),
        ({"type": "choice", "options": ["only one"]}, "options"),
        ({"type": "choice", "options": "a,b"}, "options"),
        ({"type": "choice", "options": ["a", "a"]}, "options"),
        ({"type": "choice", "options": ["a", ""]}, "options.1"),
        ({"type": "choice", "options": ["a", "b"], "epsilon": 50}, "epsilon"),
        ({"type": "choice", "options": ["a", "b"], "epsilon": "1"}, "epsilon"),
        ({"type": "choice", "options": ["a", "b"], "min": 1}, "min"),
        ({"type": "numeric", "min": 5, "max": 5}, "max"),
        ({"type": "numeric", "min": 0, "max": 5000}, "max"),
        ({"type": "numeric", "min": 0.5, "max": 5}, "min"),
        ({"type": "numeric", "max": 5}, "min"),
        ({"type": "numeric", "min": 0, "max": 5, "options": ["a"]}, "options"),
        ({"design": {"kind": "coin"}}, "design.kind"),
        ({"design": {"kind": "warner", "p": 0.5}}, "design.p"),
        ({"design": {"kind": "warner", "p": 0.99}}, "design"),  # ε = ln 99, above the ceiling
        ({"design": {"kind": "warner", "q": 0.7}}, "design"),
        ({"design": {"kind": "mangat", "p": 0.75, "t": 0}}, "design.t"),
        ({"design": {"kind": "kuk", "theta1": 0.2, "theta2": 0.6}}, "design.theta2"),
        ({"epsilon": 1.0}, "epsilon"),  # yes/no questions take their ε from the design
    ],
)
def test_a_bad_question_type_is_refused_naming_the_field(spec, field):
    with pytest.raises(ValidationError) as excinfo:
        clean_question_type(spec, prefix="questions.0.")
    assert f"questions.0.{field}" in _field_errors(excinfo)


def test_question_types_are_stored_with_their_parameters_and_defaults(mixed_survey):
    plain, warner, choice, numeric = mixed_survey.questions.all()
    assert (plain.kind, plain.design) == ("yes_no", {})
    assert warner.design == {"kind": "warner", "p": 0.75}
    assert (choice.kind, choice.options, choice.epsilon) == (
        "choice",
        ["None", "Pens", "Paper"],
        DEFAULT_EPSILON,
    )
    assert (numeric.min_value, numeric.max_value, numeric.epsilon) == (0, 30, 2.0)


def test_the_ledger_sums_every_questions_epsilon_whatever_its_type(mixed_survey):
    ledger = selectors.privacy_ledger(survey=mixed_survey)
    assert [entry.design for entry in ledger.entries] == [
        "forced_response",
        "warner",
        "choice",
        "numeric",
    ]
    assert [entry.epsilon for entry in ledger.entries] == pytest.approx(
        [math.log(3), math.log(3), math.log(3), 2.0]
    )
    assert ledger.total_epsilon == pytest.approx(3 * math.log(3) + 2.0)
    privacy = selectors.survey_privacy(survey=mixed_survey)
    assert privacy.total_epsilon == pytest.approx(ledger.total_epsilon)
    assert privacy.total_odds == pytest.approx(math.exp(ledger.total_epsilon))


def test_typed_reports_are_stored_and_counted_per_type(mixed_survey):
    q_plain, q_warner, q_choice, q_numeric = _ids(mixed_survey)
    _submit(mixed_survey, {q_plain: True, q_warner: False, q_choice: 2, q_numeric: 41})
    _submit(mixed_survey, {q_plain: False, q_warner: True, q_choice: 0, q_numeric: -3})
    tallies = selectors.survey_tallies(survey=mixed_survey)
    assert tallies.responses == 2
    assert tallies.of(q_plain) == (2, 1)
    assert tallies.of(q_warner) == (2, 1)
    assert tallies.counts_of(q_choice, width=3) == (1, 0, 1)
    assert tallies.reports_of(q_choice) == 2
    assert tallies.counts_of(q_numeric, width=2) == (41 - 3, 41 * 41 + 9)
    stored = sorted(
        (row[f"q{q_choice}"], row[f"q{q_numeric}"])
        for row in Submission.objects.values_list("reports", flat=True)
    )
    assert stored == [(0, -3), (2, 41)]


@pytest.mark.parametrize(
    ("which", "value"),
    [
        (2, True),  # a choice report is an option index, not a bit
        (2, 3),  # only options 0..2
        (2, -1),
        (3, 2.5),
        (3, 10**9),  # far outside the range and any plausible noise
        (0, 1),  # a yes/no report is a bit
    ],
)
def test_a_report_of_the_wrong_type_or_range_is_refused_and_nothing_is_stored(
    mixed_survey, which, value
):
    ids = _ids(mixed_survey)
    answers = {ids[0]: True, ids[1]: True, ids[2]: 1, ids[3]: 10}
    answers[ids[which]] = value
    with pytest.raises(ValidationError) as excinfo:
        _submit(mixed_survey, answers)
    assert any(str(ids[which]) in key or key == "answers" for key in _field_errors(excinfo))
    assert Submission.objects.count() == 0
    assert selectors.survey_tallies(survey=mixed_survey).responses == 0


def test_bits_for_a_choice_question_never_reach_the_tallies(mixed_survey):
    """The one-statement SQL stores bits only for yes/no questions; bits sent for a choice or
    numeric question are refused, whichever path looks first."""
    ids = _ids(mixed_survey)
    with pytest.raises(ValidationError):
        _submit(mixed_survey, {ids[0]: True, ids[1]: True, ids[2]: True, ids[3]: False})
    assert Submission.objects.count() == 0


def test_a_changed_type_changes_the_fingerprint_but_plain_surveys_keep_theirs(make_survey):
    plain = make_survey(status=Survey.Status.DRAFT, questions=["A?", "B?"])
    before = selectors.survey_design_fingerprint(survey=plain)
    question = plain.questions.first()
    services.question_update(
        question=question, text=question.text, question_type={"design": {"kind": "kuk"}}
    )
    after_design = selectors.survey_design_fingerprint(survey=plain)
    services.question_update(
        question=question,
        text=question.text,
        question_type={"type": "choice", "options": ["x", "y"]},
    )
    after_type = selectors.survey_design_fingerprint(survey=plain)
    assert len({before, after_design, after_type}) == 3
    services.question_update(question=question, text=question.text, question_type={})
    assert selectors.survey_design_fingerprint(survey=plain) == before


def test_a_duplicate_keeps_each_questions_type(mixed_survey):
    copy = services.survey_duplicate(survey=mixed_survey)
    kept = [
        (q.kind, q.design, q.options, q.epsilon, q.min_value, q.max_value)
        for q in copy.questions.all()
    ]
    original = [
        (q.kind, q.design, q.options, q.epsilon, q.min_value, q.max_value)
        for q in mixed_survey.questions.all()
    ]
    assert kept == original


def test_the_database_refuses_a_numeric_question_without_a_range(open_survey):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.create(survey=open_survey, position=9, text="x", kind="numeric")


# --- the one-statement store of typed reports (submissions/postgres.py's typed form) ---------


def _store_everything(survey, rows, *, groups=None):
    ids = _ids(survey)
    for row in rows:
        _submit(survey, dict(zip(ids, row, strict=True)), groups=groups or {})
    tallies = selectors.survey_tallies(survey=survey)
    reports = sorted(
        tuple(stored[f"q{qid}"] for qid in ids)
        for stored in Submission.objects.filter(survey=survey).values_list("reports", flat=True)
    )
    return tallies.responses, tallies.reports, reports


ROWS = [(True, False, 2, 41), (False, True, 0, -3), (True, True, 2, 0), (False, False, 1, 30)]


@pytest.mark.parametrize("statement", [True, False], ids=["statement", "orm"])
def test_typed_reports_are_counted_alike_by_the_statement_and_the_orm(
    make_survey, settings, statement
):
    settings.SUBMISSION_STATEMENT = statement
    survey = make_survey(questions=MIXED_QUESTIONS)
    responses, tallies, reports = _store_everything(survey, ROWS)
    plain, warner, choice, numeric = (f"q{qid}" for qid in _ids(survey))
    assert responses == 4
    assert tallies[plain] == (4, 2) and tallies[warner] == (4, 2)
    assert tallies[choice] == (4, 1, 1, 2)  # option 0 once, option 1 once, option 2 twice
    assert tallies[numeric] == (4, 41 - 3 + 0 + 30, 41**2 + 9 + 0 + 900)
    assert reports == sorted(ROWS)


def test_a_typed_submission_is_one_statement_on_postgresql(mixed_survey, respondent):
    from django.test.utils import CaptureQueriesContext

    ids = _ids(mixed_survey)
    answers = {str(qid): value for qid, value in zip(ids, ROWS[0], strict=True)}
    url = f"/api/v1/public/surveys/{mixed_survey.slug}/responses/"
    # The first to the survey prepares the statement in this connection: measured on the second.
    first = {"submission_id": str(uuid.uuid4()), "answers": answers}
    assert respondent.post(url, first, format="json").status_code == 201
    body = {"submission_id": str(uuid.uuid4()), "answers": answers}
    with CaptureQueriesContext(connection) as queries:
        response = respondent.post(url, body, format="json")
    assert response.status_code == 201
    ours = survey_statements(queries.captured_queries)
    # PostgreSQL: the typed form of the one statement; SQLite: in one transaction, the survey
    # read for the contract (its row, its questions and options, the typed questions' ranges),
    # the submission, the tally row read and written, the numeric report's histogram row, and
    # its day's tally read and written (what a public release counts).
    assert len(ours) == (1 if connection.vendor == "postgresql" else 9), ours
    assert Submission.objects.count() == 2


@pytest.mark.parametrize("statement", [True, False], ids=["statement", "orm"])
def test_a_numeric_report_is_taken_up_to_the_honest_tail_bound_and_no_further(
    mixed_survey, settings, statement
):
    """Both stores accept the same bounds as dpengine.report_bounds: 0-30 at ε = 2 is a noise
    scale of 15, widened by ceil(20.7233 x 15) = 311 on each side (an honest report lands
    beyond with probability below 1e-9), so -311 to 341 and no further."""
    settings.SUBMISSION_STATEMENT = statement
    ids = _ids(mixed_survey)
    assert selectors.report_range(mixed_survey.questions.get(pk=ids[3])) == ("numeric", -311, 341)
    for value in (-311, 341):
        _submit(mixed_survey, {ids[0]: True, ids[1]: True, ids[2]: 0, ids[3]: value})
    for value in (-312, 342, 930):
        with pytest.raises(ValidationError) as excinfo:
            _submit(mixed_survey, {ids[0]: True, ids[1]: True, ids[2]: 0, ids[3]: value})
        assert f"answers.{ids[3]}" in excinfo.value.message_dict
    assert Submission.objects.count() == 2


def test_a_report_beyond_the_bound_is_a_400_naming_the_answer(mixed_survey, respondent):
    ids = _ids(mixed_survey)
    url = f"/api/v1/public/surveys/{mixed_survey.slug}/responses/"
    answers = {str(ids[0]): True, str(ids[1]): True, str(ids[2]): 0, str(ids[3]): 342}
    body = {"submission_id": str(uuid.uuid4()), "answers": answers}
    response = respondent.post(url, body, format="json")
    assert response.status_code == 400
    assert f"answers.{ids[3]}" in str(response.json())
    assert Submission.objects.count() == 0


def test_a_typed_submission_with_a_grouping_answer_counts_only_yes_no_reports_by_group(
    make_survey,
):
    from surveys.models import GroupTally
    from surveys.services import grouping

    survey = make_survey(questions=MIXED_QUESTIONS, status="draft")
    department = grouping.grouping_question_add(survey=survey, text="Dept?", options=["A", "B"])
    survey = services.survey_open(survey=survey)
    option_a = department.options.first().pk
    _store_everything(survey, ROWS[:2], groups={str(department.pk): option_a})
    plain, warner = _ids(survey)[:2]
    counted = {
        qid: n for qid, _oid, n, _yes in GroupTally.objects.filter(option_id=option_a).totals()
    }
    assert counted == {plain: 2, warner: 2}
