"""What leaves the page and what stays behind says nothing about the answers (issue 24).

In a real Chromium: every submission body of a survey has one length whatever was answered
or skipped (all yes, all no, skips, each kind of grouping answer, negative and positive
numbers), and the memo a browser keeps is the same whether a question was answered or
skipped. The server side of the padding is tests/surveys/api/test_submission_padding.py.
"""

import json

import pytest

from surveys import services
from surveys.models import PREFER_NOT_TO_SAY, Submission
from surveys.services import grouping
from tests.helpers import DETERMINISTIC_COINS, RESPONSES_PATH

pytestmark = pytest.mark.e2e

QUESTIONS = [
    {"text": "Have you taken office supplies home?", "required": False},
    {"text": "Have you lied to your manager?", "required": False},
    {
        "text": "Which did you take most?",
        "type": "choice",
        "options": ["None", "Pens", "Paper"],
        "required": False,
    },
    # Reports of an answer of -60 are negative and of 30 positive, except with a chance of
    # about 2% each (noise of 30 / 2 = 15 per unit of e, 60 or more away).
    {
        "text": "Change in hours last week?",
        "type": "numeric",
        "min": -60,
        "max": -30,
        "epsilon": 2.0,
        "required": False,
    },
    {
        "text": "Drinks in a week?",
        "type": "numeric",
        "min": 0,
        "max": 30,
        "epsilon": 2.0,
        "required": False,
    },
]

MEMO = """
() => Object.entries(localStorage)
  .filter(([key]) => key.startsWith("rrsurvey:"))
  .map(([key, value]) => [key, JSON.parse(value)])
"""


@pytest.fixture
def survey(make_survey):
    draft = make_survey(status="draft", questions=QUESTIONS)
    grouping.grouping_question_add(survey=draft, text="Which team are you in?", options=["A", "B"])
    return services.survey_open(survey=draft)


def respond(context, live_server, survey, pattern):
    """Answer as ``pattern`` says ({input id: value}) and send; the raw body and the memo."""
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    for input_id, value in pattern.items():
        if value is None:
            page.locator(f"#{input_id}").check()
        else:
            page.locator(f"#{input_id}").fill(str(value))
    with page.expect_response(
        lambda r: RESPONSES_PATH in r.url and r.request.method == "POST"
    ) as reply:
        page.get_by_role("button", name="Randomize and send my answers").click()
    assert reply.value.status == 201, reply.value.text()
    return reply.value.request.post_data_buffer, page.evaluate(MEMO)


def patterns(survey):
    yes1, yes2, choice, negative, positive = survey.questions.values_list("id", flat=True)
    gq = survey.grouping_questions.get()
    first_option = gq.options.first().pk
    everything = {
        f"q-{choice}-o2": None,
        f"q-{negative}-value": -60,
        f"q-{positive}-value": 30,
        f"g-{gq.pk}-o{first_option}": None,
    }
    return {
        "all yes": {f"q-{yes1}-yes": None, f"q-{yes2}-yes": None, **everything},
        "all no": {f"q-{yes1}-no": None, f"q-{yes2}-no": None, **everything},
        "prefer not to say": {f"q-{yes1}-no": None, f"g-{gq.pk}-decline": None},
        "one negative number": {f"q-{negative}-value": -60},
        "one positive number": {f"q-{positive}-value": 30},
        "everything skipped": {},
    }


def test_every_body_of_a_survey_has_one_length_whatever_was_answered(
    live_server, new_context, survey
):
    bodies = {
        name: respond(new_context(), live_server, survey, pattern)[0]
        for name, pattern in patterns(survey).items()
    }
    parsed = {name: json.loads(body) for name, body in bodies.items()}
    # The patterns differ where sizes would: "false" against "true", skipped keys, a
    # grouping answer or none, negative numbers.
    assert set(parsed["all no"]["answers"].values()) != set(parsed["all yes"]["answers"].values())
    assert parsed["everything skipped"]["answers"] == {}
    assert parsed["prefer not to say"]["groups"] == {
        str(survey.grouping_questions.get().pk): PREFER_NOT_TO_SAY
    }
    numbers = [
        report
        for body in parsed.values()
        for report in body["answers"].values()
        if not isinstance(report, bool)
    ]
    assert any(number < 0 for number in numbers) and any(number > 9 for number in numbers)
    lengths = {name: len(body) for name, body in bodies.items()}
    definition = json.loads(
        new_context().request.get(f"{live_server.url}/api/v1/public/surveys/{survey.slug}/").text()
    )
    assert set(lengths.values()) == {definition["submission_length"]}, lengths
    for body in parsed.values():
        assert body["padding"].strip(" ") == ""
    # Padding is not stored: each row is exactly the reports sent.
    for body in parsed.values():
        stored = Submission.objects.get(submission_id=body["submission_id"])
        assert stored.reports == {f"q{qid}": report for qid, report in body["answers"].items()}


def test_the_memo_is_the_same_whether_questions_were_answered_or_skipped(
    live_server, new_context, survey
):
    kept = {}
    for name, pattern in patterns(survey).items():
        if name not in ("all yes", "all no", "everything skipped"):
            continue
        context = new_context()
        # The same coins in every browser, so only the answers differ.
        context.add_init_script(DETERMINISTIC_COINS)
        kept[name] = respond(context, live_server, survey, pattern)[1]
    ids = {str(qid) for qid in survey.questions.values_list("id", flat=True)}
    for name, memos in kept.items():
        ((key, memo),) = memos
        assert key == f"rrsurvey:v3:{survey.slug}:{survey.design_fingerprint}", name
        # A secret for every question, answered or skipped.
        assert set(memo["secrets"]) == ids, name
    # Apart from the submission id (random bytes, not coins), all three are the same.
    secrets = {
        name: {"secrets": memo["secrets"], "sent": memo["sent"]}
        for name, ((_key, memo),) in kept.items()
    }
    assert secrets["all yes"] == secrets["all no"] == secrets["everything skipped"]
