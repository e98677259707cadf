"""The comprehension check (issue 27 item 4): one hidden question per practised design.

A survey with ``comprehension_check`` walks each respondent through one practice round of
every yes/no design its questions use before the real questions (static/js/practice.js), and
sends, for each design, whether the first try was right: a direct yes/no answer to a hidden
question of role ``comprehension`` whose ``design`` is the design practised. Stored, tallied,
checked and exported as any direct yes/no answer, so the submission path needs nothing of
its own; its results are read by ``surveys/selectors/comprehension.py``.

The questions follow the survey's designs: ``comprehension_sync`` runs after every change to
the questions or the setting (``pilot.pilot_design_refresh`` calls it, as do creating and
duplicating a survey), inside the caller's transaction.
"""

import json

from ..models import Question, Survey

# The designs the respondent page has a practice round for (static/js/practice.js
# PRACTICE_KINDS); a design outside them is asked without a practice round and has no check.
PRACTISED_KINDS = ("forced_response", "warner", "unrelated_question", "kuk", "mangat")
FORCED_RESPONSE = "forced_response"


def _canonical(design) -> str:
    return json.dumps(design, sort_keys=True)


def practised_designs(questions) -> list[dict]:
    """The distinct designs of the randomized yes/no ``questions`` that have a practice round,
    in the order the questions first use them; ``{}`` is the survey's own coins."""
    seen, designs = set(), []
    for question in questions:
        if question.kind != Question.Kind.YES_NO or not question.randomized:
            continue
        if question.design.get("kind", FORCED_RESPONSE) not in PRACTISED_KINDS:
            continue
        key = _canonical(question.design)
        if key not in seen:
            seen.add(key)
            designs.append(question.design)
    return designs


def comprehension_text(design) -> str:
    """The hidden question's text (a variable label in exports): which practice it records."""
    if not design:
        return "Understood the practice round (the survey's coins, forced response)"
    parameters = ", ".join(f"{key} = {value}" for key, value in design.items() if key != "kind")
    return f"Understood the practice round ({design['kind']}: {parameters})"


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
        _canonical(question.design): question
        for question in Question.all_objects.filter(survey=survey, role=Question.Role.COMPREHENSION)
    }
    keep = {_canonical(design) for design in wanted}
    stale = [question.pk for key, question in existing.items() if key not in keep]
    if stale:
        Question.all_objects.filter(pk__in=stale).delete()
    Question.all_objects.bulk_create(
        Question(
            survey=survey,
            position=index,
            text=comprehension_text(design),
            kind=Question.Kind.YES_NO,
            design=design,
            randomized=False,
            required=False,
            role=Question.Role.COMPREHENSION,
        )
        for index, design in enumerate(wanted)
        if _canonical(design) not in existing
    )
    # In the order the questions first use each design: the order of the practice rounds.
    kept = [existing[key] for key in map(_canonical, wanted) if key in existing]
    for question in kept:
        question.position = [_canonical(design) for design in wanted].index(
            _canonical(question.design)
        )
    Question.all_objects.bulk_update(kept, ["position"])
