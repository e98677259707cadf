"""Request and response shapes of the co-researcher routes: members, the invitations to join
a survey (``MemberInvitation``) as their owner and their invitee see them, roles, transfer."""

from rest_framework import serializers

from ... import limits
from ...models import SurveyMember
from .fields import RejectUnknownFieldsMixin, StrictCharField, StrictIntegerField

ROLE_HELP = "`editor` (builds: questions, settings, open/close) or `viewer` (results, exports)."


class MemberSerializer(serializers.Serializer):
    user_id = serializers.IntegerField(source="user.id", read_only=True)
    username = serializers.CharField(source="user.username", read_only=True)
    role = serializers.CharField(
        read_only=True, help_text="`owner` (listed first), `editor` or `viewer`."
    )
    invited_by = serializers.CharField(
        source="invited_by.username", read_only=True, allow_null=True, default=None
    )
    created_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When they joined; null for the owner."
    )


class MemberInvitationSerializer(serializers.Serializer):
    """An invitation as its survey's owner sees it. By email, ``user_id`` and ``username`` are
    always null: nothing says whether the address has an account."""

    id = serializers.IntegerField(read_only=True)
    user_id = serializers.IntegerField(read_only=True, allow_null=True)
    username = serializers.CharField(
        source="user.username", read_only=True, allow_null=True, default=None
    )
    email = serializers.SerializerMethodField()
    role = serializers.CharField(
        read_only=True, help_text="`editor` or `viewer`; `owner` for an ownership offer."
    )
    status = serializers.SerializerMethodField(help_text="Always `pending`: answered ones go.")
    invited_by = serializers.CharField(source="invited_by.username", read_only=True)
    created_at = serializers.DateTimeField(read_only=True)

    def get_email(self, invitation) -> str | None:
        return invitation.email or None

    def get_status(self, invitation) -> str:
        return "pending"


class ReceivedMemberInvitationSerializer(serializers.Serializer):
    """An invitation as its invitee sees it."""

    id = serializers.IntegerField(read_only=True)
    survey_id = serializers.IntegerField(read_only=True)
    survey_title = serializers.CharField(source="survey.title", read_only=True)
    owner = serializers.CharField(source="survey.owner.username", read_only=True)
    role = serializers.CharField(
        read_only=True, help_text="`editor` or `viewer`; `owner`: you are offered the survey."
    )
    invited_by = serializers.CharField(source="invited_by.username", read_only=True)
    created_at = serializers.DateTimeField(read_only=True)


class MemberInviteSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    user = StrictCharField(
        max_length=limits.EMAIL_MAX_LENGTH,
        help_text=(
            "An account's username, or an email address (anything with an @). By address the "
            "answer is the same whether or not it has an account."
        ),
    )
    role = serializers.ChoiceField(choices=SurveyMember.Role.choices, help_text=ROLE_HELP)


class MemberRoleSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    role = serializers.ChoiceField(choices=SurveyMember.Role.choices, help_text=ROLE_HELP)


class TransferSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    user_id = StrictIntegerField(help_text="The member offered the survey.")
