"""The comprehension check (issue 27 item 4): one hidden question per practised design.

A survey with ``comprehension_check`` walks each respondent through one practice round of
every yes/no design (and procedure) its questions use before the real questions
(static/js/comprehension.js), and sends, for each, whether the first try was right: a direct
yes/no answer to a hidden question of role ``comprehension`` whose ``design`` and
``procedure`` are the ones practised. Stored, tallied, checked and exported as any direct
yes/no answer, so the submission path needs nothing of its own; its results are read by
``surveys/selectors/comprehension.py``.

The questions follow the survey's designs: ``comprehension_sync`` runs after every change to
the questions or the setting (``pilot.pilot_design_refresh`` calls it, as do creating and
duplicating a survey), inside the caller's transaction.
"""

import json

from ..designs import cheating_kinds, practised_kinds
from ..models import Question, Survey

# The designs the respondent page has a practice round for, under either procedure: those whose
# row of the design table has one (surveys/designs.py; the browser reads the same kinds from
# static/js/constants.js PRACTICE_KINDS); CDM and SLD only under the respondent procedure (the
# only one they are asked with since issue 33). Any other is asked without a round.
PRACTISED_KINDS = practised_kinds()
RESPONDENT_ONLY_KINDS = cheating_kinds()
FORCED_RESPONSE = "forced_response"
RESPONDENT = Question.Procedure.RESPONDENT


def _canonical(design, procedure) -> str:
    return json.dumps([design, procedure], sort_keys=True)


def _practised(question) -> bool:
    kind = question.design.get("kind", FORCED_RESPONSE)
    return kind in PRACTISED_KINDS or (
        kind in RESPONDENT_ONLY_KINDS and question.procedure == RESPONDENT
    )


def practised_designs(questions) -> list[tuple[dict, str]]:
    """The distinct ``(design, procedure)`` of the randomized yes/no ``questions`` that have
    a practice round, in the order the questions first use them; ``{}`` is the survey's own
    coins. The same design under the two procedures is practised twice: what the respondent
    does differs (enter the truth, or follow the instruction shown)."""
    seen, designs = set(), []
    for question in questions:
        if question.kind != Question.Kind.YES_NO or not question.randomized:
            continue
        if not _practised(question):
            continue
        key = _canonical(question.design, question.procedure)
        if key not in seen:
            seen.add(key)
            designs.append((question.design, question.procedure))
    return designs


def comprehension_text(design, procedure=Question.Procedure.DEVICE) -> str:
    """The hidden question's text (a variable label in exports): which practice it records."""
    followed = ", the respondent follows the coin" if procedure == RESPONDENT else ""
    if not design:
        return f"Understood the practice round (the survey's coins, forced response{followed})"
    parameters = ", ".join(f"{key} = {value}" for key, value in design.items() if key != "kind")
    return f"Understood the practice round ({design['kind']}: {parameters}{followed})"


def comprehension_sync(*, survey) -> None:
    """Give ``survey`` one comprehension question per practised design when it checks
    comprehension, none otherwise; a question whose design is still used keeps its id (a
    page already loaded still names it). Nothing changes once the design is frozen."""
    survey = Survey.objects.only("id", "comprehension_check", "opened_at").get(pk=survey.pk)
    if survey.opened_at is not None:
        return
    wanted = (
        practised_designs(Question.objects.filter(survey=survey))
        if survey.comprehension_check
        else []
    )
    existing = {
        _canonical(question.design, question.procedure): question
        for question in Question.all_objects.filter(survey=survey, role=Question.Role.COMPREHENSION)
    }
    keep = {_canonical(*pair) for pair in wanted}
    stale = [question.pk for key, question in existing.items() if key not in keep]
    if stale:
        Question.all_objects.filter(pk__in=stale).delete()
    Question.all_objects.bulk_create(
        Question(
            survey=survey,
            position=index,
            text=comprehension_text(design, procedure),
            kind=Question.Kind.YES_NO,
            design=design,
            procedure=procedure,
            randomized=False,
            required=False,
            role=Question.Role.COMPREHENSION,
        )
        for index, (design, procedure) in enumerate(wanted)
        if _canonical(design, procedure) not in existing
    )
    # In the order the questions first use each design: the order of the practice rounds.
    order = [_canonical(*pair) for pair in wanted]
    kept = [existing[key] for key in order if key in existing]
    for question in kept:
        question.position = order.index(_canonical(question.design, question.procedure))
    Question.all_objects.bulk_update(kept, ["position"])
