"""The check a change of a survey's own language must pass: no translation into the new one
(called by the survey writes; the translations' own writes are ``translations.py``)."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..selectors.languages import survey_texts, survey_with_texts


def ensure_default_language_change(*, survey, language) -> None:
    """Refuse making ``language`` the survey's own while the survey holds a translation into
    it (whose texts would then be ignored, or shown as if they were the default)."""
    if language == survey.language:
        return
    loaded = survey_with_texts(survey=survey)
    texts = survey_texts(
        survey=loaded, questions=loaded.questions.all(), grouping=loaded.grouping_questions.all()
    )
    if any(text.translated(language) for text in texts):
        raise ValidationError(
            {
                "language": [
                    _(
                        "This survey has a translation into %(code)s; clear it on the "
                        "Translations page before making %(code)s the survey's own language."
                    )
                    % {"code": language}
                ]
            }
        )
