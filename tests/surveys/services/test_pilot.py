"""Pilot mode: the real link takes test responses that are never counted once the study opens
(issue 14, item 1). Run on SQLite and PostgreSQL: the submission path differs."""

import uuid

import pytest
from django.test import override_settings
from django.utils import translation

from surveys import selectors, services
from surveys.exports.codebook import survey_codebook
from surveys.exports.csv import report_csv_rows
from surveys.models import (
    GroupAnswer,
    GroupingTally,
    GroupTally,
    PublicRelease,
    Submission,
    Survey,
    TallyShard,
)
from surveys.services import grouping
from tests.helpers import answers_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    """Messages are checked in English, whatever language an earlier test left active."""
    with translation.override("en"):
        yield


both_paths = pytest.mark.parametrize(
    "statement", [True, False], ids=["one-statement", "orm-transaction"]
)


def grouped_pilot(make_survey):
    survey = make_survey(status="draft")
    grouping.grouping_question_add(survey=survey, text="Department", options=["Sales", "Lab"])
    return services.survey_pilot_start(survey=survey)


def send(survey, bits, *, submission_id=None, groups=None):
    gq = survey.grouping_questions.prefetch_related("options").first()
    if gq is not None and groups is None:
        groups = {gq.pk: gq.options.first().pk}
    return services.submission_receive(
        slug=survey.slug,
        submission_id=str(submission_id or uuid.uuid4()),
        answers={str(k): v for k, v in answers_for(survey, bits).items()},
        groups=groups,
        design_fingerprint=selectors.survey_design_fingerprint(
            survey=Survey.objects.get(pk=survey.pk)
        ),
    )


def counted(survey):
    """Everything the submission path writes, as counts."""
    return {
        "submissions": Submission.objects.filter(survey=survey).count(),
        "group_answers": GroupAnswer.objects.filter(submission__survey=survey).count(),
        "tallies": selectors.survey_tallies(survey=survey).responses,
        "tally_rows": TallyShard.objects.filter(survey=survey).count(),
        "group_tally_reports": sum(
            n
            for _qid, _oid, n, _yes in GroupTally.objects.filter(
                option__grouping_question__survey=survey
            ).totals()
        ),
        "option_respondents": sum(
            GroupingTally.objects.filter(grouping_question__survey=survey).values_list(
                "count", flat=True
            )
        ),
    }


NOTHING = {
    "submissions": 0,
    "group_answers": 0,
    "tallies": 0,
    "tally_rows": 0,
    "group_tally_reports": 0,
    "option_respondents": 0,
}


@both_paths
def test_a_pilot_takes_responses_through_its_real_link(make_survey, statement):
    survey = grouped_pilot(make_survey)
    with override_settings(SUBMISSION_STATEMENT=statement):
        outcome = send(survey, [True, False])
    assert outcome.created is True
    assert counted(survey) == {
        "submissions": 1,
        "group_answers": 1,
        "tallies": 1,
        "tally_rows": 1,
        "group_tally_reports": 2,
        "option_respondents": 1,
    }
    assert survey.opened_at is None  # not frozen: a pilot's design can still change


def test_only_a_draft_becomes_a_pilot(open_survey):
    with pytest.raises(services.SurveyConflict) as caught:
        services.survey_pilot_start(survey=open_survey)
    assert caught.value.field == "status"


def test_a_pilot_needs_a_question(make_survey):
    survey = make_survey(status="draft", questions=[])
    with pytest.raises(services.SurveyConflict):
        services.survey_pilot_start(survey=survey)


def test_editing_a_pilot_with_responses_first_needs_them_discarded(make_survey):
    survey = make_survey(status="pilot")
    send(survey, [True, True])
    question = survey.questions.first()
    with pytest.raises(services.SurveyFrozen) as caught:
        services.question_update(question=question, text="Fixed typo")
    assert "discard the pilot responses" in caught.value.message
    assert services.survey_pilot_discard(survey=survey) == 1
    services.question_update(question=question, text="Fixed typo")
    assert survey.questions.first().text == "Fixed typo"


def test_a_pilot_edit_renames_the_design_so_stale_pages_reload(make_survey):
    survey = make_survey(status="pilot")
    before = Survey.objects.get(pk=survey.pk).design_fingerprint
    services.question_update(question=survey.questions.first(), text="Fixed typo")
    after = Survey.objects.get(pk=survey.pk).design_fingerprint
    assert before and after and before != after
    stale = {str(k): True for k in survey.questions.values_list("id", flat=True)}
    with pytest.raises(services.DesignChanged):
        services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers=stale,
            design_fingerprint=before,
        )
    assert send(survey, [True, False]).created is True


def test_discard_removes_everything_the_submission_path_wrote(make_survey):
    survey = grouped_pilot(make_survey)
    for bits in ([True, False], [False, False], [True, True]):
        send(survey, bits)
    PublicRelease.objects.create(
        survey=survey, step=1, released_at=survey.created_at, epsilon=1, source_count=3, counts={}
    )
    assert services.survey_pilot_discard(survey=survey) == 3
    assert counted(survey) == NOTHING
    assert not PublicRelease.objects.filter(survey=survey).exists()
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.PILOT


def test_discard_is_refused_unless_the_survey_is_a_pilot(frozen_survey):
    with pytest.raises(services.SurveyConflict) as caught:
        services.survey_pilot_discard(survey=frozen_survey)
    assert caught.value.field == "status"
    assert Submission.objects.filter(survey=frozen_survey).count() == 1


@both_paths
def test_opening_for_the_real_study_discards_every_pilot_response(make_survey, statement):
    survey = grouped_pilot(make_survey)
    with override_settings(SUBMISSION_STATEMENT=statement):
        send(survey, [True, True])
        send(survey, [True, False])
        opened = services.survey_open(survey=survey)
        assert opened.opened_at is not None and opened.is_frozen
        assert counted(survey) == NOTHING
        assert all(row.estimate.n == 0 for row in selectors.survey_estimates(survey=survey).rows)
        assert list(report_csv_rows(survey_codebook(survey=survey)))[1:] == []
        send(survey, [False, False])
    assert counted(survey)["submissions"] == 1
    assert selectors.survey_tallies(survey=survey).responses == 1


@both_paths
def test_the_real_opening_names_a_new_design_so_pilot_pages_start_afresh(make_survey, statement):
    """A pilot's fingerprint is never the study's: every browser drops its pilot memo (a fresh
    submission id, fresh coins), and a body randomized under the pilot's design is refused."""
    survey = make_survey(status="pilot")
    sid = uuid.uuid4()
    with override_settings(SUBMISSION_STATEMENT=statement):
        assert send(survey, [True, False], submission_id=sid).created is True
        pilot_fingerprint = Survey.objects.get(pk=survey.pk).design_fingerprint
        services.survey_open(survey=survey)
        opened = Survey.objects.get(pk=survey.pk)
        assert opened.design_fingerprint not in ("", pilot_fingerprint)
        # The real study's fingerprint is the design's, as a survey opened from a draft has it.
        recomputed = Survey.objects.get(pk=survey.pk)
        recomputed.design_fingerprint = ""
        assert opened.design_fingerprint == selectors.survey_design_fingerprint(survey=recomputed)
        with pytest.raises(services.DesignChanged):
            services.submission_receive(
                slug=survey.slug,
                submission_id=str(sid),
                answers={str(k): v for k, v in answers_for(survey, [True, False]).items()},
                design_fingerprint=pilot_fingerprint,
            )
        assert send(survey, [True, False]).created is True
    assert survey.response_count == 1


def test_a_pilot_is_not_closed(make_survey):
    survey = make_survey(status="pilot")
    with pytest.raises(services.SurveyConflict):
        services.survey_close(survey=survey)


def test_a_trashed_pilot_keeps_no_pilot_responses(make_survey, owner):
    survey = make_survey(status="pilot")
    send(survey, [True, True])
    services.survey_delete(survey=survey)
    restored = services.survey_restore(owner=owner, survey_id=survey.pk)
    assert restored.status == Survey.Status.CLOSED
    assert restored.response_count == 0
    services.survey_open(survey=restored)
    assert Survey.objects.get(pk=survey.pk).response_count == 0


def test_a_pilot_makes_no_public_release(make_survey):
    from surveys.services import public_release

    survey = make_survey(status="pilot")
    survey = public_release.public_results_update(survey=survey, enabled=True, epsilon=1.0)
    send(survey, [True, True])
    later = survey.created_at.date().replace(year=survey.created_at.year + 1)
    assert public_release.public_results_release(survey=survey, today=later) is None
    assert not PublicRelease.objects.filter(survey=survey).exists()


def test_duplicate_copies_consent_and_target_but_not_the_pilot(make_survey):
    survey = make_survey(status="pilot", consent_text="I agree to take part.", response_target=400)
    send(survey, [True, True])
    copy = services.survey_duplicate(survey=survey)
    assert copy.status == Survey.Status.DRAFT
    assert (copy.consent_text, copy.consent_version, copy.response_target) == (
        "I agree to take part.",
        1,
        400,
    )
    assert copy.consent_changed_at is not None
    assert (copy.opens_at, copy.closes_at, copy.response_count) == (None, None, 0)


# --- a pilot's invitations (docs/invitations.md, "The wiring") ---------------------------


def invitation_pilot(make_survey):
    from surveys.services import invitations

    survey = make_survey(status="pilot", access="invitation")
    made = invitations.invitations_create(survey=survey, emails=["t@example.org"])
    made += invitations.invitations_create(survey=survey, count=2, language="ko")
    return survey, made


def test_opening_revokes_the_pilots_invitations_and_sets_them_apart(make_survey):
    from surveys.models import Invitation
    from surveys.selectors.invitations import invitation_counts

    survey, _made = invitation_pilot(make_survey)
    while_piloting = invitation_counts(survey=survey)
    assert (while_piloting.pilot, while_piloting.invited) == (True, 3)
    survey = services.survey_open(survey=survey)
    assert set(Invitation.objects.values_list("pilot", "status")) == {(True, "revoked")}
    counts = invitation_counts(survey=survey)
    assert (counts.pilot, counts.invited, counts.revoked, counts.set_apart) == (False, 0, 0, 3)


def test_opening_can_reissue_the_pilots_invitations_with_new_codes(make_survey):
    from surveys.models import Invitation
    from surveys.selectors.invitations import invitation_counts
    from surveys.services import invitations

    survey, made = invitation_pilot(make_survey)
    survey = services.survey_open(survey=survey, pilot_invitations="reissue")
    real = Invitation.objects.filter(survey=survey, pilot=False).order_by("id")
    assert [(row.email, row.language, row.status, row.mail_pending) for row in real] == [
        ("t@example.org", "", "unused", "invitation"),  # emailed again, with its new code
        ("", "ko", "unused", ""),
        ("", "ko", "unused", ""),
    ]
    new_codes = {invitations.code_open(row.sealed_code, survey_id=survey.pk) for row in real}
    assert not new_codes & {view.code for view in made}
    counts = invitation_counts(survey=survey)
    assert (counts.invited, counts.set_apart) == (3, 3)


def test_an_unknown_choice_for_the_pilots_invitations_is_refused(make_survey):
    from django.core.exceptions import ValidationError

    survey, _made = invitation_pilot(make_survey)
    with pytest.raises(ValidationError) as refused:
        services.survey_open(survey=survey, pilot_invitations="keep")
    assert "pilot_invitations" in refused.value.message_dict
    survey.refresh_from_db()
    assert survey.status == Survey.Status.PILOT


def test_reissuing_skips_an_address_the_real_study_already_invited(make_survey):
    from surveys.models import Invitation
    from surveys.services import invitations

    survey = make_survey(status="draft", access="invitation")
    invitations.invitations_create(survey=survey, emails=["early@example.org"])
    survey = services.survey_pilot_start(survey=survey)
    invitations.invitations_create(survey=survey, emails=["early@example.org", "t@example.org"])
    survey = services.survey_open(survey=survey, pilot_invitations="reissue")
    real = Invitation.objects.filter(survey=survey, pilot=False)
    assert sorted(real.values_list("email", flat=True)) == ["early@example.org", "t@example.org"]
