"""Pilot responses: stored like real ones while a survey is a pilot, never counted after.

A pilot takes responses through the survey's real link (the link and QR code stay the same),
so everything the submission path writes for a pilot response is removed here before the
survey opens for the real study: the submissions (with their grouping answers), the tally
shards and numeric histograms, the per-(question, option) tallies, the regression's cells and
option counts, and any public release drawn from them. The services (``survey_pilot_discard``,
``survey_open``) call these inside their transaction, with the survey's row locked.
"""

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import selectors
from ..models import (
    DayTally,
    GroupCell,
    GroupingTally,
    Invitation,
    NumericTally,
    PublicRelease,
    SpentToken,
    Submission,
    Survey,
    SurveyTokenKey,
    TallyShard,
)
from .comprehension import comprehension_sync
from .group_tallies import group_tallies_zero
from .invitation_codes import code_digest, code_seal, new_code
from .invitation_mail import mail_soon
from .token_keys import token_key_ensure


def pilot_responses_delete(*, survey) -> int:
    """Remove every response stored for ``survey`` and what was counted from them; how many."""
    count = Submission.all_objects.filter(survey=survey).count()
    Submission.all_objects.filter(survey=survey).delete()  # cascades to the grouping answers
    TallyShard.objects.filter(survey=survey).delete()
    DayTally.objects.filter(survey=survey).delete()
    NumericTally.objects.filter(question__survey=survey).delete()
    group_tallies_zero(survey=survey)
    GroupCell.objects.filter(question__survey=survey).delete()
    GroupingTally.objects.filter(grouping_question__survey=survey).update(count=0)
    PublicRelease.objects.filter(survey=survey).delete()
    pilot_tokens_discard(survey=survey)
    if survey.public_started_on is not None:
        # The public page's release schedule starts again from the real study's first day.
        survey.public_started_on = timezone.now().date()
        survey.save(update_fields=["public_started_on"])
    return count


def pilot_tokens_discard(*, survey) -> None:
    """An invitation pilot's tokens go with its responses: the spent digests are deleted, the
    codes that obtained a token in the pilot may obtain one again, and the survey gets a new
    key, so that no token of the pilot verifies in the study (a replaced key is safe here: the
    design, and the definition that publishes the key, are not frozen yet)."""
    issued = Invitation.objects.filter(survey=survey, status=Invitation.Status.ISSUED)
    spent = SpentToken.objects.filter(survey=survey)
    if not issued.exists() and not spent.exists():
        return
    spent.delete()
    issued.update(status=Invitation.Status.UNUSED)
    SurveyTokenKey.objects.filter(survey=survey).delete()
    token_key_ensure(survey=survey)


PILOT_INVITATIONS_CHOICES = ("revoke", "reissue")


def clean_pilot_invitations(value) -> str:
    """What happens to the pilot's invitations at the real opening: ``revoke`` (the default)
    or ``reissue`` (new codes, counted in the real study, emailed again)."""
    if value is None:
        return "revoke"
    if value not in PILOT_INVITATIONS_CHOICES:
        raise ValidationError(
            {
                "pilot_invitations": [
                    _("Must be “revoke” or “reissue”, got %(value)s.") % {"value": repr(value)[:40]}
                ]
            }
        )
    return value


def pilot_invitations_settle(*, survey, choice) -> int:
    """At the real opening, the pilot's invitations stop working: revoked (their codes obtain
    nothing, and they stay apart from the real study's, shown as the pilot's), or, if the
    researcher chose ``reissue``, each is copied into the real study with a new code (an
    address gets its email again) before being revoked. How many were re-issued."""

    pilot = Invitation.objects.filter(survey=survey, pilot=True).exclude(
        status=Invitation.Status.REVOKED
    )
    reissued = []
    if choice == "reissue":
        # An address invited before the pilot already has its real invitation.
        real = set(
            Invitation.objects.filter(survey=survey, pilot=False)
            .exclude(email="")
            .values_list("email", flat=True)
        )
        for invitation in pilot.order_by("created_at", "id"):
            if invitation.email in real:
                continue
            code = new_code()
            reissued.append(
                Invitation(
                    survey=survey,
                    email=invitation.email,
                    language=invitation.language,
                    unsubscribed=invitation.unsubscribed,
                    code_digest=code_digest(code),
                    sealed_code=code_seal(code, survey_id=survey.pk),
                    mail_pending=Invitation.Mail.INVITATION
                    if invitation.email and not invitation.unsubscribed
                    else Invitation.Mail.NONE,
                )
            )
    pilot.update(status=Invitation.Status.REVOKED, mail_pending=Invitation.Mail.NONE)
    Invitation.objects.bulk_create(reissued)
    if any(invitation.email for invitation in reissued):
        mail_soon()
    return len(reissued)


def pilot_design_refresh(*, survey_id) -> None:
    """After a change to a survey's questions or settings, its comprehension questions follow
    its designs (``comprehension.comprehension_sync``) and a pilot's design gets a new name.

    A pilot's design is not frozen, but its submissions are checked against the fingerprint
    stored when the pilot started, like an open survey's; a page loaded before the change
    then gets "reload the page" instead of sending reports drawn for other questions or coins.
    """
    survey = Survey.objects.get(pk=survey_id)
    comprehension_sync(survey=survey)
    if survey.status != Survey.Status.PILOT or survey.opened_at is not None:
        return
    survey.design_fingerprint = ""
    survey.design_fingerprint = selectors.survey_design_fingerprint(survey=survey)
    survey.save(update_fields=["design_fingerprint"])
