"""Writes of API tokens: issued with a name and an expiry, stored hashed, revoked by their
owner or all at once when the password changes. The reads, and what a key is:
``surveys/selectors/tokens.py``."""

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from .. import limits
from ..models import ApiToken
from ..selectors import tokens as token_reads


@dataclass(frozen=True)
class IssuedToken:
    """A new token and its key, which exists nowhere else once this is gone."""

    token: ApiToken
    key: str


@transaction.atomic
def token_issue(*, user, name="") -> IssuedToken:
    name = name.strip() if isinstance(name, str) else name
    if not isinstance(name, str):
        raise ValidationError({"name": [_("Must be text.")]})
    if len(name) > limits.API_TOKEN_NAME_MAX_LENGTH:
        raise ValidationError(
            {
                "name": [
                    _("At most %(max)d characters, got %(n)d.")
                    % {"max": limits.API_TOKEN_NAME_MAX_LENGTH, "n": len(name)}
                ]
            }
        )
    now = token_reads.clock()
    # Lock the user's row: two concurrent requests must not both pass the count below.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    user.api_tokens.filter(expires_at__lte=now).delete()
    if user.api_tokens.count() >= settings.MAX_API_TOKENS_PER_USER:
        raise ValidationError(
            {
                "name": [
                    _("You already have %(max)d API tokens; revoke one before adding another.")
                    % {"max": settings.MAX_API_TOKENS_PER_USER}
                ]
            }
        )
    key = token_reads.KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name or _("API token"),
        prefix=key[: limits.API_TOKEN_SHOWN_PREFIX_LENGTH],
        digest=token_reads.key_digest(key),
        created_at=now,
        expires_at=now + timedelta(days=settings.API_TOKEN_TTL_DAYS),
    )
    return IssuedToken(token=token, key=key)


def token_revoke(*, user, token_id) -> bool:
    """Revoke one of ``user``'s tokens; False when they have none with that id."""
    deleted, _per_model = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return bool(deleted)


def tokens_revoke_all(*, user) -> int:
    deleted, _per_model = ApiToken.objects.filter(user=user).delete()
    return deleted


def revoke_tokens_when_the_password_changes(sender, instance, update_fields=None, **kwargs):
    """``pre_save`` of the user model: a new password hash revokes every API token.

    One rule for every way a password changes (the password change and reset pages, the admin,
    ``manage.py changepassword``, a shell's ``set_password`` and ``save``), so none of them can
    forget it. Connected in ``SurveysConfig.ready``; a save that names its fields and leaves out
    the password (sign-in's ``last_login``) costs no query."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = sender._default_manager.filter(pk=instance.pk).values_list("password", flat=True)
    if stored.first() not in (None, instance.password):
        tokens_revoke_all(user=instance)
