"""Sign-in, sign-up, the account page and the password pages (surveys/views/accounts.py)."""

from django.contrib.auth.views import LogoutView
from django.urls import path

from .views import accounts
from .views.accounts import (
    LoginView,
    PasswordChangeDoneView,
    PasswordChangeView,
    PasswordResetCompleteView,
    PasswordResetConfirmView,
    PasswordResetDoneView,
    PasswordResetView,
)

urlpatterns = [
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("signup/", accounts.signup, name="signup"),
    path("", accounts.account, name="account"),
    path("email/verify/<str:token>/", accounts.email_verify, name="email_verify"),
    path("password/change/", PasswordChangeView.as_view(), name="password_change"),
    path("password/change/done/", PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("password/reset/", PasswordResetView.as_view(), name="password_reset"),
    path("password/reset/sent/", PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/", PasswordResetCompleteView.as_view(), name="password_reset_complete"
    ),
]
