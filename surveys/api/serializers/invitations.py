"""Request and response shapes of the respondent invitation routes: a survey's invitations
and their counts, making them, the sender's name and address, and the status a code's holder
asks for."""

from rest_framework import serializers

from ... import limits
from ...services import invitation_status
from .fields import RejectUnknownFieldsMixin, StrictCharField


class RespondentInvitationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    email = serializers.CharField(allow_null=True, help_text="Null for an anonymous code.")
    code = serializers.CharField(
        allow_null=True, help_text="The invitation's code; null for a viewer."
    )
    link = serializers.CharField(
        allow_null=True,
        help_text="The personal link (the code in its fragment, which no server log sees); "
        "null for a viewer.",
    )
    revoked = serializers.BooleanField()
    pilot = serializers.BooleanField(
        help_text="Made while the survey was a pilot: not in the real study's counts."
    )
    language = serializers.CharField(
        help_text="The email's and slip's language; empty: the survey's own."
    )
    mail = serializers.DictField(
        help_text="The invitation email: `invitation` (`waiting`, `sent`, `failed` or empty "
        "for a code without address), `attempts` and `error` of its last failed send, "
        "`unsubscribed` (opted out of reminders). Reminders are counted for the survey only."
    )


class RespondentInvitationCountsSerializer(serializers.Serializer):
    invited = serializers.IntegerField(help_text="Invitations not revoked.")
    opened = serializers.IntegerField(help_text="Codes that obtained their token.")
    answered = serializers.IntegerField(help_text="Tokens spent on a submission.")
    revoked = serializers.IntegerField()
    resets = serializers.IntegerField(
        help_text="Codes replaced by a reset: each lets one person answer twice."
    )
    mail_waiting = serializers.IntegerField()
    mail_failed = serializers.IntegerField()
    reminders_sent = serializers.IntegerField(help_text="Reminder emails sent, in all.")
    pilot = serializers.BooleanField(help_text="The counts are the pilot's.")
    set_apart = serializers.IntegerField(
        help_text="Pilot invitations, not counted in the real study."
    )


class RespondentInvitationListSerializer(serializers.Serializer):
    invitations = RespondentInvitationSerializer(many=True)
    counts = RespondentInvitationCountsSerializer()


class RespondentInvitationCreateSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    emails = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text="Addresses to invite (deduplicated; one already invited is skipped).",
    )
    count = serializers.JSONField(required=False, help_text="How many anonymous codes to make.")
    language = serializers.JSONField(
        required=False,
        help_text="The email's and slips' language (a site language); the survey's own "
        "when omitted or when the survey is not offered in it.",
    )


class InvitationSenderSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    contact_name = serializers.JSONField(
        help_text="How emails and slips name the researcher (never the username); may be empty."
    )
    contact_email = serializers.JSONField(
        help_text="The contact address emails give and reply to; may be empty."
    )


class RespondentInvitationsMadeSerializer(serializers.Serializer):
    invitations = RespondentInvitationSerializer(many=True)


class InvitationStatusRequestSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    # Strict: a number or a list is a 400 naming ``code``, never read as the text it prints as.
    # Blank is allowed and kept whole: it is a code that names nothing ("invalid"), not an error.
    code = StrictCharField(
        max_length=limits.INVITATION_CODE_TEXT_MAX_LENGTH,
        allow_blank=True,
        trim_whitespace=False,
        help_text="The invitation's code, from its personal link (as typed: groups, dashes).",
    )


class InvitationStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=[state.value for state in invitation_status.CodeState],
        help_text=(
            "`unused` (the code can obtain its token), `issued` (it obtained it, here or on "
            "another device), `revoked`, or `invalid` (no such code in this survey)."
        ),
    )
