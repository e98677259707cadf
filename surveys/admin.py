from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from . import selectors
from .models import Question, Survey


class QuestionInline(admin.TabularInline):
    model = Question
    fields = ("position", "text", "reports", "yes_reports")
    readonly_fields = ("reports", "yes_reports")
    extra = 0

    @admin.display(description=_("Reports"))
    def reports(self, question):
        return selectors.survey_tallies(survey=question.survey).of(question.pk)[0]

    @admin.display(description=_("Yes reports"))
    def yes_reports(self, question):
        return selectors.survey_tallies(survey=question.survey).of(question.pk)[1]


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "status", "response_count", "created_at")
    list_filter = ("status", "language")
    search_fields = ("title", "owner__username")
    readonly_fields = ("slug", "response_count", "created_at", "updated_at")
    inlines = [QuestionInline]
