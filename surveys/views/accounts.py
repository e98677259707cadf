"""Sign-in, sign-up, password change and reset (Django's views), the account page (email
address, API tokens) and the link that verifies an email address."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from .. import mail
from ..forms import ApiTokenForm, LoginForm, SignupForm
from ..forms.accounts import EmailChangeForm, VerifiedPasswordResetForm
from ..rate_limits import client_ident, window_for
from ..selectors import tokens as token_reads
from ..selectors.accounts import verified_address
from ..services import accounts as account_services
from ..services import tokens


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
        if account_services.verification_send(user=user, base_url=request.build_absolute_uri("/")):
            messages.info(
                request, _("We sent a link to your email address: follow it to verify it.")
            )
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
    form_class = VerifiedPasswordResetForm
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")
    extra_context = {
        "heading": gettext_lazy("Reset your password"),
        "intro": gettext_lazy(
            "Enter the email address of your account. If an account has verified it, we send "
            "a link to choose a new password."
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
        # Whether an account has this (verified) address, and the mail, are worked out on a
        # thread after the answer: a known address must not answer slower than an unknown one.
        options = {
            "domain_override": self.request.get_host(),
            "use_https": self.request.is_secure(),
            "token_generator": self.token_generator,
            "from_email": self.from_email,
            "email_template_name": self.email_template_name,
            "subject_template_name": self.subject_template_name,
        }
        language = translation.get_language()

        def send_reset():
            with translation.override(language):
                form.save(**options)

        mail.send_after_commit(send_reset)
        return HttpResponseRedirect(self.get_success_url())


class PasswordResetDoneView(ResetEnabledMixin, auth_views.PasswordResetDoneView):
    template_name = "accounts/message_page.html"
    extra_context = {
        "heading": gettext_lazy("Check your email"),
        "text": gettext_lazy(
            "If an account has verified this address, a link to choose a new password is on "
            "its way. It works for a few hours and only once."
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


# --- the account page: email address, password, API tokens ---------------------------------


def _email_action(request, action):
    """Change the address, or mail the verification link again; None when the form is shown
    again with its errors (returned as the second value)."""
    if action == "resend":
        window = (
            window_for(
                scope="verify-email",
                ident=f"user:{request.user.pk}",
                rate=settings.EMAIL_VERIFICATION_RATE_LIMIT,
            )
            if settings.EMAIL_VERIFICATION_RATE_LIMIT
            else None
        )
        if window is not None and window.hit() > window.limit:
            messages.error(request, _("Too many verification links asked for; try later."))
        elif verified_address(user=request.user):
            messages.info(request, _("Your address is verified already."))
        elif account_services.verification_send(
            user=request.user, base_url=request.build_absolute_uri("/")
        ):
            messages.success(request, _("We sent the link again: check your email."))
        else:
            messages.error(request, _("There is no address to send a link to, or no mail."))
        return redirect("account"), None
    form = EmailChangeForm(request.POST, user=request.user)
    if not form.is_valid():
        return None, form
    try:
        email = account_services.email_change(user=request.user, email=form.cleaned_data["email"])
    except ValidationError as exc:
        for message in exc.message_dict.get("email", []):
            form.add_error("email", message)
        return None, form
    if not email:
        messages.success(request, _("Your account has no email address now."))
    elif verified_address(user=request.user):
        messages.success(request, _("Your email address is unchanged and verified."))
    elif account_services.verification_send(
        user=request.user, base_url=request.build_absolute_uri("/")
    ):
        messages.success(request, _("Address saved. Follow the link we sent to it to verify it."))
    else:
        messages.success(request, _("Address saved; mail cannot leave this server to verify it."))
    return redirect("account"), None


@login_required
@require_http_methods(["GET", "POST"])
def account(request):
    action = request.POST.get("action")
    form = ApiTokenForm(request.POST if action == "issue" else None)
    email_form = EmailChangeForm(initial={"email": request.user.email}, user=request.user)
    issued = None
    if request.method == "POST":
        if action in ("email", "resend"):
            done, shown = _email_action(request, action)
            if done is not None:
                return done
            email_form = shown
        elif action == "issue" and form.is_valid():
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
        "email_form": email_form,
        "email_verified": bool(verified_address(user=request.user)),
        "mail_enabled": settings.MAIL_ENABLED,
        "issued": issued,
        "api_tokens": token_reads.tokens_of(user=request.user),
        "ttl_days": settings.API_TOKEN_TTL_DAYS,
    }
    failed = form.errors or email_form.errors
    return render(request, "accounts/account.html", context, status=400 if failed else 200)


# --- the link that verifies an email address -------------------------------------------------


@require_http_methods(["GET", "POST"])
def email_verify(request, token):
    """GET shows what the link would verify, for which account, and a button; the POST
    verifies. (A mail scanner that fetches links must not verify on the reader's behalf.)

    Only the signed-in account that asked for the link can use it: someone who signs up with
    a victim's address must not get it verified because the victim clicked the link mailed
    to them."""
    link = account_services.verification_read(token=token)
    if link is not None and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if link is not None and request.user.pk != link.user_id:
        return render(
            request,
            "accounts/message_page.html",
            {
                "heading": _("This link is not for your account"),
                "text": _(
                    "It verifies an address for another account than the one you are signed "
                    "in as (%(username)s), so it verifies nothing here. If you did not ask for "
                    "it, someone may have signed up with your address: ignore the link."
                )
                % {"username": request.user.get_username()},
                "link_url": reverse_lazy("account"),
                "link_label": _("Your account"),
            },
            status=403,
        )
    if link is None:
        return render(
            request,
            "accounts/message_page.html",
            {
                "heading": _("This link does not work"),
                "text": _(
                    "It has expired, or the account's address changed since it was sent. Ask for "
                    "a new one on your account page."
                ),
                "link_url": reverse_lazy("account"),
                "link_label": _("Your account"),
            },
            status=400,
        )
    if request.method == "POST":
        account_services.email_verify(link=link)
        return render(
            request,
            "accounts/message_page.html",
            {
                "heading": _("Address verified"),
                "text": _(
                    "%(email)s is verified: invitations to it reach your account, and password "
                    "reset links can be sent to it."
                )
                % {"email": link.email},
                "link_url": reverse_lazy("surveys:dashboard"),
                "link_label": _("My surveys"),
            },
        )
    return render(
        request,
        "accounts/verify_email.html",
        {"email": link.email, "username": request.user.get_username()},
    )
