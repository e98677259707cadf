"""The builder's Translations page: the survey's texts beside an input for each other language."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from . import languages, services, translations
from .selectors import EDITOR
from .translation_forms import TranslationsForm
from .views import FROZEN_REASON, member_view


@member_view(GET=EDITOR, POST=EDITOR)
def survey_translations(request, survey):
    frozen = survey.is_frozen
    table = languages.survey_translation_table(survey=survey)
    status = 200
    if request.method == "POST":
        form = TranslationsForm(table=table, frozen=frozen, data=request.POST)
        if form.is_valid():
            try:
                translations.survey_translations_save(survey=survey, texts=form.cleaned_data)
            except ValidationError as exc:
                for field, problems in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, problems)
            except services.SurveyConflict as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, _("Translations saved."))
                return redirect("surveys:translations", pk=survey.pk)
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
