"""The results page and its CSV downloads (surveys/views/analysis.py): the selector's numbers,
suppression, provenance, formulas. (Breakdown, regression and planner: test_analysis_pages.py.)"""

import csv
import io
import re

import numpy as np
import pytest
from django.conf import settings
from django.urls import reverse

import dpengine
from surveys import __version__, selectors
from surveys.formatting import epsilon_text
from tests.helpers import MIXED_QUESTIONS, question_tallies, simulate_responses, with_responses

pytestmark = pytest.mark.django_db


def seeded_reports(n, shares, *, seed=7):
    rng = np.random.default_rng(seed)
    return rng.random((n, len(shares))) < np.array(shares)


def percent(value):
    return f"{value * 100:.1f}%"


def results(client, survey, **query):
    return client.get(reverse("surveys:results", kwargs={"pk": survey.pk}), query)


def download(client, name, survey, **query):
    response = client.get(reverse(f"surveys:{name}", kwargs={"pk": survey.pk}), query)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.fixture
def answered(make_survey):
    return with_responses(make_survey(min_n=30), seeded_reports(400, [0.55, 0.3]))


# --- results page -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "level"), [(None, None), ("exact", "0.9"), ("jeffreys", "0.99"), ("wald", "0.8")]
)
def test_results_show_the_selectors_numbers(method, level, answered, owner_client):
    query = {} if method is None else {"method": method, "level": level}
    response = results(owner_client, answered, **query)
    assert response.status_code == 200
    expected = selectors.survey_estimates(
        survey=answered,
        method=method or answered.ci_method,
        confidence=float(level) if level else answered.confidence,
    )
    content = response.content.decode()
    for row in expected.rows:
        est = row.estimate
        assert f'data-label="n">{est.n}</td>' in content
        assert f'data-label="Reported yes">{est.yes}</td>' in content
        assert f"{percent(est.ci_low)} – {percent(est.ci_high)}" in content
        assert percent(est.estimate) in content
        assert f"{est.std_error * 100:.1f}" in content
    assert response.context["estimates"].method == expected.method
    assert response.context["estimates"].confidence == expected.confidence


def test_results_chart_is_inline_accessible_svg(answered, owner_client):
    content = results(owner_client, answered).content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="results-chart"' in content
    assert 'role="img"' in content
    assert '<title id="results-chart-title">' in content
    assert content.count('class="chart-point"') == 2


def test_questions_below_minimum_n_show_no_numbers(make_survey, owner_client):
    survey = with_responses(make_survey(min_n=30), seeded_reports(12, [0.5, 0.5]))
    response = results(owner_client, survey)
    content = response.content.decode()
    assert content.count("Not enough responses yet (12 of 30)") >= 2
    assert 'class="chart-point"' not in content
    for row in selectors.survey_estimates(survey=survey).rows:
        assert f"{percent(row.estimate.ci_low)} – {percent(row.estimate.ci_high)}" not in content


def test_unbiased_estimate_outside_the_unit_interval_is_shown_with_a_note(
    make_survey, owner_client
):
    # Every report "no": the classic design's unbiased estimate is 2 * 0 - 1/2 = -50 %.
    survey = with_responses(make_survey(min_n=0), np.zeros((40, 2), dtype=bool))
    content = results(owner_client, survey).content.decode()
    assert "-50.0%" in content
    assert 'id="note-outside"' in content
    assert "fell outside 0–100%" in content


def test_no_note_when_every_estimate_is_inside(answered, owner_client):
    assert 'id="note-outside"' not in results(owner_client, answered).content.decode()


def test_survey_without_responses_says_so(open_survey, owner_client):
    response = results(owner_client, open_survey)
    assert response.status_code == 200
    assert "Not enough responses yet (0 of 30)" in response.content.decode()


def test_results_show_privacy_and_post_processing(answered, owner_client):
    content = results(owner_client, answered).content.decode()
    privacy = selectors.survey_privacy(survey=answered)
    assert f"ε = {epsilon_text(privacy.per_answer_epsilon)}" in content
    assert f"total ε of {epsilon_text(privacy.total_epsilon)}" in content
    assert "Post-processing" in content


def test_open_survey_results_refresh_through_a_fragment(answered, owner_client):
    page = results(owner_client, answered, method="exact", level="0.9")
    content = page.content.decode()
    assert "data-refresh-url=" in content
    assert "fragment=1" in content
    assert "js/results.js" in content
    fragment = results(owner_client, answered, method="exact", level="0.9", fragment="1")
    assert fragment.status_code == 200
    assert b"<html" not in fragment.content
    assert b'class="chart-point"' in fragment.content


def test_closed_survey_results_do_not_refresh(make_survey, owner_client):
    survey = make_survey(status="closed")
    content = results(owner_client, survey).content.decode()
    assert "data-refresh-url" not in content
    assert "js/results.js" not in content


@pytest.mark.parametrize(
    ("query", "field"), [({"method": "bayes"}, "method"), ({"level": "0.5"}, "level")]
)
def test_bad_interval_choice_is_a_400_naming_the_field(query, field, answered, owner_client):
    response = results(owner_client, answered, **query)
    assert response.status_code == 400
    assert list(response.context["form"].errors) == [field]
    assert 'role="alert"' in response.content.decode()


def test_results_offer_downloads_with_the_codebook_for_the_chosen_interval(answered, owner_client):
    content = results(owner_client, answered, method="exact", level="0.9").content.decode()
    for name in ("export-zip", "export-xlsx", "codebook-csv"):
        url = reverse(f"surveys:{name}", kwargs={"pk": answered.pk})
        assert f'href="{url}?method=exact&amp;level=0.9"' in content, name


def test_results_offer_the_r_script_that_the_api_also_serves(answered, owner_client, owner_api):
    content = results(owner_client, answered).content.decode()
    url = reverse("surveys:estimates-r", kwargs={"pk": answered.pk})
    assert f'href="{url}"' in content
    assert f'href="{reverse("surveys:r-export", kwargs={"pk": answered.pk})}"' in content
    page = owner_client.get(url)
    assert page.status_code == 200
    assert page["Content-Disposition"].startswith("attachment;")
    assert page["Content-Disposition"].endswith('.R"')
    script = page.content.decode()
    assert "library(RRreg)" in script and "print(estimates)" in script
    assert owner_api.get(f"/api/v1/surveys/{answered.pk}/estimates.R").content.decode() == script


# --- CSV downloads ------------------------------------------------------------------------


def codebook_facts(rows):
    header, *body = rows
    records = [dict(zip(header, row, strict=True)) for row in body]
    return {r["name"]: r["value"] for r in records if r["section"] == "survey"}


def test_the_codebook_carries_the_provenance_and_the_chosen_interval(answered, owner_client):
    rows = download(owner_client, "codebook-csv", answered, method="exact", level="0.9")
    assert not any(row and row[0] == "#" for row in rows)  # no comment lines for Excel
    meta = codebook_facts(rows)
    assert meta["title"] == answered.title
    assert meta["survey_id"] == str(answered.pk)
    assert answered.slug not in {cell for row in rows for cell in row}  # the link's secret code
    assert meta["design"] == "forced response"
    assert float(meta["epsilon_per_answer"]) == pytest.approx(np.log(3))
    assert float(meta["total_epsilon"]) == pytest.approx(2 * np.log(3))
    assert meta["ci_method"] == "exact"
    assert float(meta["confidence"]) == 0.9
    assert meta["software"] == f"rrsurvey {__version__}"
    assert meta["generated_at"]
    header, *body = rows
    coins = {
        row[1]: dict(zip(header, row, strict=True))
        for row in body
        if row[0] == "column" and row[2] == "randomized_yes_no"
    }
    assert list(coins) == ["Q1", "Q2"]
    for record, question in zip(coins.values(), answered.questions.all(), strict=True):
        assert record["text"] == question.text
        assert float(record["p_truth"]) == answered.p_truth
        assert float(record["p_forced_yes"]) == answered.p_forced_yes
        assert (float(record["a"]), float(record["b"])) == (0.75, 0.25)


def test_estimates_csv_names_questions_as_the_page_with_the_chosen_interval(answered, owner_client):
    rows = download(owner_client, "estimates-csv", answered, method="exact", level="0.9")
    header, body = rows[0], rows[1:]
    expected = selectors.survey_estimates(survey=answered, method="exact", confidence=0.9)
    assert len(body) == len(expected.rows)
    page = results(owner_client, answered, method="exact", level="0.9").content.decode()
    for index, (line, row) in enumerate(zip(body, expected.rows, strict=True), start=1):
        record = dict(zip(header, line, strict=True))
        assert record["column"] == f"Q{index}"
        label = rf'<tr data-question="{row.question_id}">\s*<th scope="row"[^>]*>Q{index}</th>'
        assert re.search(label, page), index
        assert (record["ci_method"], float(record["confidence"])) == ("exact", 0.9)
        assert int(record["n"]) == row.estimate.n
        assert float(record["ci_low"]) == pytest.approx(row.estimate.ci_low)
        assert float(record["estimate"]) == pytest.approx(row.estimate.estimate)


def test_estimates_csv_rejects_a_bad_method_naming_the_field(answered, owner_client):
    url = reverse("surveys:estimates-csv", kwargs={"pk": answered.pk})
    response = owner_client.get(url, {"method": "=cmd"})
    assert response.status_code == 400
    assert response.content.decode().startswith("method:")


def test_formula_cells_are_neutralised(make_survey, owner_client):
    survey = with_responses(
        make_survey(title='=HYPERLINK("http://evil")', questions=["=1+1", "@SUM(A1)"], min_n=0),
        [[1, 0]],
    )
    estimates = download(owner_client, "estimates-csv", survey)
    codebook = download(owner_client, "codebook-csv", survey)
    assert {"'=1+1", "'@SUM(A1)"} <= {cell for row in estimates for cell in row}
    cells = [cell for row in codebook for cell in row]
    assert {"'=1+1", "'@SUM(A1)", '\'=HYPERLINK("http://evil")'} <= set(cells)
    for rows in (estimates, codebook):
        assert not any(cell.startswith(("=", "+", "@")) for row in rows for cell in row)


@pytest.mark.slow
def test_responses_csv_has_one_row_per_submission(answered, owner_client):
    rows = download(owner_client, "responses-csv", answered)
    header, body = rows[0], rows[1:]
    question_ids = list(answered.questions.values_list("id", flat=True))
    assert header == ["submission_id", "received_on", "Q1", "Q2", "P1", "P2"]
    assert [row[0] for row in body] == sorted(row[0] for row in body)  # not arrival order
    assert len(body) == answered.response_count == 400
    assert {cell for row in body for cell in row[2:4]} == {"0", "1"}  # P1, P2 empty here
    yes_counts = [sum(int(row[2 + i]) for row in body) for i in range(len(question_ids))]
    assert yes_counts == [yes for _n, yes in question_tallies(answered)]


def test_the_results_page_links_to_the_minimum_n_setting(make_survey, owner_client):
    # Verifies last session's fix: with too few responses, say where the minimum is set.
    survey = make_survey(min_n=30)
    builder = reverse("surveys:builder", kwargs={"pk": survey.pk})
    html = owner_client.get(reverse("surveys:results", kwargs={"pk": survey.pk})).content.decode()
    assert f'href="{builder}#id_min_n">Change the minimum</a>' in html
    assert 'id="id_min_n"' in owner_client.get(builder).content.decode()


# --- a survey that mixes question types and designs -----------------------------------------


@pytest.fixture
def mixed_survey(make_survey):
    return simulate_responses(make_survey(questions=MIXED_QUESTIONS, min_n=20), n=500, seed=17)


def test_results_page_shows_every_type_with_the_selectors_numbers(owner_client, mixed_survey):
    numeric = mixed_survey.questions.all()[3]
    response = results(owner_client, mixed_survey, **{f"threshold_q{numeric.pk}": "10"})
    assert response.status_code == 200
    page = response.content.decode()
    estimates = selectors.survey_estimates(survey=mixed_survey, thresholds={numeric.pk: 10})
    forced, warner, choice, number = estimates.rows
    # One dot-and-interval chart per choice question (one row per option), one per number.
    assert page.count('class="choice-chart"') == 1 and page.count('class="numeric-chart"') == 1
    assert page.count('class="results-chart"') == 1  # the yes/no questions' chart
    assert percent(forced.estimate.clamped) in page
    assert percent(warner.estimate.clamped) in page
    for option in choice.options:
        assert f"{percent(option.ci_low)} – {percent(option.ci_high)}" in page
    assert "Bonferroni" in page
    assert f"{number.mean.clamped:.2f}" in page
    assert percent(number.share_above.clamped) in page
    assert "Share above 10" in page
    # The privacy card: each question's design and ε, and the ledger's total, not one ε.
    ledger = selectors.privacy_ledger(survey=mixed_survey)
    assert 'id="privacy-ledger"' in page
    assert f"{epsilon_text(ledger.total_epsilon)}" in page
    assert "Each randomized answer is ε-locally differentially private with ε =" not in page
    assert "Warner" in page and "p = 0.75" in page


def test_a_share_with_too_few_respondents_says_so_and_what_the_planner_asks(
    owner_client, mixed_survey
):
    # 500 reports on 0-30 at eps = 2: the noise alone forces a spread that makes the share's
    # honest interval all of [0, 1], and the page says so in words with the planner's number.
    numeric = mixed_survey.questions.all()[3]
    page = results(owner_client, mixed_survey, **{f"threshold_q{numeric.pk}": "10"})
    page = page.content.decode()
    number = selectors.survey_estimates(survey=mixed_survey, thresholds={numeric.pk: 10}).rows[3]
    assert (number.share_above.ci_low, number.share_above.ci_high) == (0.0, 1.0)
    assert not number.share_above.informative
    needed = number.share_respondents_needed
    assert needed == dpengine.required_sample_size_share(
        question=number.mechanism, margin=0.05, confidence=0.95
    )
    assert 'data-uninformative="share_above"' in page
    assert "Not enough respondents for the share above 10: with 500 its 95% interval" in page
    assert f"needs about {needed:,} respondents for ±5 points at 95%" in page
    assert reverse("surveys:planner", kwargs={"pk": mixed_survey.pk}) in page


def test_an_informative_share_has_no_such_note(owner_client, make_survey):
    question = {"text": "Days?", "type": "numeric", "min": 0, "max": 5, "epsilon": 2.0}
    survey = simulate_responses(
        make_survey(questions=[question], min_n=20), n=500, seed=3, shares=[2]
    )
    number = selectors.survey_estimates(survey=survey).rows[0]
    assert number.share_above.informative
    page = results(owner_client, survey).content.decode()
    assert "Share above 2" in page
    assert 'data-uninformative="share_above"' not in page


def test_the_too_few_respondents_note_is_translated(owner_client, mixed_survey):
    owner_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ko"
    page = results(owner_client, mixed_survey)
    page = page.content.decode()
    assert 'data-uninformative="share_above"' in page
    assert "응답자가 부족합니다" in page and "Not enough respondents for the share" not in page


@pytest.mark.parametrize("value", ["30", "-1", "ten"])
def test_a_bad_threshold_is_a_400_naming_the_field(owner_client, mixed_survey, value):
    numeric = mixed_survey.questions.all()[3]
    field = f"threshold_q{numeric.pk}"
    response = results(owner_client, mixed_survey, **{field: value})
    assert response.status_code == 400
    assert f'id="id_{field}"' in response.content.decode()
    download_response = owner_client.get(
        reverse("surveys:estimates-csv", kwargs={"pk": mixed_survey.pk}), {field: value}
    )
    assert download_response.status_code == 400
    assert download_response.content.decode().startswith(f"{field}:")


def test_the_refresh_and_downloads_keep_the_threshold(owner_client, mixed_survey):
    numeric = mixed_survey.questions.all()[3]
    page = results(owner_client, mixed_survey, **{f"threshold_q{numeric.pk}": "4"})
    assert f"threshold_q{numeric.pk}=4" in page.content.decode()
    rows = download(owner_client, "estimates-csv", mixed_survey, **{f"threshold_q{numeric.pk}": 4})
    header = rows[0]
    share = next(row for row in rows if row[header.index("statistic")] == "share_above")
    assert share[header.index("threshold")] == "4"


def test_results_fragment_of_a_mixed_survey_renders(owner_client, mixed_survey):
    response = results(owner_client, mixed_survey, fragment="1")
    assert response.status_code == 200
    assert 'data-kind="choice"' in response.content.decode()


def test_codebook_documents_each_questions_type_design_and_epsilon(owner_client, mixed_survey):
    rows = download(owner_client, "codebook-csv", mixed_survey)
    header = rows[0]
    columns = {row[1]: row for row in rows if row[0] == "column" and row[1].startswith("Q")}
    kind, design, epsilon = header.index("type"), header.index("design"), header.index("epsilon")
    assert [columns[q][kind] for q in ("Q1", "Q2", "Q3", "Q4")] == [
        "randomized_yes_no",
        "randomized_yes_no",
        "randomized_choice",
        "randomized_numeric",
    ]
    assert [columns[q][design] for q in ("Q1", "Q2", "Q3", "Q4")] == [
        "forced_response",
        "warner",
        "choice",
        "numeric",
    ]
    ledger = selectors.privacy_ledger(survey=mixed_survey)
    assert [float(columns[q][epsilon]) for q in ("Q1", "Q2", "Q3", "Q4")] == [
        entry.epsilon for entry in ledger.entries
    ]
    values = [row for row in rows if row[0] == "value" and row[1] == "Q3"]
    assert [row[3] for row in values] == ["0", "1", "2", ""]
    facts = {row[1]: row[3] for row in rows if row[0] == "survey"}
    assert float(facts["total_epsilon"]) == ledger.total_epsilon
    assert facts["design"] == "per question"


# --- the interval method shown (dpengine.guarantee) -----------------------------------------


def test_few_reports_show_the_exact_interval_and_say_why(owner_client, make_survey):
    # 12 respondents: Wilson could hold the truth less than 93 % of the time at 95 %, so both
    # yes/no questions (and the choice question) show Clopper-Pearson, and the page says so.
    survey = simulate_responses(make_survey(questions=MIXED_QUESTIONS, min_n=10), n=12, seed=5)
    estimates = selectors.survey_estimates(survey=survey)
    yes_no = estimates.yes_no_rows[0]
    assert (yes_no.estimate.method, yes_no.estimate.requested_method) == ("exact", "wilson")
    exact = dpengine.prevalence_interval(
        yes=yes_no.estimate.yes, n=12, design=yes_no.estimate.design, method="exact"
    )
    assert yes_no.estimate.ci == exact
    page = results(owner_client, survey).content.decode()
    assert f"{percent(exact.low)} – {percent(exact.high)}" in page
    for row in estimates.yes_no_rows:
        assert f'data-method-replaced="{row.question_id}"' in page
    assert (
        "Q1: with 12 reports, a 95% Wilson score interval can hold the true share less than 93% "
        "of the time; the exact (Clopper–Pearson) interval, never below 95%, is shown instead."
    ) in page
    choice = estimates.choice_rows[0]
    assert choice.estimate.method == "exact"
    assert f'data-method-replaced="{choice.question_id}"' in page
    assert "With 12 reports, 95% Wilson score intervals for 3 options cannot be shown" in page
    assert "each option’s Clopper–Pearson (exact) interval is computed at 98.33%" in page


def test_enough_reports_keep_the_requested_method_without_a_note(answered, owner_client):
    estimates = selectors.survey_estimates(survey=answered)
    assert {row.estimate.method for row in estimates.yes_no_rows} == {"wilson"}
    assert "data-method-replaced" not in results(owner_client, answered).content.decode()


def test_the_replaced_method_note_is_translated(owner_client, make_survey):
    survey = simulate_responses(make_survey(questions=MIXED_QUESTIONS, min_n=10), n=12, seed=5)
    for language, words in (("ko", "정확(Clopper–Pearson) 구간을 보여 줍니다"),
                            ("zh-hans", "因此改为显示精确（Clopper–Pearson）区间")):  # fmt: skip
        owner_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = results(owner_client, survey).content.decode()
        assert words in page
        assert "is shown instead" not in page and "are shown instead" not in page


def test_the_estimates_csv_names_the_method_used_and_the_one_requested(owner_client, make_survey):
    survey = simulate_responses(make_survey(questions=MIXED_QUESTIONS, min_n=10), n=12, seed=5)
    rows = download(owner_client, "estimates-csv", survey)
    cell = {name: index for index, name in enumerate(rows[0])}
    used = [(r[cell["ci_method"]], r[cell["requested_ci_method"]]) for r in rows[1:]]
    # Two yes/no rows and three option rows: exact for Wilson; the numeric rows: normal.
    assert used == [("exact", "wilson")] * 5 + [("normal", "normal")] * 2


PAGE_PATHS = (
    "results/", "estimates.csv", "codebook.csv", "export.zip", "export.xlsx", "breakdown/",
    "regression/", "planner/",
)  # fmt: skip


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_the_pages_refuse_a_confidence_they_do_not_offer_without_a_500(
    owner_client, mixed_grouped, path
):
    # The pages offer a list of levels (and the survey's own, at most 0.999999): anything
    # else is the form's refusal, never a level that reaches dpengine.
    response = owner_client.get(
        f"/surveys/{mixed_grouped.id}/{path}?level=0.9999999999999999&confidence=1"
    )
    assert response.status_code in (200, 400), response.status_code
