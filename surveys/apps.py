from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "Surveys"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from .services.tokens import revoke_tokens_when_the_password_changes

        pre_save.connect(
            revoke_tokens_when_the_password_changes,
            sender=get_user_model(),
            dispatch_uid="surveys.revoke_tokens_when_the_password_changes",
        )
