"""What an invitation's code can still do, asked by the code's holder before the page shows a
question (docs/invitations.md, "A second device"): a read beside ``invitations.token_issue``,
which it mirrors without signing or changing anything.

The page asks once when it opens with a code, so that a code that obtained its token on
another device or browser is answered before any question, and the token itself is obtained
only when the invitee first acts (consent, or the first answer). Nothing is stored or logged
(``/api/v1/public/`` is never logged, ``surveys/log_filters.py``), and the answer tells the
holder no more than the token route already did: that route answers 409 for a used code and
404 for an unknown or revoked one, before it signs. Only the holder of the code can ask; the
server cannot know whether a code's token was spent (``SpentToken`` holds digests of messages
it never saw), so "answered" is what the browser that sent keeps, never asked here.
"""

from enum import StrEnum

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _

from .. import limits
from ..models import Invitation, Survey, is_slug
from .invitations import code_digest, normalize_code

CODE_FIELD = "code"
_CODE_TEXT_MAX_LENGTH = limits.INVITATION_CODE_TEXT_MAX_LENGTH


class CodeState(StrEnum):
    UNUSED = "unused"  # the code can obtain its token
    ISSUED = "issued"  # it obtained its token (on this or another device)
    REVOKED = "revoked"
    INVALID = "invalid"  # no such code in this survey (mistyped, or replaced by a reset)


def invitation_status(*, slug, code) -> CodeState:
    """The state of ``code`` in the survey at ``slug``; 404 for no such survey, a draft or a
    survey without invitations, and a 400 naming ``code`` unless it is text."""
    if not is_slug(slug):
        raise Http404("No such survey.")
    survey_id = (
        Survey.objects.filter(slug=slug)
        .exclude(access=Survey.Access.LINK)
        .exclude(status=Survey.Status.DRAFT)
        .values_list("id", flat=True)
        .first()
    )
    if survey_id is None:
        raise Http404("No such survey.")
    if not isinstance(code, str):
        raise ValidationError({CODE_FIELD: [_("Must be text.")]})
    if len(code) > _CODE_TEXT_MAX_LENGTH:
        raise ValidationError(
            {
                CODE_FIELD: [
                    _("At most %(max)d characters, got %(n)d.")
                    % {"max": _CODE_TEXT_MAX_LENGTH, "n": len(code)}
                ]
            }
        )
    normalized = normalize_code(code)
    if normalized is None:
        return CodeState.INVALID
    # The digest under the current secret and the fallbacks, as token_issue finds a code.
    secrets = (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))
    digests = [code_digest(normalized, secret=secret) for secret in secrets]
    status = (
        Invitation.objects.filter(survey_id=survey_id, code_digest__in=digests)
        .values_list("status", flat=True)
        .first()
    )
    if status is None:
        return CodeState.INVALID
    return CodeState(status)
