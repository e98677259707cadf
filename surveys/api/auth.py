"""API tokens: obtain one with a username and password; list and revoke them.

The writes are surveys/services/tokens.py, the reads surveys/selectors/tokens.py.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ..models import ApiToken
from ..selectors import tokens as token_reads
from ..services import tokens
from .errors import error_responses
from .serializers import (
    ApiTokenSerializer,
    IssuedTokenSerializer,
    TokenRequestSerializer,
)
from .throttling import TokenRequestThrottle


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
        summary="Obtain a new API token",
        description=(
            "Send a researcher's username and password (and a name for the token); use the "
            "token as `Authorization: Token <token>`. Each call issues a new token, shown only "
            "in this response; it expires after API_TOKEN_TTL_DAYS days (default 30). Failed "
            "attempts are limited per username and per client (429 once spent)."
        ),
        request=TokenRequestSerializer,
        responses={
            200: IssuedTokenSerializer,
            **error_responses(
                described={400: "Missing or wrong credentials.", 429: "Too many attempts."}
            ),
        },
        auth=[],
    )
    def post(self, request):
        body = TokenRequestSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        # A token limit reached is a Django ValidationError naming "name": errors.py makes
        # it the usual 400.
        issued = tokens.token_issue(
            user=body.validated_data["user"], name=body.validated_data.get("name", "")
        )
        return Response(IssuedTokenSerializer(issued).data)

    @extend_schema(
        operation_id="auth_token_destroy",
        summary="Revoke the API token this request is made with",
        request=None,
        responses={
            204: OpenApiResponse(description="Revoked (nothing when signed in by session)."),
            **error_responses(401),
        },
    )
    def delete(self, request):
        if isinstance(request.auth, ApiToken):
            tokens.token_revoke(user=request.user, token_id=request.auth.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=["auth"])
class TokenListView(APIView):
    @extend_schema(
        operation_id="auth_tokens_list",
        summary="The caller's unexpired API tokens (names and first characters, never keys)",
        responses={
            200: ApiTokenSerializer(many=True),
            **error_responses(401),
        },
    )
    def get(self, request):
        return Response(
            ApiTokenSerializer(token_reads.tokens_of(user=request.user), many=True).data
        )


@extend_schema(tags=["auth"])
class TokenDetailView(APIView):
    @extend_schema(
        operation_id="auth_tokens_destroy",
        summary="Revoke one of the caller's API tokens",
        request=None,
        responses={
            204: OpenApiResponse(description="Revoked."),
            **error_responses(401, described={404: "No such token of yours."}),
        },
    )
    def delete(self, request, token_id):
        if not tokens.token_revoke(user=request.user, token_id=token_id):
            raise NotFound()
        return Response(status=status.HTTP_204_NO_CONTENT)
