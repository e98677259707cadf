"""Sign-in, sign-up, password change and reset (Django's views), and the account page."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from .. import tokens
from ..api.throttling import client_ident, window_for
from ..forms import ApiTokenForm, LoginForm, SignupForm


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True
    authentication_form = LoginForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.login_block is not None:
            response.status_code = 429
            response["Retry-After"] = str(form.login_block.retry_after)
        return response


def signup(request):
    if not settings.SIGNUP_ENABLED:
        raise Http404("Sign-up is switched off on this server.")
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and settings.SIGNUP_RATE_LIMIT:
        # Every attempt counts, valid or not: accounts are what the other limits are per.
        window = window_for(
            scope="signup", ident=client_ident(request), rate=settings.SIGNUP_RATE_LIMIT
        )
        if window.hit() > window.limit:
            form.is_valid()  # so the page shows the fields as sent
            form.add_error(None, _("Too many sign-ups from this network; try again later."))
            response = render(request, "accounts/signup.html", {"form": form}, status=429)
            response["Retry-After"] = str(window.ttl)
            return response
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="surveys.login_throttle.ThrottledModelBackend")
        return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "accounts/signup.html", {"form": form})


# --- password change: this session stays, the others and every API token end --------------


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/form_page.html"
    success_url = reverse_lazy("password_change_done")
    extra_context = {
        "heading": gettext_lazy("Change your password"),
        "submit_label": gettext_lazy("Change password"),
    }

    # Django keeps this session (update_session_auth_hash); every other session of the user
    # fails its password-hash check on its next request and is signed out. The API tokens are
    # revoked by the save itself (tokens.revoke_tokens_when_the_password_changes).


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "accounts/message_page.html"
    extra_context = {
        "heading": gettext_lazy("Password changed"),
        "text": gettext_lazy(
            "Your password has been changed. You were signed out everywhere else, and your "
            "API tokens were revoked: issue new ones on your account page."
        ),
        "link_url": reverse_lazy("account"),
        "link_label": gettext_lazy("Your account"),
    }


# --- password reset by email ---------------------------------------------------------------


class ResetEnabledMixin:
    """The reset pages exist only where mail can leave the server (settings, "Email")."""

    def dispatch(self, request, *args, **kwargs):
        if not settings.PASSWORD_RESET_ENABLED:
            raise Http404("Password reset by email is not set up on this server.")
        return super().dispatch(request, *args, **kwargs)


class PasswordResetView(ResetEnabledMixin, auth_views.PasswordResetView):
    template_name = "accounts/form_page.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")
    extra_context = {
        "heading": gettext_lazy("Reset your password"),
        "intro": gettext_lazy(
            "Enter the email address of your account. If it belongs to an account, we send a "
            "link to choose a new password."
        ),
        "submit_label": gettext_lazy("Send the link"),
    }

    def form_valid(self, form):
        # Each request may send an email: limited per client like sign-in failures.
        if settings.PASSWORD_RESET_RATE_LIMIT:
            window = window_for(
                scope="password-reset",
                ident=client_ident(self.request),
                rate=settings.PASSWORD_RESET_RATE_LIMIT,
            )
            if window.hit() > window.limit:
                form.add_error(None, _("Too many reset requests from this network; try later."))
                response = self.form_invalid(form)
                response.status_code = 429
                response["Retry-After"] = str(window.ttl)
                return response
        return super().form_valid(form)


class PasswordResetDoneView(ResetEnabledMixin, auth_views.PasswordResetDoneView):
    template_name = "accounts/message_page.html"
    extra_context = {
        "heading": gettext_lazy("Check your email"),
        "text": gettext_lazy(
            "If the address belongs to an account, a link to choose a new password is on its "
            "way. It works for a few hours and only once."
        ),
        "link_url": reverse_lazy("login"),
        "link_label": gettext_lazy("Sign in"),
    }


class PasswordResetConfirmView(ResetEnabledMixin, auth_views.PasswordResetConfirmView):
    template_name = "accounts/form_page.html"
    success_url = reverse_lazy("password_reset_complete")
    extra_context = {
        "heading": gettext_lazy("Choose a new password"),
        "submit_label": gettext_lazy("Set password"),
        "invalid_text": gettext_lazy(
            "This reset link is not valid: it was used already or has expired. Ask for a new one."
        ),
    }
    # The new password's hash ends every session; the API tokens end with them when the user
    # is saved (tokens.revoke_tokens_when_the_password_changes).


class PasswordResetCompleteView(ResetEnabledMixin, auth_views.PasswordResetCompleteView):
    template_name = "accounts/message_page.html"
    extra_context = {
        "heading": gettext_lazy("Password set"),
        "text": gettext_lazy("Your new password is set, and you can sign in with it now."),
        "link_url": reverse_lazy("login"),
        "link_label": gettext_lazy("Sign in"),
    }


# --- the account page: password, API tokens ------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def account(request):
    form = ApiTokenForm(request.POST if request.POST.get("action") == "issue" else None)
    issued = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "issue" and form.is_valid():
            try:
                issued = tokens.token_issue(user=request.user, name=form.cleaned_data["name"])
            except ValidationError as exc:
                for message in exc.message_dict.get("name", []):
                    form.add_error("name", message)
            else:
                form = ApiTokenForm()
        elif action == "revoke":
            token_id = request.POST.get("token", "")
            if (
                token_id.isascii()
                and token_id.isdigit()
                and tokens.token_revoke(user=request.user, token_id=int(token_id))
            ):
                messages.success(request, _("The token is revoked."))
            else:
                messages.error(request, _("No such token of yours."))
            return redirect("account")
        elif action != "issue":
            messages.error(request, _("Unknown action."))
            return redirect("account")
    context = {
        "form": form,
        "issued": issued,
        "api_tokens": tokens.tokens_of(user=request.user),
        "ttl_days": settings.API_TOKEN_TTL_DAYS,
    }
    return render(request, "accounts/account.html", context, status=400 if form.errors else 200)
