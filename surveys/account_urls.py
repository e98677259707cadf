from django.contrib.auth import views as auth_views
from django.urls import path

from . import account_views

urlpatterns = [
    path("login/", account_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", account_views.signup, name="signup"),
    path("", account_views.account, name="account"),
    path("password/change/", account_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/change/done/",
        account_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("password/reset/", account_views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password/reset/sent/",
        account_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        account_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        account_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
