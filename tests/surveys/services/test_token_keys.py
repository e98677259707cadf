"""The survey's token key pair (surveys/services/token_keys.py): made once, never replaced, its
private half sealed under the secret key for this survey alone."""

import pytest

import blindrsa
from surveys.models import SurveyTokenKey
from surveys.services.token_keys import token_key_ensure


def test_the_key_is_made_once_and_its_halves_match(grouped_draft, settings):
    key = token_key_ensure(survey=grouped_draft)
    assert token_key_ensure(survey=grouped_draft) == key
    assert SurveyTokenKey.objects.filter(survey=grouped_draft).count() == 1
    private = blindrsa.private_key_decrypt(
        key.sealed_private_key, secret=settings.SECRET_KEY, context=str(grouped_draft.pk)
    )
    assert private.key_size == blindrsa.DEFAULT_MODULUS_BITS
    assert blindrsa.public_key_encode(private.public_key()) == key.public_key
    # Sealed for this survey: another survey's context does not open it.
    with pytest.raises(blindrsa.BlindSignatureError):
        blindrsa.private_key_decrypt(
            key.sealed_private_key, secret=settings.SECRET_KEY, context=str(grouped_draft.pk + 1)
        )
