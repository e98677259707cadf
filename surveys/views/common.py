"""What every researcher page shares: the role check, the one way a page saves through a
service, and the builder page that refused writes fall back to.

Every survey page goes through :func:`member_view`, which resolves the survey with
``selectors.survey_for`` *before* anything else, so a survey the user neither owns nor is a
member of is a 404 on every page and download, whatever the method (a member whose role is
too low gets a 403).
"""

import functools
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from .. import selectors, services
from ..designs import parameter_symbols
from ..forms import GroupingQuestionForm, QuestionAddForm, ScheduleForm, SurveyForm
from ..forms.question_types import (
    SURVEY_COINS,
    TYPE_SHORT_LABELS,
)
from ..models import Question, Survey
from ..selectors.warnings import survey_warnings
from ..services import schedule
from ..timezones import survey_zone

VIEWER, EDITOR, OWNER = selectors.VIEWER, selectors.EDITOR, selectors.OWNER
FROZEN_REASON = services.FROZEN_MESSAGE


def member_view(**roles):
    """Sign-in required; ``roles`` maps each method the view takes to the least role it needs
    (``GET=selectors.VIEWER, POST=selectors.EDITOR``).

    The survey is resolved by ``selectors.survey_for`` before anything else: someone who
    neither owns it nor is a member gets a 404 whatever the method, as for a missing survey;
    then a method not listed is a 405, and a member whose role is too low a 403. The roles are
    kept on the view (``survey_roles``) for the generated test matrix.
    """
    roles = {method.upper(): role for method, role in roles.items()}
    if "GET" in roles:
        roles.setdefault("HEAD", roles["GET"])
    allowed = list(roles)

    def decorate(view):
        @login_required
        @functools.wraps(view)
        def wrapper(request, pk, **kwargs):
            survey = selectors.survey_for(user=request.user, survey_id=pk, role=selectors.VIEWER)
            if request.method not in roles:
                return HttpResponseNotAllowed(allowed)
            selectors.ensure_role(survey=survey, role=roles[request.method])
            return view(request, survey, **kwargs)

        wrapper.survey_roles = roles
        return wrapper

    return decorate


def owner_view(*methods):
    """``member_view`` with every method for the owner alone."""
    return member_view(**dict.fromkeys(methods, selectors.OWNER))


def apply_service_errors(form, exc: ValidationError):
    """Attach a service's ``{field: [message]}`` errors to the form fields they name (a form
    whose fields are named otherwise maps them with ``field_for_service_error``, and may word
    a coded error with its own labels in ``message_for_service_error``)."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    field_for = getattr(form, "field_for_service_error", None)
    reword = getattr(form, "message_for_service_error", None)
    for name, errors in exc.error_dict.items():
        field = field_for(name) if field_for is not None else name
        field = field if field in form.fields else None
        messages = []
        for error in errors:
            worded = reword(error) if reword is not None else None
            messages.extend([worded] if worded else error.messages)
        form.add_error(field, messages)


def try_write(write, *, then, form=None, on_conflict=None):
    """The one way a page saves: ``write()`` calls one service, and ``then(result)`` answers.

    With a ``form``, nothing is written unless it is valid, and a service's
    ``ValidationError`` lands on the fields it names; both return None, for the caller to show
    the form again. A ``SurveyConflict`` (a frozen survey, nothing to open) is answered by
    ``on_conflict(exc)``; where the service cannot raise one, none is given.
    """
    if form is not None and not form.is_valid():
        return None
    try:
        result = write()
    except ValidationError as exc:
        if form is None:
            raise
        apply_service_errors(form, exc)
        return None
    except services.SurveyConflict as exc:
        if on_conflict is None:
            raise
        return on_conflict(exc)
    return then(result)


def write_and_redirect(request, write, *, message, to, form=None, on_conflict=None):
    """:func:`try_write`, answered by ``message`` and a redirect to ``to`` (each a value, or a
    function of what ``write`` returned)."""

    def then(result):
        messages.success(request, message(result) if callable(message) else message)
        return redirect(to(result) if callable(to) else to)

    return try_write(write, then=then, form=form, on_conflict=on_conflict)


def builder_url(survey, section=""):
    url = reverse("surveys:builder", kwargs={"pk": survey.pk})
    return f"{url}#{section}" if section else url


# --- the builder page, shown again after a refused write -----------------------------------


@dataclass(frozen=True)
class QuestionRow:
    """One question as the builder lists it: its type, its design or parameters, its ε."""

    question: Question
    type_label: str
    design_label: str  # yes/no: the design's name; choice: how many options; numeric: range
    parameters: list  # [(symbol, value)] shown after the design or type
    epsilon: float | None  # from the privacy ledger


def _parameter_text(value) -> str:
    """``0.75``; a cheating-detection design's pair ``p`` as ``0.25 / 0.75``."""
    if isinstance(value, list | tuple):
        return " / ".join(f"{item:g}" for item in value)
    return f"{value:g}"


def question_row(question, entry) -> QuestionRow:
    parameters = []
    design_label = ""
    if question.kind == Question.Kind.YES_NO:
        design = dict(question.design or {})
        kind = design.pop("kind", SURVEY_COINS)
        label = selectors.DESIGN_LABELS.get(kind)
        design_label = label.short if label else kind
        symbols = parameter_symbols()
        parameters = [
            (symbols.get(name, name), _parameter_text(value)) for name, value in design.items()
        ]
    elif question.kind == Question.Kind.NUMERIC:
        design_label = gettext("whole numbers from %(min)d to %(max)d") % {
            "min": question.min_value,
            "max": question.max_value,
        }
    elif question.kind == Question.Kind.CHOICE:
        count = len(question.options)
        design_label = ngettext("%(n)d option", "%(n)d options", count) % {"n": count}
    if not question.randomized:
        # Said before anything else: no design, no ε.
        design_label = " · ".join(
            str(part) for part in (gettext("asked directly, no ε"), design_label) if part
        )
        parameters = []
    return QuestionRow(
        question=question,
        type_label=TYPE_SHORT_LABELS.get(question.kind, question.kind),
        design_label=design_label,
        parameters=parameters,
        epsilon=entry.epsilon if entry is not None else None,
    )


def question_rows(questions, ledger) -> list[QuestionRow]:
    """What the builder lists for each question, with its ε from the privacy ledger."""
    by_id = {entry.question_id: entry for entry in ledger.entries}
    return [question_row(question, by_id.get(question.pk)) for question in questions]


def builder_context(survey):
    questions = selectors.survey_questions(survey=survey)
    privacy = selectors.survey_privacy(survey=survey)
    return {
        "survey": survey,
        "frozen": survey.is_frozen,
        "frozen_reason": (
            services.PILOT_RESPONSES_MESSAGE
            if survey.status == Survey.Status.PILOT
            else FROZEN_REASON
        ),
        "phase": schedule.phase_of(survey),
        "questions": questions,
        "question_rows": question_rows(questions, privacy.ledger),
        "grouping_questions": selectors.survey_grouping_questions(survey=survey),
        "privacy": privacy,
        "needs": selectors.question_sample_sizes(survey=survey, questions=questions),
        "presets": selectors.preset_coins(),
        "survey_warnings": survey_warnings(survey=survey),
    }


def render_builder(
    request,
    survey,
    *,
    form=None,
    question_form=None,
    grouping_form=None,
    schedule_form=None,
    status=200,
):
    context = builder_context(survey)
    context["form"] = form or SurveyForm(
        initial=SurveyForm.initial_for(survey),
        frozen=survey.is_frozen,
        current_confidence=survey.confidence,
        suggested_target=context["privacy"].respondents_for_margin,
    )
    context["schedule_form"] = schedule_form or ScheduleForm(
        initial={
            "opens_at": survey.opens_at,
            "closes_at": survey.closes_at,
            "time_zone": survey.time_zone,
        }
    )
    context["question_form"] = question_form or QuestionAddForm()
    context["grouping_form"] = grouping_form or GroupingQuestionForm.for_builder()
    # Every time on the builder (the schedule's inputs included) in the survey's zone.
    with timezone.override(survey_zone(survey)):
        return render(request, "surveys/builder.html", context, status=status)


def builder_conflict(request, survey, exc):
    """A state conflict (frozen survey, nothing to open) is a message on the builder, not a 500."""
    messages.error(request, exc.message)
    fresh = selectors.survey_for(user=request.user, survey_id=survey.pk, role=selectors.VIEWER)
    return render_builder(request, fresh, status=409)


def on_builder(request, survey):
    """``on_conflict`` for :func:`write_and_redirect`: the builder with the conflict's message."""
    return functools.partial(builder_conflict, request, survey)


def builder_action(request, survey, write, message):
    """A button on the builder: ``write(survey=survey)``, then the builder with ``message`` (a
    value, or a function of what ``write`` returned); a conflict is shown on the builder."""
    return write_and_redirect(
        request,
        lambda: write(survey=survey),
        message=message,
        to=builder_url(survey),
        on_conflict=on_builder(request, survey),
    )
