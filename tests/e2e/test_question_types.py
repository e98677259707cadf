"""Question types and yes/no designs in a real Chromium: what leaves the page for a Warner
yes/no question, a multiple-choice question and a numeric one, and whether its distribution
is the mechanism's.

Two kinds of run. Real end-to-end submissions (the page's button, the network watched) check
what a POST carries and that the server stores exactly that. The distribution tests drive the
page's own modules many times inside the page (``memoReports`` with ``questionRandomizer`` of
the page's embedded definition and the browser's ``crypto``, exactly the call the send button
makes), because a statistical test needs thousands of draws and a round trip per draw would
take minutes. Browser crypto cannot be seeded, so these tests are random: each statistical
check fails a correct page with probability at most ``ALPHA`` (its p-value threshold), and
there are ``STATISTICAL_CHECKS`` of them, so the whole file fails a correct page with
probability at most 5 × 10^-7.
"""

import json
import math
import os

import pytest
from playwright.sync_api import expect
from scipy.stats import binomtest, chisquare

from surveys.models import Submission
from tests.e2e.accessibility import NO_SIDEWAYS_SCROLL, axe_violations
from tests.helpers import DETERMINISTIC_COINS, derived_reports, submit_answers

pytestmark = pytest.mark.e2e

ALPHA = 1e-7
STATISTICAL_CHECKS = 5  # two binomial tests, two chi-square tests, one mean test
assert ALPHA * STATISTICAL_CHECKS <= 1e-6

LN3 = math.log(3)
QUESTIONS = [
    {"text": "Have you lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
    {"text": "Which did you take most?", "type": "choice", "options": ["None", "Pens", "Paper"]},
    {"text": "Drinks in a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
]
NUMERIC_SCALE = (30 - 0) / 2.0  # (max - min) / epsilon

# Draws ``count`` fresh reports for ``truths`` ({question id: true answer}) with the page's own
# modules, each from an empty memo (a new person on a shared device), and returns the reports.
DRAW_MANY = """
async ([truths, count]) => {
  const { memoReports } = await import("/static/js/coins.js");
  const { questionRandomizer } = await import("/static/js/designs.js");
  const { survey } = JSON.parse(document.getElementById("respond-definition").textContent);
  const coins = { p_truth: survey.p_truth, p_forced_yes: survey.p_forced_yes };
  const randomizers = Object.fromEntries(
    survey.questions
      .filter((question) => String(question.id) in truths)
      .map((question) => [String(question.id), questionRandomizer(question, coins)]),
  );
  const reports = [];
  for (let i = 0; i < count; i += 1) {
    const { answers } = memoReports({ randomizers, truths, memo: null, randomSource: crypto });
    reports.push(answers);
  }
  return reports;
}
"""


MEMOS = """
() => Object.entries(localStorage)
  .filter(([key]) => key.startsWith("rrsurvey:"))
  .map(([key, value]) => [key, JSON.parse(value)])
"""


@pytest.fixture
def typed_survey(make_survey):
    return make_survey(title="Typed questions", questions=QUESTIONS, shared_devices=True)


def ids_of(survey):
    return [str(qid) for qid in survey.questions.values_list("id", flat=True)]


def answer(page, survey, *, yes, option, number):
    warner, choice, numeric = ids_of(survey)
    page.locator(f"#q-{warner}").get_by_label("Yes" if yes else "No", exact=True).check()
    page.locator(f"#q-{choice}").get_by_label(option, exact=True).check()
    page.fill(f"#q-{numeric}-value", str(number))


def test_each_type_sends_only_its_randomized_report_and_the_server_stores_it(
    live_server, page, typed_survey
):
    warner, choice, numeric = ids_of(typed_survey)
    url = f"{live_server.url}/s/{typed_survey.slug}/"
    requests, problems = [], []
    page.on("request", lambda request: requests.append(request))
    page.on("pageerror", lambda error: problems.append(str(error)))
    bodies = []
    for _respondent in range(5):
        page.goto(url)
        assert page.evaluate(
            "() => [...document.querySelectorAll('main input')].every((i) => i.form === null)"
        )
        answer(page, typed_survey, yes=True, option="Pens", number=17)
        bodies.append(submit_answers(page))
        # The thank-you lists what was sent: yes/no, the label of the option sent, the number.
        page.locator("#respond-done summary").click()
        sent = page.locator("#respond-sent dd").all_inner_texts()
        body = bodies[-1]
        assert sent == [
            "Yes" if body["answers"][warner] else "No",
            ["None", "Pens", "Paper"][body["answers"][choice]],
            str(body["answers"][numeric]),
        ]
        # A shared device keeps nothing once the answers are sent, and shows no true answer.
        assert page.evaluate("() => localStorage.length") == 0
        assert page.input_value(f"#q-{numeric}-value") == ""

    assert problems == []
    posts = [r for r in requests if r.method == "POST"]
    assert len(posts) == 5
    for request, body in zip(posts, bodies, strict=True):
        assert json.loads(request.post_data) == body
        assert set(body) == {"submission_id", "answers", "design_fingerprint", "order", "padding"}
        assert body["design_fingerprint"] == typed_survey.design_fingerprint
        assert set(body["answers"]) == {warner, choice, numeric}
        assert isinstance(body["answers"][warner], bool)
        assert type(body["answers"][choice]) is int and 0 <= body["answers"][choice] <= 2
        assert type(body["answers"][numeric]) is int
        stored = Submission.objects.get(submission_id=body["submission_id"]).reports
        assert stored == {f"q{qid}": value for qid, value in body["answers"].items()}
    # Only GETs besides the five POSTs, and no address names an answer input (no GET form).
    assert all(r.method in ("GET", "POST") for r in requests)
    assert not any("q-" in r.url for r in requests)


def test_a_number_must_be_whole_and_an_empty_required_one_is_named(live_server, page, typed_survey):
    warner, choice, numeric = ids_of(typed_survey)
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{typed_survey.slug}/")
    send = page.get_by_role("button", name="Randomize and send my answers")
    send.click()
    errors = page.locator("#respond-errors")
    expect(errors.locator("li")).to_have_count(3)
    expect(page.locator(f"#q-{choice}-error")).to_have_text("Choose one option.")
    expect(page.locator(f"#q-{numeric}-error")).to_have_text("Enter a whole number.")
    assert page.evaluate("() => document.activeElement.id") == f"q-{warner}-yes"

    answer(page, typed_survey, yes=False, option="Paper", number="17.5")
    send.click()
    expect(errors).to_contain_text("Question 3 needs a whole number")
    expect(page.locator(f"#q-{numeric}-error")).to_have_text(
        "Enter a whole number, without decimals or other characters."
    )
    assert page.locator(f"#q-{numeric}").get_attribute("aria-invalid") == "true"
    described = page.locator(f"#q-{numeric}").get_attribute("aria-describedby").split()
    assert described[0] == f"q-{numeric}-error"
    assert page.evaluate("() => document.activeElement.id") == f"q-{numeric}-value"
    assert posts == []

    # Outside the range: said while typing (issue 24: 45 for 0–30 was clamped without a word),
    # and refused on sending, since the randomizer would send a number nobody typed.
    page.fill(f"#q-{numeric}-value", "45")
    expect(errors.locator("li")).to_have_count(0)
    expect(page.locator(f"#q-{numeric}-error")).to_have_text("Enter a whole number from 0 to 30.")
    assert page.locator(f"#q-{numeric}").get_attribute("aria-invalid") == "true"
    send.click()
    expect(errors).to_contain_text("Question 3 needs a number from 0 to 30")
    assert page.evaluate("() => document.activeElement.id") == f"q-{numeric}-value"
    page.fill(f"#q-{numeric}-value", "-1")
    expect(page.locator(f"#q-{numeric}-error")).to_have_text("Enter a whole number from 0 to 30.")
    assert posts == []

    page.fill(f"#q-{numeric}-value", "30")
    expect(errors.locator("li")).to_have_count(0)
    expect(page.locator(f"#q-{numeric}-error")).to_be_hidden()
    body = submit_answers(page)
    assert type(body["answers"][numeric]) is int
    assert len(posts) == 1


def test_what_a_personal_device_keeps_does_not_depend_on_the_true_answers(
    live_server, new_context, make_survey
):
    survey = make_survey(title="Typed, personal", questions=QUESTIONS)
    warner, choice, numeric = ids_of(survey)
    url = f"{live_server.url}/s/{survey.slug}/"
    kept, sent = [], []
    for truths in (
        {"yes": True, "option": "None", "number": 0},
        {"yes": False, "option": "Paper", "number": 29},
    ):
        context = new_context()
        context.add_init_script(DETERMINISTIC_COINS)
        page = context.new_page()
        page.goto(url)
        answer(page, survey, **truths)
        first = submit_answers(page)
        # A retake on this device sends the same reports under the same id, counted once.
        page.goto(url)
        expect(page.locator("#respond-already")).to_be_visible()
        answer(page, survey, **truths)
        assert submit_answers(page) == first
        ((key, memo),) = page.evaluate(MEMOS)
        assert key == f"rrsurvey:v3:{survey.slug}:{survey.design_fingerprint}"
        kept.append(memo["secrets"])
        sent.append(first)
    # The same random words give the same secrets whatever was answered: one per question,
    # the same size for the numeric question's 31 possible answers as for the yes/no one's 2.
    assert kept[0] == kept[1]
    assert sorted(kept[0]) == sorted([warner, choice, numeric])
    assert len({len(secret) for secret in kept[0].values()}) == 1
    # ... and each answer sent is the report the secret fixes for that answer.
    for body, (yes, option, number) in zip(sent, [(True, 0, 0), (False, 2, 29)], strict=True):
        truths = {warner: yes, choice: option, numeric: number}
        assert body["answers"] == derived_reports(page, secrets=kept[0], truths=truths)
    assert Submission.objects.filter(survey=survey).count() == 2


def test_the_memo_of_a_numeric_question_is_as_small_for_0_to_1000_as_for_0_to_1(
    live_server, new_context, make_survey
):
    # Issue 28: a table of one report per whole number made 100 questions of 0-1000 take 677k
    # characters of localStorage. One secret per question takes the same room whatever the range.
    kept = []
    for top in (1, 1000):
        numeric = {"text": "How many?", "type": "numeric", "min": 0, "max": top, "epsilon": 2.0}
        survey = make_survey(title=f"Range 0-{top}", questions=[numeric])
        page = new_context().new_page()
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        (qid,) = ids_of(survey)
        page.fill(f"#q-{qid}-value", str(top))
        submit_answers(page)
        ((_key, memo),) = page.evaluate(MEMOS)
        kept.append(memo)
    assert [set(memo["secrets"]) and len(memo["secrets"]) for memo in kept] == [1, 1]
    # The question ids differ by their number of digits at most; the rest is the same size.
    sizes = [
        len(json.dumps(memo["secrets"]).replace(next(iter(memo["secrets"])), "")) for memo in kept
    ]
    assert sizes[0] == sizes[1] < 60


def draw_many(page, truths, count):
    return page.evaluate(DRAW_MANY, [truths, count])


@pytest.fixture
def survey_page(live_server, page, typed_survey):
    page.goto(f"{live_server.url}/s/{typed_survey.slug}/")
    return page


def test_warner_reports_yes_with_three_quarters_and_one_quarter(survey_page, typed_survey):
    warner, _choice, _numeric = ids_of(typed_survey)
    draws = 20_000
    for truth, rate in ((True, 0.75), (False, 0.25)):
        reports = draw_many(survey_page, {warner: truth}, draws)
        assert all(set(report) == {warner} for report in reports)
        yes = sum(report[warner] is True for report in reports)
        assert yes + sum(report[warner] is False for report in reports) == draws
        # A Warner design with p = 0.8 or 0.7 would be ~16 standard errors away.
        result = binomtest(yes, draws, rate)
        assert result.pvalue > ALPHA, (truth, yes, result.pvalue)


def test_choice_reports_keep_the_option_three_fifths_of_the_time(survey_page, typed_survey):
    _warner, choice, _numeric = ids_of(typed_survey)
    draws = 12_000
    reports = [report[choice] for report in draw_many(survey_page, {choice: 1}, draws)]
    assert set(reports) <= {0, 1, 2}
    counts = [reports.count(option) for option in range(3)]
    # k = 3, ε = ln 3: keep e^ε / (e^ε + 2) = 3/5, each other option 1/5.
    keep = math.exp(LN3) / (math.exp(LN3) + 2)
    expected = [draws * (1 - keep) / 2, draws * keep, draws * (1 - keep) / 2]
    result = chisquare(counts, expected)
    assert result.pvalue > ALPHA, (counts, result.pvalue)


def noise_bins():
    """Bins of the noise Z (sent - clamped truth) with their exact discrete Laplace chances:
    {0}, then |z| in widths of 5 on each side up to 60, then the two tails."""
    alpha = math.exp(-1 / NUMERIC_SCALE)
    norm = (1 - alpha) / (1 + alpha)

    def chance(lo, hi):  # P(lo <= Z <= hi)
        return sum(norm * alpha ** abs(z) for z in range(lo, hi + 1))

    edges = [(0, 0)]
    for start in range(1, 60, 5):
        edges += [(start, start + 4), (-start - 4, -start)]
    tail = norm * alpha**61 / (1 - alpha)  # P(Z >= 61)
    bins = [(lo, hi, chance(lo, hi)) for lo, hi in edges]
    bins += [(61, math.inf, tail), (-math.inf, -61, tail)]
    assert math.isclose(sum(p for _lo, _hi, p in bins), 1.0, rel_tol=1e-12)
    return bins


def test_numeric_reports_are_the_clamped_answer_plus_discrete_laplace_noise(
    survey_page, typed_survey
):
    _warner, _choice, numeric = ids_of(typed_survey)
    draws = 3_000
    sent = [report[numeric] for report in draw_many(survey_page, {numeric: 17}, draws)]
    assert all(type(value) is int for value in sent)
    # The true answer does not leave as such: it is sent only when the noise is 0, which has
    # chance tanh(1 / 30) = 3.3% (checked with the rest of the distribution below).
    assert sent.count(17) < draws / 10
    noise = [value - 17 for value in sent]
    bins = noise_bins()
    counts = [sum(lo <= z <= hi for z in noise) for lo, hi, _p in bins]
    assert sum(counts) == draws
    result = chisquare(counts, [draws * p for _lo, _hi, p in bins])
    assert result.pvalue > ALPHA, (counts, result.pvalue)

    # An answer above the range is kept at 30 first: the reports' mean is 30, not 45. The
    # noise's standard deviation is sqrt(2 alpha) / (1 - alpha) = 21.2, so the mean of 1000
    # has standard error 0.67; 5.33 standard errors is the two-sided 1e-7 threshold.
    above = [report[numeric] for report in draw_many(survey_page, {numeric: 45}, 1_000)]
    alpha = math.exp(-1 / NUMERIC_SCALE)
    std_error = math.sqrt(2 * alpha) / (1 - alpha) / math.sqrt(len(above))
    mean = sum(above) / len(above)
    assert abs(mean - 30) < 5.33 * std_error, mean


SHOTS = "/tmp/shots"


@pytest.mark.parametrize(("locale", "width"), [("en-US", 1280), ("ko-KR", 390)])
def test_the_typed_page_passes_axe_and_fits_a_phone(
    live_server, new_context, make_survey, locale, width
):
    survey = make_survey(
        title="Typed questions",
        questions=[
            *QUESTIONS,
            {
                "text": "Have you skipped a safety check?",
                "design": {"kind": "kuk", "theta1": 0.625, "theta2": 0.25},
            },
        ],
    )
    # bypass_csp: axe is injected as an inline script, as tests/e2e/accessibility/ does.
    page = new_context(
        locale=locale, viewport={"width": width, "height": 900}, bypass_csp=True
    ).new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    # An error state too: the numeric input's error is announced with its explanation.
    page.locator("#respond-submit").click()
    violations = axe_violations(page)
    assert violations == [], "\n".join(f"{v['id']}: {v['nodes']}" for v in violations)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    os.makedirs(SHOTS, exist_ok=True)
    page.screenshot(path=f"{SHOTS}/question-types-{locale}.png", full_page=True)
