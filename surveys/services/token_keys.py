"""The survey's token key pair, made the first time invitations are enabled (here, not in
``invitations.py``: the survey and pilot writes make it, and the invitation writes read the
schedule, which freezes the survey on opening; tests/test_layers.py checks no circle)."""

from django.conf import settings
from django.db import IntegrityError, transaction

import blindrsa

from ..models import SurveyTokenKey


def token_key_ensure(*, survey) -> SurveyTokenKey:
    """The survey's token key pair, made (2048 bits) the first time invitations are enabled
    and never replaced: the frozen definition publishes its public half."""
    existing = SurveyTokenKey.objects.filter(survey_id=survey.pk).first()
    if existing is not None:
        return existing
    private_key = blindrsa.generate_private_key(bits=blindrsa.DEFAULT_MODULUS_BITS)
    try:
        with transaction.atomic():
            return SurveyTokenKey.objects.create(
                survey_id=survey.pk,
                public_key=blindrsa.public_key_encode(private_key.public_key()),
                sealed_private_key=blindrsa.private_key_encrypt(
                    private_key, secret=settings.SECRET_KEY, context=str(survey.pk)
                ),
            )
    except IntegrityError:  # made meanwhile by a concurrent request: that one stands
        return SurveyTokenKey.objects.get(survey_id=survey.pk)
