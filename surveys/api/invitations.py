"""Respondent invitations over the API (docs/invitations.md): a survey's invitation list,
reset and revoke for editors and the owner, and the public token endpoint an invitee's page
calls with its code.

Codes are shown to editors and the owner only; a viewer sees the list and the counts, with
``code`` and ``link`` null. Nobody sees whether one invitation's code obtained or spent a
token, or who was reminded: the survey's counts only.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from blindrsa import b64url_encode

from .. import selectors
from ..selectors import invitations as invitation_selectors
from ..selectors.surveys import ROLE_RANK
from ..services import invitation_mail, invitation_status, invitations
from .errors import error_responses
from .researcher import OwnedSurveyView
from .serializers import (
    InvitationSenderSerializer,
    InvitationStatusRequestSerializer,
    InvitationStatusSerializer,
    RespondentInvitationCreateSerializer,
    RespondentInvitationListSerializer,
    RespondentInvitationSerializer,
    RespondentInvitationsMadeSerializer,
)
from .serializers.submissions import BlindSignatureSerializer, BlindTokenRequestSerializer
from .throttling import ClientRateThrottle

TAG = "invitations"


def invitation_data(view, *, survey, request) -> dict:
    return {
        "id": view.id,
        "email": view.email,
        "code": view.code,
        "link": invitations.invitation_link(
            slug=survey.slug, code=view.code, base_url=request.build_absolute_uri("/")
        )
        if view.code
        else None,
        "revoked": view.revoked,
        "pilot": view.pilot,
        "language": view.language,
        "mail": {
            "invitation": view.mail,
            "attempts": view.mail_attempts,
            "error": view.mail_error,
            "unsubscribed": view.unsubscribed,
        },
    }


@extend_schema(tags=[TAG])
class SurveyInvitationsView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER, "post": selectors.EDITOR}

    @extend_schema(
        operation_id="respondent_invitations_list",
        summary="A survey's invitations and their counts",
        description="Codes and links for editors and the owner only (null for a viewer).",
        responses={200: RespondentInvitationListSerializer, **error_responses(401, 404)},
    )
    def get(self, request, survey_id):
        with_code = ROLE_RANK[self.survey.access_role] >= ROLE_RANK[selectors.EDITOR]
        rows = [
            invitation_data(
                invitations.invitation_view(invitation, with_code=with_code),
                survey=self.survey,
                request=request,
            )
            for invitation in invitation_selectors.survey_invitations(survey=self.survey)
        ]
        counts = invitation_selectors.invitation_counts(survey=self.survey)
        return Response({"invitations": rows, "counts": counts.__dict__})

    @extend_schema(
        operation_id="respondent_invitations_create",
        summary="Invite by email, or make anonymous codes",
        description=(
            '`{"emails": [...]}` (each address once; a bad one is a 400 naming its line) or '
            '`{"count": N}`. The survey\'s `access` must be `invitation` or `both` (409 naming '
            "`access` otherwise). Emails are sent in the background by the worker (or "
            "`manage.py send_invitations`). Made while the survey is a pilot, they are pilot "
            "invitations."
        ),
        request=RespondentInvitationCreateSerializer,
        responses={
            201: RespondentInvitationsMadeSerializer,
            **error_responses(400, 401, 403, 404, 409),
        },
    )
    def post(self, request, survey_id):
        body = RespondentInvitationCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        made = invitations.invitations_create(survey=self.survey, **body.validated_data)
        return Response(
            {
                "invitations": [
                    invitation_data(view, survey=self.survey, request=request) for view in made
                ]
            },
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=[TAG])
class SurveyInvitationDetailView(OwnedSurveyView):
    survey_roles = {"delete": selectors.EDITOR}

    @extend_schema(
        operation_id="respondent_invitations_revoke",
        summary="Revoke an invitation",
        description="Its code obtains nothing from now on. Any invitation can be revoked, so "
        "the answer says nothing of whether its code obtained a token (one obtained before "
        "stays valid, as after a reset).",
        responses={
            204: OpenApiResponse(description="Revoked."),
            **error_responses(401, 403, 404),
        },
    )
    def delete(self, request, survey_id, invitation_id):
        invitations.invitation_revoke(survey=self.survey, invitation_id=invitation_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=[TAG])
class SurveyInvitationResetView(OwnedSurveyView):
    survey_roles = {"post": selectors.EDITOR}

    @extend_schema(
        operation_id="respondent_invitations_reset",
        summary="A new code for a lost invitation",
        description=(
            "The old code stops working. Counted in `resets`: if the old code had obtained a "
            "token, that token still counts, so a reset lets one person answer twice."
        ),
        request=None,
        responses={200: RespondentInvitationSerializer, **error_responses(401, 403, 404, 409)},
    )
    def post(self, request, survey_id, invitation_id):
        view = invitations.invitation_reset(survey=self.survey, invitation_id=invitation_id)
        return Response(invitation_data(view, survey=self.survey, request=request))


@extend_schema(tags=[TAG])
class SurveyRemindersView(OwnedSurveyView):
    survey_roles = {"post": selectors.EDITOR}

    @extend_schema(
        operation_id="respondent_invitations_remind",
        summary="Queue reminders to invitees whose code has not obtained a token",
        description="The worker sends them; only their number is shown, never who they are.",
        request=None,
        responses={
            202: OpenApiResponse(description='`{"queued": n}`'),
            **error_responses(401, 403, 404, 409),
        },
    )
    def post(self, request, survey_id):
        queued = invitations.reminders_queue(survey=self.survey)
        return Response({"queued": queued}, status=status.HTTP_202_ACCEPTED)


@extend_schema(tags=[TAG])
class SurveyInvitationSenderView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER, "put": selectors.EDITOR}

    @extend_schema(
        operation_id="respondent_invitations_sender",
        summary="How invitation emails and slips name the researcher",
        responses={200: InvitationSenderSerializer, **error_responses(401, 404)},
    )
    def get(self, request, survey_id):
        return Response(
            {"contact_name": self.survey.contact_name, "contact_email": self.survey.contact_email}
        )

    @extend_schema(
        operation_id="respondent_invitations_sender_update",
        summary="Set the name and contact address invitation emails and slips give",
        request=InvitationSenderSerializer,
        responses={200: InvitationSenderSerializer, **error_responses(400, 401, 403, 404)},
    )
    def put(self, request, survey_id):
        body = InvitationSenderSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        survey = invitation_mail.invitation_sender_update(survey=self.survey, **body.validated_data)
        return Response(
            {"contact_name": survey.contact_name, "contact_email": survey.contact_email}
        )


class TokenIssueThrottle(ClientRateThrottle):
    """Throttled like submissions (codes are unguessable; this slows any trying)."""

    scope = "invitation-tokens"
    rate_setting = "RESPONSE_RATE_LIMIT"


@extend_schema(tags=["public"])
class PublicTokenView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [TokenIssueThrottle]

    @extend_schema(
        operation_id="public_token_create",
        summary="Trade an invitation code for one blind signature",
        description=(
            "RFC 9474 BlindSign of `blinded_message` with the survey's key, once per code. "
            "The server never sees the message it signs, so it cannot tell which invitation "
            "a token spent later came from."
        ),
        request=BlindTokenRequestSerializer,
        responses={
            201: BlindSignatureSerializer,
            **error_responses(
                described={
                    400: "Malformed; `errors` names the field.",
                    404: "No such survey, or no such invitation (or revoked).",
                    409: "This invitation has been used (or the survey is not open).",
                    429: "Too many requests; retry later.",
                }
            ),
        },
        auth=[],
    )
    def post(self, request, slug):
        body = BlindTokenRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        signature = invitations.token_issue(slug=slug, **body.validated_data)
        return Response(
            {"blind_signature": b64url_encode(signature)}, status=status.HTTP_201_CREATED
        )


@extend_schema(tags=["public"])
class PublicInvitationStatusView(APIView):
    """What a code can still do, asked by its holder's page before any question is shown."""

    permission_classes = [AllowAny]
    authentication_classes = []
    # The token route's own counter: a status check and a token request count alike.
    throttle_classes = [TokenIssueThrottle]

    @extend_schema(
        operation_id="public_invitation_status",
        summary="Whether an invitation code can still obtain its token",
        description=(
            "Changes nothing and stores nothing. The code goes in the body, never in the "
            "address. Says no more than the token route does (409 for a used code, 404 for an "
            "unknown or revoked one); whether a token was spent, the server cannot know."
        ),
        request=InvitationStatusRequestSerializer,
        responses={
            200: InvitationStatusSerializer,
            **error_responses(
                described={
                    400: "Malformed; `errors` names the field.",
                    404: "No such survey, a draft, or a survey without invitations.",
                    429: "Too many requests; retry later.",
                }
            ),
        },
        auth=[],
    )
    def post(self, request, slug):
        body = InvitationStatusRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        code = body.validated_data["code"]
        state = invitation_status.invitation_status(slug=slug, code=code)
        response = Response({"status": state.value})
        response["Cache-Control"] = "no-store"
        return response
