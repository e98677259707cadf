"""The token a submission to an invitation survey carries: checked by the submission's entry,
spent by its writer in the transaction that stores it (``services.submissions``; on PostgreSQL
in the one statement), so a token is spent exactly when a submission is stored with it.

A token is ``{"message", "signature"}`` (base64url): the prepared message (RFC 9474 §4.1, a
32-byte random prefix and a 32-byte random message) and an RSASSA-PSS signature of it under
the survey's key, which the server made blind (``services.invitations.token_issue``) and so
cannot match to the invitation that obtained it. What is stored is the SHA-256 of the
message (``SpentToken``): no code, no time, no submission next to it.
"""

import functools
import hashlib
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import connection
from django.http import Http404
from django.utils.translation import gettext as _

import blindrsa

from .. import limits
from ..models import Invitation, SpentToken, Survey, is_slug, random_key
from .errors import AccessRefused, Reason, SurveyConflict

TOKEN_FIELD = "token"


@dataclass(frozen=True)
class Token:
    message: bytes  # the prepared message
    signature: bytes

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.message).digest()


@dataclass(frozen=True)
class TokenTarget:
    """What spending a token needs to know about the survey."""

    survey_id: int
    access: str
    public_key: str | None  # SPKI DER base64url, None before invitations were enabled


def _malformed(message):
    return ValidationError({TOKEN_FIELD: [message]})


def token_clean(token) -> Token:
    """The token of a submission body, its shape checked; a 400 naming ``token`` otherwise."""
    if not isinstance(token, dict) or set(token) != {"message", "signature"}:
        raise _malformed(_('Must be an object with "message" and "signature".'))
    decoded = {}
    for part in ("message", "signature"):
        value = token[part]
        try:
            if not isinstance(value, str):
                raise ValueError(part)
            decoded[part] = blindrsa.b64url_decode(value)
        except (ValueError, blindrsa.BlindSignatureError):
            raise _malformed(_("%(part)s: must be base64url text.") % {"part": part}) from None
    if len(decoded["message"]) != limits.TOKEN_PREPARED_MESSAGE_BYTES:
        raise _malformed(
            _("message: must be %(n)d bytes.") % {"n": limits.TOKEN_PREPARED_MESSAGE_BYTES}
        )
    return Token(message=decoded["message"], signature=decoded["signature"])


def token_target(*, slug) -> TokenTarget:
    """The survey at ``slug`` with its access and public key, in one query; 404 if none.

    Kept in this process once the survey has opened: its access and key never change from
    then on (the design is frozen, the key never replaced), and every other rule is checked
    again where the submission is stored. Every invitation submission then saves a query.
    """
    if not is_slug(slug):
        raise Http404("No such survey.")
    cached = _frozen_targets.get(slug)
    if cached is not None:
        return cached
    row = Survey.objects.filter(slug=slug).values_list(
        "id", "access", "token_key__public_key", "opened_at"
    )
    row = row.first()
    if row is None:
        raise Http404("No such survey.")
    target = TokenTarget(survey_id=row[0], access=row[1], public_key=row[2])
    if row[3] is not None and target.public_key is not None:
        if len(_frozen_targets) >= _FROZEN_TARGETS_MAX:
            _frozen_targets.clear()
        _frozen_targets[slug] = target
    return target


_frozen_targets: dict[str, TokenTarget] = {}
_FROZEN_TARGETS_MAX = 1024


@functools.lru_cache(maxsize=256)
def _public_key(text):
    # A survey's key never changes once made, so the decoded key is cached by its text.
    return blindrsa.public_key_decode(text)


def token_verify(*, target: TokenTarget, token: Token) -> None:
    """A 400 naming ``token`` unless it is a signature under the survey's key."""
    if target.public_key is None:
        raise _malformed(_("This survey issues no tokens."))
    try:
        blindrsa.verify(
            public_key=_public_key(target.public_key),
            prepared_message=token.message,
            signature=token.signature,
        )
    except blindrsa.BlindSignatureError:
        raise _malformed(_("This is not a valid invitation token for this survey.")) from None


def token_spend(*, survey_id, token: Token, held=False) -> bool:
    """Record the token as spent, in the caller's transaction (the SQLite writer's); False if
    it was spent before.

    One INSERT that does nothing on a spent token, so the caller's transaction goes on (no
    savepoint, no error to recover from): the submission is stored in it next. ``held``:
    spent on a submission held for its batch, rewritten with it at its release
    (services/batches.py).
    """
    table = SpentToken._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (id, survey_id, digest, held) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (survey_id, digest) DO NOTHING RETURNING id",
            [random_key(), survey_id, token.digest, held],
        )
        return cursor.fetchone() is not None


def token_spent(*, survey_id, token: Token) -> bool:
    """Whether ``token`` was spent on a submission to the survey (held for its batch or not)."""
    return SpentToken.objects.filter(survey_id=survey_id, digest=token.digest).exists()


def token_spent_conflict():
    return SurveyConflict(
        _("This invitation has been used: its token was spent on another submission."),
        reason=Reason.TOKEN_SPENT,
        field=TOKEN_FIELD,
    )


def token_required():
    return AccessRefused(
        _(
            "This survey takes answers by invitation only: open the personal link from your "
            "invitation."
        ),
        field=TOKEN_FIELD,
    )


def tokens_held(*, survey_id):
    """The survey's spent tokens held for its batch: ``(key, digest)``."""
    return list(
        SpentToken.objects.filter(survey_id=survey_id, held=True).values_list("pk", "digest")
    )


def tokens_rewrite(*, survey_id, tokens, shuffle, key):
    """At a batch's release (services/batches.py): its spent tokens (``tokens``, from
    ``tokens_held``), stored again under new keys (``key()``) in the order ``shuffle`` leaves
    them; the invitations that obtained a token since the last batch, likewise. Each deleted
    by the key it was read with: a row committed since the read (a token spent, an
    invitation's token issued) waits for the next batch."""
    if tokens:
        SpentToken.objects.filter(pk__in=[pk for pk, _digest in tokens]).delete()
        digests = [bytes(digest) for _pk, digest in tokens]
        shuffle(digests)
        SpentToken.objects.bulk_create(
            SpentToken(id=key(), survey_id=survey_id, digest=digest, held=False)
            for digest in digests
        )
    # Deleted and stored again, whole and under the same key (pages link to it by its key,
    # which counts up as invitations are made, not as they are used): an UPDATE would leave
    # the new version on the page of the old one where there is room.
    table = connection.ops.quote_name(Invitation._meta.db_table)
    columns = [field.column for field in Invitation._meta.concrete_fields]
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    reshuffle = columns.index(Invitation._meta.get_field("reshuffle").column)
    # Locked as read (SQLite: its write lock), so that a change made meanwhile (a revoke) is
    # not undone by the copy stored again.
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {names} FROM {table} WHERE survey_id = %s AND reshuffle{lock}", [survey_id]
        )
        rows = [list(row) for row in cursor.fetchall()]
        if not rows:
            return
        pk = columns.index(Invitation._meta.pk.column)
        cursor.execute(
            f"DELETE FROM {table} WHERE {connection.ops.quote_name(Invitation._meta.pk.column)}"
            f" IN ({', '.join(['%s'] * len(rows))})",
            [row[pk] for row in rows],
        )
        shuffle(rows)
        for row in rows:
            row[reshuffle] = False
        marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
        cursor.execute(
            f"INSERT INTO {table} ({names}) VALUES {', '.join([marks] * len(rows))}",
            [value for row in rows for value in row],
        )
