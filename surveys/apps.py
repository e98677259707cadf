from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "Surveys"
    default_auto_field = "django.db.models.BigAutoField"
