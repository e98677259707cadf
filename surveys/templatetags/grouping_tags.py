"""The respondent page's grouping questions, for the page and the researcher's preview alike."""

from django import template

from .. import selectors

register = template.Library()


@register.simple_tag
def survey_grouping_questions(survey):
    """The survey's grouping questions with their options (one query each, prefetched), or
    those already prefetched on ``survey`` (a respondent's page in its language)."""
    if "grouping_questions" in getattr(survey, "_prefetched_objects_cache", {}):
        return list(survey.grouping_questions.all())
    return selectors.survey_grouping_questions(survey=survey)
