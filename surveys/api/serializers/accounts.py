"""Request and response shapes of the token endpoints."""

from django.contrib.auth import authenticate
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, serializers

from ...limits import API_TOKEN_NAME_MAX_LENGTH, PASSWORD_MAX_LENGTH, USERNAME_MAX_LENGTH
from ...login_throttle import login_block
from .fields import RejectUnknownFieldsMixin, StrictCharField

# --- tokens -------------------------------------------------------------------------------


class TokenRequestSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    username = StrictCharField(max_length=USERNAME_MAX_LENGTH)
    password = StrictCharField(max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False)
    name = StrictCharField(
        max_length=API_TOKEN_NAME_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="What the token is for (a script, a machine), shown in the token list.",
    )

    def validate(self, attrs):
        block = login_block(request=self.context.get("request"), username=attrs["username"])
        if block is not None:
            raise exceptions.Throttled(wait=block.retry_after, detail=block.message())
        user = authenticate(
            self.context.get("request"), username=attrs["username"], password=attrs["password"]
        )
        if user is None:
            # One message for an unknown user and a wrong password: no account enumeration.
            raise serializers.ValidationError(
                {"password": [_("Unable to sign in with this username and password.")]}
            )
        attrs["user"] = user
        return attrs


class ApiTokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The token's first characters.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class IssuedTokenSerializer(serializers.Serializer):
    token = serializers.CharField(source="key", help_text="Shown only in this response.")
    id = serializers.IntegerField(source="token.id")
    name = serializers.CharField(source="token.name")
    created_at = serializers.DateTimeField(source="token.created_at")
    expires_at = serializers.DateTimeField(source="token.expires_at")
