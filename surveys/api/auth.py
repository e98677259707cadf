"""API tokens: obtain one with a username and password, revoke it with DELETE."""

from django.db import transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .serializers import ErrorSerializer, TokenRequestSerializer, TokenSerializer
from .throttling import TokenRequestThrottle

# --- services (writes) --------------------------------------------------------------------


def token_issue(*, user) -> Token:
    """The user's token, created on first request; the same token until revoked."""
    with transaction.atomic():
        token, _created = Token.objects.get_or_create(user=user)
    return token


def token_revoke(*, user) -> None:
    Token.objects.filter(user=user).delete()


# --- view ---------------------------------------------------------------------------------


@extend_schema(tags=["auth"])
class TokenView(APIView):
    def _obtaining(self):
        return getattr(self.request, "method", None) == "POST"

    def get_authenticators(self):
        # Obtaining a token needs no prior authentication (and so no CSRF token either).
        return [] if self._obtaining() else super().get_authenticators()

    def get_permissions(self):
        return [AllowAny()] if self._obtaining() else [IsAuthenticated()]

    def get_throttles(self):
        return [TokenRequestThrottle()] if self._obtaining() else []

    @extend_schema(
        operation_id="auth_token_create",
        summary="Obtain an API token",
        description=(
            "Send a researcher's username and password; use the token as "
            "`Authorization: Token <token>`. The same token is returned until revoked."
        ),
        request=TokenRequestSerializer,
        responses={
            200: TokenSerializer,
            400: OpenApiResponse(ErrorSerializer, description="Missing or wrong credentials."),
            429: OpenApiResponse(ErrorSerializer, description="Too many attempts."),
        },
        auth=[],
    )
    def post(self, request):
        body = TokenRequestSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        token = token_issue(user=body.validated_data["user"])
        return Response(TokenSerializer(token).data)

    @extend_schema(
        operation_id="auth_token_destroy",
        summary="Revoke the caller's API token",
        request=None,
        responses={
            204: OpenApiResponse(description="Revoked (also when there was none)."),
            401: OpenApiResponse(ErrorSerializer, description="Not authenticated."),
        },
    )
    def delete(self, request):
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
