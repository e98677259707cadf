"""The comprehension check's hidden questions (services/comprehension.py): one per practised
design, following the questions, gone when the check is off, frozen with the design."""

import json
import re
from pathlib import Path

import pytest

from surveys import designs, selectors, services
from surveys.models import Question
from surveys.services.comprehension import PRACTISED_KINDS, comprehension_sync

pytestmark = pytest.mark.django_db

WARNER = {"kind": "warner", "p": 0.75}
QUESTIONS = (
    {"text": "Taken supplies home?"},
    {"text": "Lied to your manager?", "design": WARNER},
    {"text": "Called in sick when well?"},  # the survey's coins again: no second round
    {"text": "Skipped a safety check?", "design": WARNER},
    {"text": "Your age band?", "type": "choice", "options": ["<30", "30+"], "epsilon": 1.0},
    {"text": "Your team?", "randomized": False},
)


def hidden(survey):
    return list(
        Question.all_objects.filter(survey=survey, role=Question.Role.COMPREHENSION).values_list(
            "design", flat=True
        )
    )


def test_one_hidden_question_per_distinct_yes_no_design_in_order_of_first_use(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS, comprehension_check=True)
    assert hidden(survey) == [{}, WARNER]
    rows = Question.all_objects.filter(survey=survey, role=Question.Role.COMPREHENSION)
    assert all(not q.randomized and not q.required and q.kind == "yes_no" for q in rows)
    # Hidden from every list of the survey's questions.
    assert survey.questions.count() == len(QUESTIONS)
    assert len(selectors.survey_questions(survey=survey)) == len(QUESTIONS)


def test_no_hidden_question_without_the_check_and_none_left_when_it_is_switched_off(
    make_survey,
):
    survey = make_survey(status="draft", questions=QUESTIONS)
    assert hidden(survey) == []
    services.survey_update(survey=survey, data={"comprehension_check": True})
    assert hidden(survey) == [{}, WARNER]
    services.survey_update(survey=survey, data={"comprehension_check": False})
    assert hidden(survey) == []


def test_the_hidden_questions_follow_the_designs_and_keep_their_ids(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS[:2], comprehension_check=True)
    coins_id = Question.all_objects.get(survey=survey, role="comprehension", design={}).pk
    warner_question = survey.questions.get(text="Lied to your manager?")
    services.question_update(
        question=warner_question,
        text=warner_question.text,
        question_type={"type": "yes_no", "design": {"kind": "kuk", "theta1": 0.7, "theta2": 0.3}},
    )
    assert hidden(survey) == [{}, {"kind": "kuk", "theta1": 0.7, "theta2": 0.3}]
    assert Question.all_objects.get(survey=survey, role="comprehension", design={}).pk == coins_id
    services.question_delete(question=warner_question)
    assert hidden(survey) == [{}]


def test_a_survey_without_randomized_yes_no_questions_has_nothing_to_practise(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS[4:], comprehension_check=True)
    assert hidden(survey) == []
    assert selectors.practice_rounds(survey=survey) == []


def test_a_copy_gets_its_own_hidden_questions(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS[:2], comprehension_check=True)
    copy = services.survey_duplicate(survey=survey)
    assert hidden(copy) == [{}, WARNER]
    original = set(Question.all_objects.filter(survey=survey).values_list("id", flat=True))
    assert original.isdisjoint(
        Question.all_objects.filter(survey=copy).values_list("id", flat=True)
    )


def test_the_practice_rounds_name_the_designs_with_their_parameters(make_survey):
    survey = make_survey(
        status="draft", questions=QUESTIONS[:2], comprehension_check=True, p_truth=0.75
    )
    rounds = selectors.practice_rounds(survey=survey)
    assert [r["design"] for r in rounds] == [
        {"kind": "forced_response", "p_truth": 0.75, "p_forced_yes": 0.5},
        {"kind": "warner", "p": 0.75},
    ]
    assert [r["id"] for r in rounds] == [
        q.pk for q in Question.all_objects.filter(survey=survey, role="comprehension")
    ]


def test_the_fingerprint_names_the_hidden_questions(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS[:2])
    before = selectors.survey_design_fingerprint(survey=survey)
    services.survey_update(survey=survey, data={"comprehension_check": True})
    survey.refresh_from_db()
    switched_on = selectors.survey_design_fingerprint(survey=survey)
    assert switched_on != before
    services.survey_update(survey=survey, data={"comprehension_check": False})
    survey.refresh_from_db()
    assert selectors.survey_design_fingerprint(survey=survey) == before
    # On again: new hidden questions (new ids) are another design for every browser.
    services.survey_update(survey=survey, data={"comprehension_check": True})
    survey.refresh_from_db()
    assert selectors.survey_design_fingerprint(survey=survey) not in (before, switched_on)


def test_the_server_and_the_page_practise_the_same_designs():
    # One list, the design table's: the generated module holds it (tests/tools/test_constants.py
    # holds the module to the table), and the page's script imports it from there.
    from tools import constants

    generated = constants.render(constants.build())[constants.MODULE_PATH]
    listed = re.search(r"PRACTICE_KINDS = Object\.freeze\((\[.*?\])\)", generated).group(1)
    assert json.loads(listed) == list(PRACTISED_KINDS) == list(designs.practised_kinds())
    root = Path(__file__).resolve().parents[3]
    source = (root / "static/js/comprehension.js").read_text()
    assert 'import { PRACTICE_KINDS } from "./constants.js";' in source
    assert "PRACTICE_KINDS = " not in source


def test_a_cheating_detection_design_is_practised_under_the_respondent_procedure(make_survey):
    cdm = {"kind": "cdm", "p": [0.3, 0.7], "group_share": 0.5}
    survey = make_survey(
        status="draft",
        questions=[{"text": "Taken supplies home?"}, {"text": "Lied?", "design": cdm}],
        comprehension_check=True,
    )
    assert survey.questions.get(text="Lied?").procedure == "respondent"
    assert hidden(survey) == [{}, cdm]
    practised = Question.all_objects.get(survey=survey, role="comprehension", design=cdm)
    assert practised.procedure == "respondent"
    # A CDM question left under the device procedure (asked before issue 33) has no round.
    survey.questions.filter(text="Lied?").update(procedure="device")
    comprehension_sync(survey=survey)
    assert hidden(survey) == [{}]


def test_the_same_design_under_both_procedures_is_practised_twice(make_survey):
    warner = {"kind": "warner", "p": 0.75}
    survey = make_survey(
        status="draft",
        questions=[
            {"text": "A", "design": warner},
            {"text": "B", "design": warner, "procedure": "respondent"},
        ],
        comprehension_check=True,
    )
    rounds = Question.all_objects.filter(survey=survey, role="comprehension")
    assert [(q.design, q.procedure) for q in rounds] == [
        (warner, "device"),
        (warner, "respondent"),
    ]
    assert "the respondent follows the coin" in rounds[1].text
