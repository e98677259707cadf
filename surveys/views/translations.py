"""The builder's Translations page: the survey's texts beside an input for each other language."""

from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from ..forms import TranslationsForm
from ..selectors import languages
from ..services import translations
from .common import EDITOR, FROZEN_REASON, member_view, write_and_redirect


@member_view(GET=EDITOR, POST=EDITOR)
def survey_translations(request, survey):
    frozen = survey.is_frozen
    table = languages.survey_translation_table(survey=survey)
    status = 200
    if request.method == "POST":
        form = TranslationsForm(table=table, frozen=frozen, data=request.POST)
        saved = write_and_redirect(
            request,
            lambda: translations.survey_translations_save(survey=survey, texts=form.cleaned_data),
            form=form,
            message=_("Translations saved."),
            to=reverse("surveys:translations", kwargs={"pk": survey.pk}),
            # A conflict (the survey froze meanwhile) is said above the form.
            on_conflict=lambda exc: form.add_error(None, exc.message),
        )
        if saved:
            return saved
        status = 400
    else:
        form = TranslationsForm(table=table, frozen=frozen)
    return render(
        request,
        "surveys/translations.html",
        {
            "survey": survey,
            "table": table,
            "form": form,
            "frozen": frozen,
            "frozen_reason": FROZEN_REASON,
        },
        status=status,
    )
