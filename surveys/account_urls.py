from django.contrib.auth import views as auth_views
from django.urls import path

from . import account_views

urlpatterns = [
    path("login/", account_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", account_views.signup, name="signup"),
]
