"""The invitations page's forms: addresses pasted or uploaded, or a number of codes (each with
the language of the email or slip), and how the emails name the researcher."""

import csv
import io

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from .. import limits
from .fields import PageForm

# An uploaded list is small text: a thousand addresses fit in well under this.
EMAIL_FILE_MAX_BYTES = 512 * 1024


def _language_field(help_text):
    return forms.ChoiceField(
        label=_("Language"),
        required=False,
        choices=[("", _("The survey's own language")), *settings.LANGUAGES],
        help_text=help_text,
    )


class InvitationEmailsForm(PageForm):
    emails = forms.CharField(
        label=_("Email addresses"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_("One address per line. An address already invited is not invited again."),
    )
    file = forms.FileField(
        label=_("Or upload a CSV file with one column of addresses"),
        required=False,
    )
    language = _language_field(
        _("The email's language; the survey's own when the survey is not offered in it.")
    )

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("file")
        if upload is not None:
            if upload.size > EMAIL_FILE_MAX_BYTES:
                raise ValidationError({"file": _("The file is too large.")})
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise ValidationError({"file": _("The file is not UTF-8 text.")}) from None
            rows = [(line, row) for line, row in enumerate(csv.reader(io.StringIO(text)), 1)]
            for line, row in rows:
                if len([cell for cell in row if cell.strip()]) > 1:
                    raise ValidationError(
                        {"file": _("Line %(line)d has more than one column.") % {"line": line}}
                    )
            entries = [(line, row[0] if row else "") for line, row in rows]
        else:
            entries = list(enumerate((cleaned.get("emails") or "").splitlines(), 1))
        # Blank lines and a header row ("email") are not addresses; the others keep their
        # line numbers, so an error names the line the researcher sees.
        entries = [
            (line, value.strip())
            for line, value in entries
            if value.strip() and value.strip().lower() not in ("email", "e-mail", "emails")
        ]
        if not entries:
            raise ValidationError({"emails": _("Paste at least one address, or choose a file.")})
        cleaned["lines"] = [line for line, _value in entries]
        cleaned["addresses"] = [value for _line, value in entries]
        return cleaned

    def field_for_service_error(self, field):
        return "file" if self.cleaned_data.get("file") else field


class InvitationCodesForm(PageForm):
    count = forms.IntegerField(
        label=_("Number of anonymous codes"),
        min_value=1,
        max_value=limits.INVITATIONS_PER_REQUEST,
        help_text=_("For paper: a printable sheet with one QR code and code per slip."),
    )
    language = _language_field(
        _("The slips' language; the survey's own when the survey is not offered in it.")
    )


class InvitationSenderForm(PageForm):
    contact_name = forms.CharField(
        label=_("Your name as invitees see it"),
        required=False,
        max_length=limits.CONTACT_NAME_MAX_LENGTH,
        help_text=_("Emails and slips name you this way, never by your username."),
    )
    contact_email = forms.CharField(
        label=_("Contact address for questions about the study"),
        required=False,
        max_length=limits.EMAIL_MAX_LENGTH,
        help_text=_("Replies to the invitation go here. Blank: the email gives no address."),
    )
