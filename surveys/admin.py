from django.contrib import admin

from .models import Question, Survey


class QuestionInline(admin.TabularInline):
    model = Question
    fields = ("position", "text", "report_count", "yes_count")
    readonly_fields = ("report_count", "yes_count")
    extra = 0


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "status", "response_count", "created_at")
    list_filter = ("status", "language")
    search_fields = ("title", "owner__username")
    readonly_fields = ("slug", "response_count", "created_at", "updated_at")
    inlines = [QuestionInline]
