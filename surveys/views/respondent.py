"""The pages anyone may open: the respondent page ``/s/<slug>/`` and public results ``/r/<slug>/``.

The respondent page itself never receives an answer. Its inputs belong to no form;
static/js/respond.js flips the coins in the browser and posts only the randomized bits to the
public API. Neither page sets a cookie: a language chosen on it travels in the address.
"""

import functools

from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone, translation
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog

from .. import selectors
from ..selectors import languages
from ..selectors.explanations import respondent_explanation
from ..services import public_release, schedule


def chosen_language(request):
    """The language picked with a respondent page's switcher (``?lang=``), if supported.

    Respondent and public pages set no cookie, so the choice travels in the address.
    """
    chosen = languages.supported_languages([request.GET.get("lang", "")])
    return chosen[0] if chosen else None


def page_language(request, survey):
    """The switcher's choice, else the survey's language unless the browser asks for a
    language the site supports.

    A respondent's browser saying "Korean please" gets the page's explanations in Korean even
    on an English survey (the survey's own text keeps its ``lang``); a browser that asks for
    nothing we support reads the page in the survey's language rather than the site default.
    """
    chosen = chosen_language(request)
    if chosen:
        return chosen
    cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
    header = request.headers.get("Accept-Language", "")
    if languages.supported_languages([cookie, *languages.accept_language_tags(header)]):
        # LocaleMiddleware already picked the best of the browser's choices.
        return translation.get_language()
    return survey.language


class LanguageCatalog(JavaScriptCatalog):
    """The scripts' strings in the page's language: ``?lang=`` as base.html asks for it.

    A respondent page's language can come from its address (``chosen_language``), which
    LocaleMiddleware does not read.
    """

    def get(self, request, *args, **kwargs):
        with translation.override(_address_language(request)):
            return super().get(request, *args, **kwargs)


def _address_language(request):
    """The language a page without a survey to go by is shown in: the switcher's, else the
    one LocaleMiddleware picked."""
    return chosen_language(request) or translation.get_language()


def public_page(not_found_template):
    """A page anyone may open by a survey's slug: read-only (GET, HEAD), never cached (open and
    closed must show at once, and no true answer lingers in a cache), and a missing survey is
    ``not_found_template`` in the address's language, status 404."""

    def decorate(view):
        @never_cache
        @require_safe
        @functools.wraps(view)
        def page(request, slug):
            try:
                return view(request, slug)
            except Http404:
                with translation.override(_address_language(request)):
                    return render(request, not_found_template, status=404)

        return page

    return decorate


@public_page("respond/not_found.html")
def respond(request, slug):
    survey = selectors.survey_by_slug(slug=slug)
    phase = schedule.phase_of(survey)
    if phase not in schedule.Phase.ACCEPTING:
        # Nothing to answer: the notice in the respondent's language as before, the title in
        # it too when the survey is offered in it; the scheduled close, when that is what
        # closed it (not an earlier close by hand).
        language = page_language(request, survey)
        survey = languages.survey_for_respondent(survey=survey, preferences=[language])
        closes_at = survey.closes_at
        closed_on = closes_at if closes_at and closes_at <= timezone.now() else None
        context = {"survey": survey, "phase": phase, "closed_on": closed_on}
        return _in_language(language, lambda: render(request, "respond/unavailable.html", context))
    # The survey's texts and the page around them in one language: the first the respondent
    # asks for that the survey is offered in, else the survey's own
    # (surveys/selectors/languages.py).
    survey = languages.survey_for_respondent(
        survey=survey, preferences=languages.language_preferences(request)
    )
    context = respond_page_context(survey, preview=False)
    # The language menu offers only these (none at all when there is one).
    context["offered_languages"] = survey.languages
    return _in_language(survey.language, lambda: render(request, "respond/respond.html", context))


def respond_page_context(survey, *, preview):
    """What respond/respond.html reads, for the respondent page and the researcher's preview:
    ``survey`` as ``languages.survey_for_respondent`` returns it, its texts prefetched."""
    questions = list(survey.questions.all())
    # Each question's randomization in numbers, and the privacy ledger: summed once, here.
    explained = respondent_explanation(survey=survey, questions=questions)
    return {
        "survey": survey,
        "questions": questions,
        "grouping_questions": list(survey.grouping_questions.all()),
        # The comprehension check's rounds (static/js/comprehension.js), before the questions.
        "practice_rounds": selectors.practice_rounds(survey=survey),
        "privacy": selectors.survey_privacy(survey=survey, ledger=explained.ledger),
        "explained": explained,
        "preview": preview,
    }


def _in_language(language, render_page):
    with translation.override(language):
        response = render_page()
    response.headers["Content-Language"] = language
    return response


@public_page("public/not_found.html")
def public_results_page(request, slug):
    survey = selectors.public_results_survey(slug=slug)
    public_release.make_due_releases(survey=survey)
    results = selectors.public_results(survey=survey)
    return _in_language(
        page_language(request, results.survey),
        lambda: render(request, "public/results.html", {"results": results}),
    )
