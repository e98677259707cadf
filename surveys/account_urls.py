from django.contrib.auth import views as auth_views
from django.urls import path

from .views import accounts

urlpatterns = [
    path("login/", accounts.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", accounts.signup, name="signup"),
    path("", accounts.account, name="account"),
    path("password/change/", accounts.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/change/done/",
        accounts.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("password/reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password/reset/sent/",
        accounts.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        accounts.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
