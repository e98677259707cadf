import uuid

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from surveys import selectors, services
from surveys.models import Question, Submission, Survey
from tests.helpers import answers_for, question_tallies


@pytest.mark.django_db
class TestSurveyCreate:
    def test_creates_questions_in_order(self, owner):
        survey = services.survey_create(owner=owner, title="T", questions=["First?", "Second?"])
        assert [q.text for q in survey.questions.all()] == ["First?", "Second?"]
        assert survey.status == Survey.Status.DRAFT
        assert len(survey.slug) >= 16

    @pytest.mark.parametrize(
        ("fields", "bad_field"),
        [
            ({"p_truth": 1.0}, "p_truth"),
            ({"p_truth": 0}, "p_truth"),
            ({"p_forced_yes": 1.5}, "p_forced_yes"),
            ({"p_forced_yes": "half"}, "p_forced_yes"),
            ({"language": "xx"}, "language"),
            ({"confidence": 1.0}, "confidence"),
            ({"ci_method": "bootstrap"}, "ci_method"),
            ({"min_n": -1}, "min_n"),
            ({"colour": "red"}, "colour"),
        ],
    )
    def test_rejects_bad_field_naming_it_and_stores_nothing(self, owner, fields, bad_field):
        with pytest.raises(ValidationError) as excinfo:
            services.survey_create(owner=owner, title="T", questions=["Q?"], **fields)
        assert bad_field in excinfo.value.message_dict
        assert not Survey.objects.exists()
        assert not Question.objects.exists()

    def test_blank_title_is_rejected(self, owner):
        with pytest.raises(ValidationError) as excinfo:
            services.survey_create(owner=owner, title="   ")
        assert "title" in excinfo.value.message_dict

    def test_blank_question_rejects_whole_survey(self, owner):
        with pytest.raises(ValidationError):
            services.survey_create(owner=owner, title="T", questions=["Fine?", " "])
        assert not Survey.objects.exists()


@pytest.mark.django_db
class TestSubmissionRecord:
    def test_stores_one_report_per_question_and_updates_tallies(self, open_survey):
        outcome = services.submission_receive(
            slug=open_survey.slug,
            submission_id=str(uuid.uuid4()),
            answers=answers_for(open_survey, [True, False]),
        )
        assert outcome.created
        assert question_tallies(open_survey) == [(1, 1), (1, 0)]
        first, second = open_survey.questions.all()
        assert Submission.objects.get().reports == {f"q{first.pk}": True, f"q{second.pk}": False}
        assert open_survey.response_count == 1

    def test_replayed_submission_is_stored_once(self, open_survey):
        sid = uuid.uuid4()
        services.submission_receive(
            slug=open_survey.slug, submission_id=sid, answers=answers_for(open_survey, [True, True])
        )
        again = services.submission_receive(
            slug=open_survey.slug,
            submission_id=str(sid),
            answers=answers_for(open_survey, [False, False]),
        )
        assert not again.created
        assert Submission.objects.count() == 1
        assert list(Submission.objects.get().reports.values()) == [True, True]
        assert sum(yes for _n, yes in question_tallies(open_survey)) == 2

    @pytest.mark.parametrize(
        ("mangle", "field"),
        [
            (lambda ids: {"submission_id": "not-a-uuid"}, "submission_id"),
            # a required one missing: named by its id
            (lambda ids: {"answers": {str(ids[0]): True}}, lambda ids: f"answers.{ids[1]}"),
            (
                lambda ids: {"answers": {str(ids[0]): True, str(ids[1]): "yes"}},
                lambda ids: f"answers.{ids[1]}",
            ),
            (
                lambda ids: {"answers": {str(ids[0]): True, str(ids[1]): 1}},
                lambda ids: f"answers.{ids[1]}",
            ),
            (lambda ids: {"answers": {str(ids[0]): True, "999999": True}}, "answers"),
            (lambda ids: {"answers": [True, False]}, "answers"),
        ],
    )
    def test_malformed_submission_names_field_and_stores_nothing(self, open_survey, mangle, field):
        ids = list(open_survey.questions.values_list("id", flat=True))
        kwargs = {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(ids[0]): True, str(ids[1]): False},
        }
        kwargs.update(mangle(ids))
        field = field(ids) if callable(field) else field
        with pytest.raises(ValidationError) as excinfo:
            services.submission_receive(slug=open_survey.slug, **kwargs)
        assert field in excinfo.value.message_dict
        assert not Submission.objects.exists()
        assert question_tallies(open_survey) == [(0, 0), (0, 0)]

    def test_answers_to_another_surveys_questions_are_rejected(self, make_survey, open_survey):
        other = make_survey(title="Other")
        with pytest.raises(ValidationError):
            services.submission_receive(
                slug=open_survey.slug,
                submission_id=uuid.uuid4(),
                answers=answers_for(other, [True, True]),
            )
        assert not Submission.objects.exists()

    @pytest.mark.parametrize("status", ["draft", "closed"])
    def test_closed_or_draft_survey_refuses_responses(self, make_survey, status):
        survey = make_survey(status=status)
        with pytest.raises(services.SurveyNotAcceptingResponses):
            services.submission_receive(
                slug=survey.slug,
                submission_id=uuid.uuid4(),
                answers=answers_for(survey, [True, True]),
            )
        assert not Submission.objects.exists()


@pytest.mark.django_db
class TestFrozenSurvey:
    def test_questions_cannot_change_after_a_response(self, frozen_survey):
        question = frozen_survey.questions.first()
        with pytest.raises(services.SurveyFrozen):
            services.question_add(survey=frozen_survey, text="New?")
        with pytest.raises(services.SurveyFrozen):
            services.question_update(question=question, text="Changed?")
        with pytest.raises(services.SurveyFrozen):
            services.question_delete(question=question)
        with pytest.raises(services.SurveyFrozen):
            services.question_move(question=question, offset=1)
        with pytest.raises(services.SurveyFrozen):
            services.survey_update(survey=frozen_survey, data={}, questions=["Other?"])
        assert [q.text for q in frozen_survey.questions.all()] == [
            q.text for q in Question.objects.filter(survey=frozen_survey).order_by("position")
        ]
        assert frozen_survey.questions.count() == 2

    def test_design_cannot_change_after_a_response(self, frozen_survey):
        with pytest.raises(services.SurveyFrozen):
            services.survey_update(survey=frozen_survey, data={"p_truth": 0.75})
        frozen_survey.refresh_from_db()
        assert frozen_survey.p_truth == 0.5

    def test_title_and_reporting_settings_stay_editable(self, frozen_survey):
        services.survey_update(
            survey=frozen_survey, data={"title": "Renamed", "ci_method": "exact"}
        )
        frozen_survey.refresh_from_db()
        assert (frozen_survey.title, frozen_survey.ci_method) == ("Renamed", "exact")


@pytest.mark.django_db
def test_question_move_renumbers_positions(owner):
    survey = services.survey_create(owner=owner, title="T", questions=["A?", "B?", "C?"])
    c = survey.questions.get(text="C?")
    services.question_move(question=c, offset=-2)
    assert [q.text for q in survey.questions.all()] == ["C?", "A?", "B?"]
    assert [q.position for q in survey.questions.all()] == [0, 1, 2]


@pytest.mark.django_db
def test_survey_without_questions_cannot_open(owner):
    survey = services.survey_create(owner=owner, title="Empty")
    with pytest.raises(services.SurveyConflict):
        services.survey_open(survey=survey)


@pytest.mark.django_db
class TestEstimates:
    def test_estimates_follow_the_classic_debiasing(self, open_survey, submit):
        # 3 of 4 reports "yes" on question 1: yes_rate 3/4, classic p-hat = 2*3/4 - 1/2 = 1.
        for bits in ([True, False], [True, False], [True, True], [False, False]):
            assert submit(open_survey, bits).status_code == 201
        result = selectors.survey_estimates(survey=open_survey)
        first, second = result.rows
        assert (first.estimate.n, first.estimate.yes) == (4, 3)
        assert first.estimate.estimate == pytest.approx(1.0)
        assert second.estimate.estimate == pytest.approx(2 * 0.25 - 0.5)
        assert first.suppressed  # below the default minimum n of 30

    def test_estimates_with_no_responses_do_not_crash(self, open_survey):
        result = selectors.survey_estimates(survey=open_survey)
        assert [row.estimate.n for row in result.rows] == [0, 0]

    def test_simulated_reports_update_tallies_like_real_ones(self, open_survey):
        reports = np.array([[True, False], [True, True], [False, False]])
        services.simulated_submissions_record(survey=open_survey, reports=reports)
        assert question_tallies(open_survey) == [(3, 2), (3, 1)]
        first = open_survey.questions.first()
        assert Submission.objects.filter(**{f"reports__q{first.pk}": True}).count() == 2
        rows = list(selectors.survey_report_rows(survey=open_survey))
        assert len(rows) == 3
        assert sorted(tuple(bits) for *_meta, bits in rows) == sorted(
            [(True, False), (True, True), (False, False)]
        )


@pytest.mark.django_db
def test_nothing_identifying_is_stored(open_survey, submit):
    """Only survey, question, reported bit, submission id, a coarse date and the order the page
    showed the questions in (a permutation of the survey's questions, issue 33) are stored."""
    submit(open_survey, [True, False])
    submission_fields = {f.name for f in Submission._meta.get_fields() if f.concrete}
    # ``held``: whether its batch has been released yet (services/batches.py), no time.
    assert submission_fields == {
        "id", "survey", "submission_id", "received_on", "reports", "positions", "held",
    }  # fmt: skip
    assert Submission._meta.get_field("held").get_internal_type() == "BooleanField"
    # No order sent, none stored (tests/surveys/api/test_question_order.py stores one).
    assert Submission.objects.get().positions == {}
    assert Submission._meta.get_field("received_on").get_internal_type() == "DateField"
    # The reports are a randomized bit per question, keyed by question, and nothing else.
    question_keys = {f"q{pk}" for pk in open_survey.questions.values_list("id", flat=True)}
    (reports,) = Submission.objects.values_list("reports", flat=True)
    assert reports.keys() == question_keys
    assert all(isinstance(bit, bool) for bit in reports.values())


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["p_truth", "p_forced_yes"])
@pytest.mark.parametrize("value", [1e-200, 5e-324, 0.9999999])
def test_extreme_coins_are_rejected_before_they_break_the_numbers(owner, field, value):
    with pytest.raises(ValidationError) as excinfo:
        services.survey_create(owner=owner, title="T", questions=["Q?"], **{field: value})
    assert field in excinfo.value.message_dict
    assert not Survey.objects.exists()
