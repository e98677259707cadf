"""Account forms: Django's own, with the sign-in limit checked before any password."""

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from .. import limits
from ..limits import API_TOKEN_NAME_MAX_LENGTH
from ..login_throttle import login_block
from ..selectors.accounts import normalized_email


class ThrottledLoginMixin:
    """Refuses with a message saying so (code ``throttled``) while sign-in is blocked."""

    login_block = None

    def clean(self):
        self.login_block = login_block(
            request=self.request, username=self.cleaned_data.get("username")
        )
        if self.login_block is not None:
            raise ValidationError(self.login_block.message(), code="throttled")
        return super().clean()


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    pass


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=API_TOKEN_NAME_MAX_LENGTH,
        required=False,
        help_text=_("What the token is for, such as a script or a machine."),
    )


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Email"),
        required=False,
        help_text=_(
            "For password reset links and invitations by email, once you follow the link we "
            "send to it. Without it, a lost password is lost."
        ),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class VerifiedPasswordResetForm(PasswordResetForm):
    """Reset links go only to an address its account has verified: an address anyone typed
    at sign-up proves nothing about who reads it."""

    def get_users(self, email):
        verified = normalized_email(email)
        return (
            user
            for user in super().get_users(email)
            if hasattr(user, "verified_email") and user.verified_email.email == verified
        )


class EmailChangeForm(forms.Form):
    email = forms.EmailField(
        label=_("Email address"),
        required=False,
        max_length=limits.EMAIL_MAX_LENGTH,
        help_text=_("A new address is trusted once you follow the link we send to it."),
    )
    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=_("Password resets go to this address, so changing it takes your password."),
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise ValidationError(_("This is not your password."), code="password_incorrect")
        return password
