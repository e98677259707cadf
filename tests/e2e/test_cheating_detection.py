"""Cheating-detection questions (CDM, SLD) in a real Chromium: what leaves the page, and
whether the group the browser draws follows the published share.

One real submission per respondent (the page's button, the network watched) checks that the
body carries one code 0-3 per question, never the true answer's boolean, and that the server
stores exactly that; the thank-you names the group and the answer sent. The distribution test
drives the page's own modules many times inside the page (``memoReports`` with
``questionRandomizer`` of the embedded definition and the browser's ``crypto``), as
tests/e2e/test_question_types.py does, because a binomial test needs thousands of draws.
Browser crypto cannot be seeded: each statistical check fails a correct page with
probability at most ``ALPHA``.
"""

import json

import pytest
from scipy.stats import binomtest

from surveys.models import Submission
from tests.e2e.test_question_types import DRAW_MANY
from tests.helpers import submit_answers

pytestmark = pytest.mark.e2e

ALPHA = 1e-7
CDM = {"kind": "cdm", "p": [0.25, 0.75], "group_share": 0.3}
SLD = {"kind": "sld", "p": [0.2, 0.8], "group_share": 0.5}
QUESTIONS = [
    {"text": "Have you ever taken supplies home?", "design": CDM},
    {"text": "Have you ever falsified a timesheet?", "design": SLD},
]


@pytest.fixture
def cheating_survey(make_survey):
    return make_survey(title="Cheating detection", questions=QUESTIONS, shared_devices=True)


def ids_of(survey):
    return [str(qid) for qid in survey.questions.values_list("id", flat=True)]


def test_the_page_sends_one_code_per_question_and_never_the_true_answer(
    live_server, page, cheating_survey
):
    cdm, sld = ids_of(cheating_survey)
    url = f"{live_server.url}/s/{cheating_survey.slug}/"
    requests, problems = [], []
    page.on("request", lambda request: requests.append(request))
    page.on("pageerror", lambda error: problems.append(str(error)))
    bodies = []
    for respondent in range(4):
        page.goto(url)
        yes = respondent % 2 == 0
        for qid in (cdm, sld):
            page.locator(f"#q-{qid}").get_by_label("Yes" if yes else "No", exact=True).check()
        bodies.append(submit_answers(page))
        body = bodies[-1]
        for qid in (cdm, sld):
            code = body["answers"][qid]
            # A code, not a boolean: the true answer's yes/no is never what is sent.
            assert type(code) is int and 0 <= code <= 3, body
            if yes:
                assert code % 2 == 1  # a true yes is always reported "yes", in either group
        page.locator("#respond-done summary").click()
        sent = page.locator("#respond-sent dd").all_inner_texts()
        expected = [
            f"Group {body['answers'][q] // 2 + 1}: {'Yes' if body['answers'][q] % 2 else 'No'}"
            for q in (cdm, sld)
        ]
        assert sent == expected
    assert problems == []
    posts = [r for r in requests if r.method == "POST"]
    assert len(posts) == 4
    for request, body in zip(posts, bodies, strict=True):
        assert json.loads(request.post_data) == body
        assert set(body["answers"]) == {cdm, sld}
        stored = Submission.objects.get(submission_id=body["submission_id"]).reports
        assert stored == {f"q{qid}": value for qid, value in body["answers"].items()}


def test_group_assignment_and_codes_follow_the_published_design(live_server, page, cheating_survey):
    """Under the respondent procedure (the only one CDM and SLD have) the code sent is the
    answer pressed in the group the instruction drew: the group follows group_share, and the
    bit is what was pressed, whatever the instruction (tests/e2e/test_respondent_procedure.py
    holds the instructions to the design's p)."""
    cdm, sld = ids_of(cheating_survey)
    page.goto(f"{live_server.url}/s/{cheating_survey.slug}/")
    draws = 4000
    reports = page.evaluate(DRAW_MANY, [{cdm: False, sld: True}, draws])
    cdm_codes = [report[cdm] for report in reports]
    sld_codes = [report[sld] for report in reports]
    # CDM, share 0.3 in group 1; "No" pressed: even codes only.
    assert all(code in (0, 2) for code in cdm_codes)
    assert binomtest(cdm_codes.count(0), draws, 0.3).pvalue > ALPHA
    # SLD, share 0.5; "Yes" pressed: odd codes only.
    assert all(code in (1, 3) for code in sld_codes)
    assert binomtest(sld_codes.count(1), draws, 0.5).pvalue > ALPHA


@pytest.mark.parametrize("language", ["en", "ko", "zh-hans"])
def test_axe_finds_no_violation_on_the_cheating_detection_pages(
    live_server, new_context, sign_in, owner, make_survey, language
):
    import numpy as np

    from surveys import services
    from tests.e2e.accessibility import LANGUAGES, check_page, open_page

    survey = make_survey(title="Cheating detection", questions=QUESTIONS, language=language)
    rng = np.random.default_rng(5)
    reports = services.simulated_reports_draw(survey=survey, shares=[0.3, 0.3], n=200, rng=rng)
    services.simulated_submissions_record(survey=survey, reports=reports)
    locale = LANGUAGES[language][0]
    for name, path in (
        ("respondent", f"/s/{survey.slug}/"),
        ("results", f"/surveys/{survey.pk}/results/"),
        ("builder", f"/surveys/{survey.pk}/"),
    ):
        page = open_page(
            new_context, sign_in, live_server, owner, path=path, locale=locale, width=390
        )
        if name == "respondent":
            page.locator("#privacy-details > summary").click()  # the ledger's one-sided lines
        check_page(page, name=name, language=language, width=390)
        page.context.close()


def test_the_memo_and_the_body_length_say_nothing_about_the_answer(
    live_server, new_context, make_survey
):
    """As tests/e2e/test_submission_shape.py checks for the other types: with the same coins,
    the memo a browser keeps (a secret per question, from which the code of either answer is
    derived) is the same whether the answer was yes, no or skipped, and every body has the
    survey's one length."""
    from tests.e2e.test_submission_shape import respond
    from tests.helpers import DETERMINISTIC_COINS

    survey = make_survey(
        title="Cheating memo",
        questions=[{**question, "required": False} for question in QUESTIONS],
    )
    cdm, sld = ids_of(survey)
    patterns = {
        "all yes": {f"q-{cdm}-yes": None, f"q-{sld}-yes": None},
        "all no": {f"q-{cdm}-no": None, f"q-{sld}-no": None},
        "skipped": {},
    }
    kept, lengths = {}, set()
    for name, pattern in patterns.items():
        context = new_context()
        context.add_init_script(DETERMINISTIC_COINS)
        body, memos = respond(context, live_server, survey, pattern)
        lengths.add(len(body))
        ((_key, memo),) = memos
        assert set(memo["secrets"]) == {cdm, sld}, name
        kept[name] = {"secrets": memo["secrets"], "sent": memo["sent"]}
        for code in json.loads(body)["answers"].values():
            assert type(code) is int and 0 <= code <= 3
            assert name != "all yes" or code % 2 == 1
    assert kept["all yes"] == kept["all no"] == kept["skipped"]
    assert len(lengths) == 1
