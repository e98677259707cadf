"""The builder's questions: randomized questions (yes/no with a design, multiple choice,
numeric) and grouping questions (answered directly), added, edited, deleted and moved.

Editing and deleting work the same for both kinds; a :class:`QuestionKind` says what differs
(the model, the form, the service, the builder's section and the page's words). The builder's
script asks for JSON for the yes/no questions and swaps their block in place; a form posted
without a script gets a page.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.functional import Promise
from django.utils.translation import get_language_info, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from .. import selectors, services
from ..forms import GroupingQuestionForm, MoveForm, QuestionAddForm, QuestionForm
from ..models import GroupingQuestion, Question
from ..services import grouping
from .common import (
    EDITOR,
    FROZEN_REASON,
    builder_conflict,
    builder_context,
    builder_url,
    member_view,
    question_row,
    render_builder,
    try_write,
    write_and_redirect,
)


@dataclass(frozen=True)
class QuestionKind:
    """What differs between a randomized question (yes/no, multiple choice or numeric) and a
    grouping question on the builder (the edit page's words too: surveys/question_edit.html
    asks ``has_options``, true for a grouping question, and ``typed``)."""

    model: type
    form: type
    section: str  # the builder's anchor
    update: Callable  # (item, valid form) -> None, through the kind's service
    delete: Callable  # (item) -> None
    saved: Promise
    deleted: Promise
    # What the researcher must know after a save, beyond "saved" (result of ``update``).
    warnings: Callable = lambda result: []
    has_options: bool = False  # a grouping question's options (GroupingOption rows)
    typed: bool = False  # a question type and design to choose (QuestionTypeForm)


YES_NO = QuestionKind(
    model=Question,
    form=QuestionForm,
    section="questions",
    update=lambda item, form: services.question_update(
        question=item,
        text=form.cleaned_data["text"],
        required=form.cleaned_data["required"],
        question_type=form.type_spec(),
    ),
    delete=lambda item: services.question_delete(question=item),
    saved=gettext_lazy("Question saved."),
    deleted=gettext_lazy("Question deleted."),
    typed=True,
)

GROUPING = QuestionKind(
    model=GroupingQuestion,
    form=GroupingQuestionForm,
    section="grouping",
    update=lambda item, form: grouping.grouping_question_update(
        grouping_question=item,
        text=form.cleaned_data["text"],
        options=form.option_list(),
        required=form.cleaned_data["required"],
    ),
    delete=lambda item: grouping.grouping_question_delete(grouping_question=item),
    saved=gettext_lazy("Grouping question saved."),
    deleted=gettext_lazy("Grouping question deleted."),
    warnings=lambda saved: [
        _(
            "%(language)s is no longer offered to respondents: this question's new options "
            "are not translated into it yet. Add them on the Translations page."
        )
        % {"language": get_language_info(code)["name_translated"]}
        for code in saved.languages_dropped
    ],
    has_options=True,
)


def _wants_json(request, kind=YES_NO):
    """The builder's script asks for JSON; a form posted without a script asks for a page.
    The script swaps only the yes/no questions' block in place."""
    return kind is YES_NO and request.headers.get("Accept", "").startswith("application/json")


def _questions_json(request, survey, *, message="", question_form=None, status=200):
    """The builder's question block, re-rendered, for the script to swap in without a reload."""
    context = {**builder_context(survey), "question_form": question_form or QuestionAddForm()}
    html = render_to_string("surveys/_builder_questions.html", context, request=request)
    body = {"html": html, "questions": context["privacy"].questions, "message": str(message)}
    if question_form is not None and question_form.errors:
        body["errors"] = question_form.errors.get_json_data()
    return JsonResponse(body, status=status)


def _answer(request, survey, kind, message):
    """After a change: the question block as JSON for the script, else the builder's section."""
    if _wants_json(request, kind):
        return _questions_json(request, survey, message=message)
    if message:
        messages.success(request, message)
    return redirect(builder_url(survey, kind.section))


def _refusal(request, survey, kind=YES_NO):
    """``on_conflict`` for this kind: the conflict's message as JSON, else on the builder."""

    def answer(exc):
        if _wants_json(request, kind):
            return JsonResponse({"message": str(exc.message)}, status=409)
        return builder_conflict(request, survey, exc)

    return answer


# --- adding: the two kinds take different input -------------------------------------------


@member_view(POST=EDITOR)
def question_add(request, survey):
    form = QuestionAddForm(request.POST)

    def added(questions):
        count = len(questions)
        message = ngettext("Question added.", "%(n)d questions added.", count) % {"n": count}
        if _wants_json(request):
            # The next question often shares the type, design or scale: the box keeps them.
            return _questions_json(
                request, survey, message=message, question_form=form.next_question_form()
            )
        return _answer(request, survey, YES_NO, message)

    answer = try_write(
        lambda: services.questions_add(
            survey=survey,
            texts=form.cleaned_data["text"],
            required=form.cleaned_data["required"],
            question_type=form.type_spec(),
        ),
        then=added,
        form=form,
        on_conflict=_refusal(request, survey),
    )
    if answer:
        return answer
    if _wants_json(request):
        return _questions_json(request, survey, question_form=form, status=400)
    return render_builder(request, survey, question_form=form, status=400)


@member_view(POST=EDITOR)
def grouping_add(request, survey):
    form = GroupingQuestionForm.for_builder(request.POST)
    added = write_and_redirect(
        request,
        lambda: grouping.grouping_question_add(
            survey=survey,
            text=form.cleaned_data["text"],
            options=form.option_list(),
            required=form.cleaned_data["required"],
        ),
        form=form,
        message=_("Grouping question added."),
        to=builder_url(survey, GROUPING.section),
        on_conflict=_refusal(request, survey, GROUPING),
    )
    return added or render_builder(request, survey, grouping_form=form, status=400)


# --- editing and deleting: one implementation for both kinds ------------------------------


def edit_view(kind):
    """The edit page of one question of ``kind`` (its id is ``qid`` or ``gid`` in the address)."""

    @member_view(GET=EDITOR, POST=EDITOR)
    def edit(request, survey, **item_id):
        item = get_object_or_404(kind.model, pk=next(iter(item_id.values())), survey=survey)

        def page(form, status=200):
            context = {
                "survey": survey,
                "kind": kind,
                "item": item,
                "form": form,
                "frozen": survey.is_frozen,
                "frozen_reason": FROZEN_REASON,
            }
            if kind.typed:
                ledger = selectors.privacy_ledger(survey=survey, questions=[item])
                context["row"] = question_row(item, next(iter(ledger.entries), None))
            return render(request, "surveys/question_edit.html", context, status=status)

        if request.method != "POST":
            return page(kind.form(initial=kind.form.initial_for(item)))
        form = kind.form(request.POST)

        def refused(exc):
            messages.error(request, exc.message)
            return page(form, status=409)

        def done(result):
            messages.success(request, kind.saved)
            for warning in kind.warnings(result):
                messages.warning(request, warning)
            return redirect(builder_url(survey, kind.section))

        saved = try_write(
            lambda: kind.update(item, form), then=done, form=form, on_conflict=refused
        )
        return saved or page(form, status=400)

    return edit


def delete_view(kind):
    """Deleting one question of ``kind``: JSON for the builder's script where it asks."""

    @member_view(POST=EDITOR)
    def delete(request, survey, **item_id):
        item = get_object_or_404(kind.model, pk=next(iter(item_id.values())), survey=survey)
        try:
            kind.delete(item)
        except services.SurveyConflict as exc:
            return _refusal(request, survey, kind)(exc)
        return _answer(request, survey, kind, kind.deleted)

    return delete


question_edit = edit_view(YES_NO)
question_delete = delete_view(YES_NO)
grouping_edit = edit_view(GROUPING)
grouping_delete = delete_view(GROUPING)


@member_view(POST=EDITOR)
def question_move(request, survey, qid):
    question = get_object_or_404(Question, pk=qid, survey=survey)
    form = MoveForm(request.POST)
    if not form.is_valid():
        if _wants_json(request):
            return JsonResponse({"errors": form.errors.get_json_data()}, status=400)
        messages.error(request, _("The direction must be “up” or “down”."))
        return render_builder(request, survey, status=400)
    try:
        services.question_move(question=question, offset=form.offset)
    except services.SurveyConflict as exc:
        return _refusal(request, survey)(exc)
    if _wants_json(request):
        return _questions_json(request, survey, message=_("Question moved."))
    return redirect(builder_url(survey, YES_NO.section))
