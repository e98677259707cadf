"""Account forms: Django's own, with the sign-in limit checked before any password."""

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from ..login_throttle import login_block
from ..tokens import NAME_MAX_LENGTH


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
        max_length=NAME_MAX_LENGTH,
        required=False,
        help_text=_("What the token is for, such as a script or a machine."),
    )


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Email"),
        required=False,
        help_text=_("Only for password reset links. Without it, a lost password is lost."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
