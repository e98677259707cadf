"""Co-researchers over the API: a survey's members, invitations, roles, ownership transfer.

Like researcher.py: the survey is resolved before any handler runs (404 unless the caller
owns it or is a member, 403 for a role too low). Only the owner invites, changes roles,
removes and transfers; any member may read the list and remove themselves (leave).
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from .. import selectors
from ..models import SurveyMember
from ..services import members
from .errors import error_responses
from .researcher import OwnedSurveyView
from .serializers import (
    RejectUnknownFieldsMixin,
    StrictCharField,
    StrictIntegerField,
    SurveySerializer,
)

TAG = "co-researchers"
ROLE_HELP = "`editor` (builds: questions, settings, open/close) or `viewer` (results, exports)."


class MemberSerializer(serializers.Serializer):
    user_id = serializers.IntegerField(source="user.id", read_only=True)
    username = serializers.CharField(source="user.username", read_only=True)
    role = serializers.ChoiceField(choices=SurveyMember.Role.choices, help_text=ROLE_HELP)
    invited_by = serializers.CharField(
        source="invited_by.username", read_only=True, allow_null=True, default=None
    )
    created_at = serializers.DateTimeField(read_only=True)


class MemberInviteSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    user = StrictCharField(
        max_length=254, help_text="The account's username, or its email address."
    )
    role = serializers.ChoiceField(choices=SurveyMember.Role.choices, help_text=ROLE_HELP)


class MemberRoleSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    role = serializers.ChoiceField(choices=SurveyMember.Role.choices, help_text=ROLE_HELP)


class TransferSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    user_id = StrictIntegerField(help_text="The member who becomes the owner.")


@extend_schema(tags=[TAG])
class SurveyMembersView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER, "post": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_members_list",
        summary="The survey's co-researchers (the owner is not listed)",
        responses={200: MemberSerializer(many=True), **error_responses(401, 404)},
    )
    def get(self, request, survey_id):
        found = members.survey_members(survey=self.survey)
        return Response(MemberSerializer(found, many=True).data)

    @extend_schema(
        operation_id="surveys_members_create",
        summary="Invite an existing account as editor or viewer (owner only)",
        request=MemberInviteSerializer,
        responses={201: MemberSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, survey_id):
        body = MemberInviteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        member = members.member_invite(survey=self.survey, by=request.user, **body.validated_data)
        return Response(MemberSerializer(member).data, status=status.HTTP_201_CREATED)


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
class SurveyTransferView(OwnedSurveyView):
    survey_roles = {"post": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_transfer",
        summary="Make a member the owner; you stay on as an editor (owner only)",
        description=(
            "The survey then counts towards the new owner's limits (surveys and questions "
            "per account): a transfer that would take them past a limit is a 400."
        ),
        request=TransferSerializer,
        responses={200: SurveySerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, survey_id):
        body = TransferSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        survey = members.survey_transfer(survey=self.survey, user_id=body.validated_data["user_id"])
        return Response(SurveySerializer(survey, context={"request": request}).data)
