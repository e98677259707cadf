"""Forms of the members page: invite a co-researcher, change a role, transfer ownership."""

from django import forms
from django.utils.translation import gettext_lazy as _

from .. import limits
from ..models import SurveyMember
from .fields import PageForm

ROLE_CHOICES = [
    (SurveyMember.Role.VIEWER, _("Viewer: sees results, analysis and exports")),
    (SurveyMember.Role.EDITOR, _("Editor: also builds, opens and closes the survey")),
]


class MemberInviteForm(PageForm):
    user = forms.CharField(
        label=_("Username or email address"),
        max_length=limits.EMAIL_MAX_LENGTH,
        help_text=_(
            "A username, or an email address: whoever verified that address on their account "
            "can accept. Nothing is granted until the invitation is accepted."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    role = forms.ChoiceField(
        label=_("Role"),
        choices=ROLE_CHOICES,
        initial=SurveyMember.Role.VIEWER,
        widget=forms.RadioSelect,
    )


class MemberRoleForm(PageForm):
    role = forms.ChoiceField(label=_("Role"), choices=SurveyMember.Role.choices)


class TransferForm(PageForm):
    user_id = forms.TypedChoiceField(label=_("New owner"), coerce=int)

    def __init__(self, *args, members, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["user_id"].choices = [
            (member.user_id, member.user.get_username()) for member in members
        ]
