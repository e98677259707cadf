"""Co-researchers over the API: a survey's members, invitations, roles, ownership offers, and
the invitee's side (their invitations, accept, decline).

Like researcher.py: the survey is resolved before any handler runs (404 unless the caller
owns it or is a member, 403 for a role too low). Only the owner invites, withdraws, changes
roles, removes and offers ownership; any member may read the list and remove themselves
(leave). An invitation grants nothing until its addressee accepts it; to anyone else it is a
404 (``selectors.accounts.member_invitation_for``).
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import selectors
from ..selectors import accounts as account_selectors
from ..services import members
from .errors import error_responses
from .researcher import OwnedSurveyView
from .serializers import (
    MemberInvitationSerializer,
    MemberInviteSerializer,
    MemberRoleSerializer,
    MemberSerializer,
    ReceivedMemberInvitationSerializer,
    SurveySerializer,
    TransferSerializer,
)
from .throttling import MemberInviteThrottle

TAG = "co-researchers"


def member_rows(survey, found):
    """The owner first, then the members: who has access, with their roles."""
    owner = {
        "user_id": survey.owner_id,
        "username": survey.owner.get_username(),
        "role": selectors.OWNER,
        "invited_by": None,
        "created_at": None,
    }
    return [owner, *MemberSerializer(found, many=True).data]


@extend_schema(tags=[TAG])
class SurveyMembersView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER, "post": selectors.OWNER}
    throttle_classes = [MemberInviteThrottle]

    @extend_schema(
        operation_id="surveys_members_list",
        summary="Who has access: the owner (role `owner`, first), then the co-researchers",
        responses={200: MemberSerializer(many=True), **error_responses(401, 404)},
    )
    def get(self, request, survey_id):
        found = members.survey_members(survey=self.survey)
        return Response(member_rows(self.survey, found))

    @extend_schema(
        operation_id="surveys_members_create",
        summary="Invite an account or an email address as editor or viewer (owner only)",
        description=(
            "Creates a pending invitation: it grants nothing until the invitee accepts it "
            "(`POST /api/v1/invitations/<id>/accept/`). By email address the answer is the same "
            "whether or not the address has an account, and only an account that verified the "
            "address can accept. Limited per account (`MEMBER_INVITE_RATE_LIMIT`): 429."
        ),
        request=MemberInviteSerializer,
        responses={
            201: MemberInvitationSerializer,
            **error_responses(
                400, 401, 403, 404, described={429: "Too many invitations from your account."}
            ),
        },
    )
    def post(self, request, survey_id):
        body = MemberInviteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        invitation = members.member_invite(
            survey=self.survey,
            by=request.user,
            base_url=request.build_absolute_uri("/"),
            **body.validated_data,
        )
        return Response(MemberInvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=[TAG])
class SurveyMemberDetailView(OwnedSurveyView):
    survey_roles = {"patch": selectors.OWNER, "delete": selectors.OWNER}

    def required_role(self, request, **kwargs):
        if request.method == "DELETE" and kwargs.get("user_id") == request.user.pk:
            return selectors.VIEWER  # leaving: any member may
        return super().required_role(request, **kwargs)

    @extend_schema(
        operation_id="surveys_members_partial_update",
        summary="Change a member's role (owner only)",
        request=MemberRoleSerializer,
        responses={200: MemberSerializer, **error_responses(400, 401, 403, 404)},
    )
    def patch(self, request, survey_id, user_id):
        body = MemberRoleSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        member = members.member_set_role(
            survey=self.survey, user_id=user_id, role=body.validated_data["role"]
        )
        return Response(MemberSerializer(member).data)

    @extend_schema(
        operation_id="surveys_members_destroy",
        summary="Remove a member (owner), or leave the survey (your own user id)",
        responses={
            204: OpenApiResponse(description="Removed."),
            **error_responses(401, 403, 404, 409),
        },
    )
    def delete(self, request, survey_id, user_id):
        members.member_remove(survey=self.survey, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=[TAG])
class MemberInvitationsView(OwnedSurveyView):
    survey_roles = {"get": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_invitations_list",
        summary="The survey's invitations and ownership offer still waiting (owner only)",
        responses={200: MemberInvitationSerializer(many=True), **error_responses(401, 403, 404)},
    )
    def get(self, request, survey_id):
        found = account_selectors.member_invitations(survey=self.survey)
        return Response(MemberInvitationSerializer(found, many=True).data)


@extend_schema(tags=[TAG])
class MemberInvitationDetailView(OwnedSurveyView):
    survey_roles = {"delete": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_invitations_destroy",
        summary="Withdraw an invitation or an ownership offer not yet answered (owner only)",
        responses={
            204: OpenApiResponse(description="Withdrawn."),
            **error_responses(401, 403, 404),
        },
    )
    def delete(self, request, survey_id, invitation_id):
        members.invitation_withdraw(survey=self.survey, invitation_id=invitation_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=[TAG])
class SurveyTransferView(OwnedSurveyView):
    survey_roles = {"post": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_transfer",
        summary="Offer the survey to a member; they become the owner when they accept (owner only)",
        description=(
            "Answers 202 with the offer (an invitation with role `owner`); a new offer replaces "
            "the previous one. When the member accepts, you stay on as an editor and the survey "
            "counts towards their limits (surveys and questions per account): an acceptance "
            "that would take them past one is a 400 naming `invitation`."
        ),
        request=TransferSerializer,
        responses={202: MemberInvitationSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, survey_id):
        body = TransferSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        offer = members.survey_transfer(
            survey=self.survey, by=request.user, user_id=body.validated_data["user_id"]
        )
        return Response(MemberInvitationSerializer(offer).data, status=status.HTTP_202_ACCEPTED)


# --- the invitee's side ---------------------------------------------------------------------


@extend_schema(tags=[TAG])
class MemberInvitationListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="invitations_list",
        summary="Invitations waiting for your answer, oldest first",
        description=(
            "Those to your username, and those to your email address once you verified it."
        ),
        responses={200: ReceivedMemberInvitationSerializer(many=True), **error_responses(401)},
    )
    def get(self, request):
        found = account_selectors.member_invitations_for(user=request.user)
        return Response(ReceivedMemberInvitationSerializer(found, many=True).data)


@extend_schema(tags=[TAG])
class MemberInvitationAcceptView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="invitations_accept",
        summary="Accept: join the survey with the offered role, or become its owner",
        request=None,
        responses={200: SurveySerializer, **error_responses(400, 401, 404, 409)},
    )
    def post(self, request, invitation_id):
        invitation = account_selectors.member_invitation_for(
            user=request.user, invitation_id=invitation_id
        )
        survey = members.invitation_accept(invitation=invitation, user=request.user)
        return Response(SurveySerializer(survey, context={"request": request}).data)


@extend_schema(tags=[TAG])
class MemberInvitationDeclineView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="invitations_decline",
        summary="Decline: the invitation goes, and nothing changes",
        request=None,
        responses={204: OpenApiResponse(description="Declined."), **error_responses(401, 404)},
    )
    def post(self, request, invitation_id):
        invitation = account_selectors.member_invitation_for(
            user=request.user, invitation_id=invitation_id
        )
        members.invitation_decline(invitation=invitation)
        return Response(status=status.HTTP_204_NO_CONTENT)
