"""The respondent page's grouping questions, for the page and the researcher's preview alike."""

from django import template

from .. import analysis

register = template.Library()


@register.simple_tag
def survey_grouping_questions(survey):
    """The survey's grouping questions with their options (one query each, prefetched)."""
    return analysis.survey_grouping_questions(survey=survey)
