from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import selectors, services
from .formatting import epsilon_text
from .forms import AdminLoginForm
from .limits import PUBLIC_EPSILON_MAX, PUBLIC_EPSILON_MIN
from .models import Question, Survey, SurveyMember

# The admin's sign-in counts against the same failure limits as the site's.
admin.site.login_form = AdminLoginForm


def _frozen(survey):
    return survey is not None and survey.pk is not None and survey.is_frozen


def parameters_text(value) -> str:
    """``0.75``, or a cheating-detection design's pair as ``0.25/0.75``."""
    if isinstance(value, list | tuple):
        return "/".join(f"{item:g}" for item in value)
    return f"{value:g}"


class QuestionInline(admin.TabularInline):
    """A question's text and place; its type and parameters are shown, never edited here:
    they are set on the builder or through the API, where the services check them
    (``services.question_types``), so the admin cannot store a spec that does not build."""

    model = Question
    fields = ("position", "text", "kind", "parameters", "reports", "yes_reports")
    readonly_fields = ("kind", "parameters", "reports", "yes_reports")
    extra = 0

    @admin.display(description=gettext_lazy("Design and parameters"))
    def parameters(self, question):
        if question.pk is None:
            return "—"
        mechanism = selectors.question_mechanism(question, survey=question.survey)
        if mechanism is None:
            return gettext_lazy("Asked directly (not randomized)")
        epsilon = mechanism.epsilon
        if question.kind == Question.Kind.CHOICE:
            described = " / ".join(question.options)
        elif question.kind == Question.Kind.NUMERIC:
            described = f"{question.min_value}–{question.max_value}"
        else:
            described = ", ".join(
                [selectors.design_name(question)]
                + [
                    f"{name}={parameters_text(value)}"
                    for name, value in question.design.items()
                    if name != "kind"
                ]
            )
        if selectors.is_cheating_detection(question):
            # No finite ε: a "no" is conclusive; a "yes" has the one-sided bound.
            return f"{described} · ε = ∞, ε_yes = {epsilon_text(mechanism.epsilon_yes)}"
        return f"{described} · ε = {epsilon_text(epsilon)}"

    @admin.display(description=gettext_lazy("Reports"))
    def reports(self, question):
        return selectors.survey_tallies(survey=question.survey).reports_of(question.pk)

    @admin.display(description=gettext_lazy("Yes reports"))
    def yes_reports(self, question):
        tallies = selectors.survey_tallies(survey=question.survey)
        if selectors.is_cheating_detection(question):
            codes = tallies.counts_of(question.pk, width=selectors.report_range(question)[2] + 1)
            return codes[1] + codes[3]  # codes 1 and 3: a "yes" in group 1 or 2
        if question.kind != Question.Kind.YES_NO:
            return "—"  # a choice or numeric question's tallies are on its results
        return tallies.of(question.pk)[1]

    # A frozen survey's questions are shown, never changed: its reports answer these texts.
    def has_add_permission(self, request, obj=None):
        return not _frozen(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return not _frozen(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not _frozen(obj) and super().has_delete_permission(request, obj)


class SurveyAdminForm(forms.ModelForm):
    """The services' rules for the survey's fields, and the public page's ε range."""

    class Meta:
        model = Survey
        fields = (
            "owner",
            "title",
            "intro",
            "language",
            "status",
            *services.DESIGN_FIELDS,
            "confidence",
            "ci_method",
            "min_n",
            "public_results",
            "public_epsilon",
        )

    def clean(self):
        cleaned = super().clean()
        editable = {
            field: cleaned[field]
            for field in services.EDITABLE_SURVEY_FIELDS
            if field in cleaned and cleaned[field] is not None
        }
        current = self.instance if self.instance.pk else None
        try:
            services.clean_survey_fields(editable, current=current)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                self.add_error(field if field in self.fields else None, errors)
        epsilon = cleaned.get("public_epsilon")
        if epsilon is not None and not PUBLIC_EPSILON_MIN <= epsilon <= PUBLIC_EPSILON_MAX:
            self.add_error(
                "public_epsilon",
                _("Must be a number from %(min)s to %(max)s, got %(v)r.")
                % {"min": PUBLIC_EPSILON_MIN, "max": PUBLIC_EPSILON_MAX, "v": epsilon},
            )
        return cleaned


class MemberInline(admin.TabularInline):
    """Co-researchers (docs/researchers.md, "Co-researchers"); the owner is the survey's own
    field."""

    model = SurveyMember
    fk_name = "survey"
    fields = ("user", "role", "invited_by", "created_at")
    readonly_fields = ("invited_by", "created_at")
    raw_id_fields = ("user",)
    extra = 0


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    form = SurveyAdminForm
    list_display = ("title", "owner", "status", "response_count", "created_at")
    list_filter = ("status", "language")
    search_fields = ("title", "owner__username")
    readonly_fields = ("slug", "response_count", "created_at", "updated_at")
    inlines = [QuestionInline, MemberInline]

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if _frozen(obj):
            # Reports were drawn with these coins: other coins would change what they mean.
            fields += list(services.DESIGN_FIELDS)
        return fields
