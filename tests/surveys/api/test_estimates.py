"""Estimates as JSON and CSV, and the raw reports CSV."""

import csv
import io
import json

import numpy as np
import pytest
from django.http import StreamingHttpResponse

import dpengine
from surveys import selectors, services
from surveys.exports import csv as csv_export
from surveys.services import grouping
from tests.helpers import MIXED_QUESTIONS, simulate_responses, stored_numeric_reports

pytestmark = pytest.mark.django_db

ROW_FIELDS = {
    "type", "question_id", "column", "position", "text", "design", "parameters", "n", "yes",
    "yes_rate", "estimate", "unbiased", "clamped", "std_error", "ci_low", "ci_high", "method",
    "requested_method", "confidence", "epsilon", "suppressed",
}  # fmt: skip


def estimates_url(survey, query=""):
    return f"/api/v1/surveys/{survey.id}/estimates/{query}"


def strict_json(response):
    """Parse as a strict client would: NaN and Infinity are not JSON."""

    def refuse(name):
        raise AssertionError(f"{name} in JSON")

    return json.loads(response.content, parse_constant=refuse)


def simulate(survey, *, n, shares, seed):
    rng = np.random.default_rng(seed)
    design = selectors.survey_design(survey=survey)
    reports = np.column_stack([dpengine.simulate_reports(s, n, design, rng) for s in shares])
    services.simulated_submissions_record(survey=survey, reports=reports)


@pytest.mark.parametrize(
    ("query", "confidence", "method"),
    [
        ("", 0.95, "wilson"),
        ("?confidence=0.9&method=exact", 0.9, "exact"),
        ("?method=jeffreys", 0.95, "jeffreys"),
        ("?confidence=0.99&method=wald", 0.99, "wald"),
    ],
)
def test_estimates_equal_dpengines(owner_api, make_survey, query, confidence, method):
    survey = make_survey(p_truth=0.6, p_forced_yes=0.3, min_n=10)
    simulate(survey, n=400, shares=[0.3, 0.05], seed=7)
    survey.refresh_from_db()
    response = owner_api.get(estimates_url(survey, query))
    assert response.status_code == 200
    body = strict_json(response)
    design = dpengine.ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
    assert (body["method"], body["confidence"]) == (method, confidence)
    assert body["epsilon"] == design.epsilon
    assert len(body["estimates"]) == 2
    for index, (row, question) in enumerate(
        zip(body["estimates"], survey.questions.all(), strict=True)
    ):
        # The method the product shows (dpengine.guarantee): the requested one where it keeps
        # the level at this n, else exact; requested_method always says what was asked.
        expected = dpengine.estimate_with_coverage(
            yes=selectors.survey_tallies(survey=survey).of(question.pk)[1],
            n=selectors.survey_tallies(survey=survey).of(question.pk)[0],
            design=design,
            confidence=confidence,
            method=method,
        )
        assert set(row) == ROW_FIELDS
        assert row["question_id"] == question.id
        assert row["column"] == f"Q{index + 1}"  # as the results page and the exports name it
        assert row["text"] == question.text
        assert row["suppressed"] is False
        assert row["epsilon"] == design.epsilon
        for name in ("n", "yes", "yes_rate", "clamped", "std_error", "ci_low", "ci_high",
                     "method", "requested_method", "confidence"):  # fmt: skip
            assert row[name] == getattr(expected, name), name
        assert row["requested_method"] == method
        # The estimate shown is the clamped one, inside the interval; the unbiased is labelled.
        assert (row["estimate"], row["unbiased"]) == (expected.clamped, expected.estimate)


def test_defaults_are_the_surveys_own_confidence_and_method(owner_api, make_survey):
    survey = make_survey(confidence=0.8, ci_method="jeffreys")
    body = owner_api.get(estimates_url(survey)).json()
    assert (body["confidence"], body["method"]) == (0.8, "jeffreys")
    assert {row["method"] for row in body["estimates"]} == {"jeffreys"}


def test_no_responses_yet_gives_nulls_not_nan(owner_api, make_survey):
    survey = make_survey(min_n=0)
    body = strict_json(owner_api.get(estimates_url(survey)))
    for row in body["estimates"]:
        assert (row["n"], row["yes"]) == (0, 0)
        assert row["yes_rate"] is None
        assert row["estimate"] is None
        assert row["std_error"] is None


def test_rows_below_min_n_are_suppressed_with_null_statistics(owner_api, make_survey):
    survey = make_survey(min_n=50)
    simulate(survey, n=20, shares=[0.5, 0.5], seed=1)
    body = strict_json(owner_api.get(estimates_url(survey)))
    for row in body["estimates"]:
        assert row["suppressed"] is True
        assert row["n"] == 20
        for name in ("yes_rate", "estimate", "clamped", "std_error", "ci_low", "ci_high"):
            assert row[name] is None


def test_unclamped_estimate_is_reported_alongside_the_clamped_one(owner_api, make_survey):
    survey = make_survey(questions=["Q?"], min_n=0)
    # 1 yes out of 40 under the classic design: 2 * 0.025 - 0.5 < 0.
    services.simulated_submissions_record(
        survey=survey, reports=np.array([[True]] + [[False]] * 39)
    )
    row = owner_api.get(estimates_url(survey)).json()["estimates"][0]
    assert row["unbiased"] == pytest.approx(-0.45)
    assert row["clamped"] == row["estimate"] == 0.0
    assert row["ci_low"] <= row["estimate"] <= row["ci_high"]


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("?confidence=abc", "confidence"),
        ("?confidence=1", "confidence"),
        ("?confidence=0.2", "confidence"),
        ("?confidence=nan", "confidence"),
        ("?confidence=1e999", "confidence"),
        ("?confidence=" + "9" * 2000, "confidence"),
        ("?method=bootstrap", "method"),
    ],
)
def test_bad_query_parameter_is_400_naming_it(owner_api, open_survey, query, parameter):
    response = owner_api.get(estimates_url(open_survey, query))
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [parameter]


def _csv(response):
    assert isinstance(response, StreamingHttpResponse)
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_estimates_csv_is_the_shared_export(owner_api, make_survey):
    survey = make_survey(min_n=5)
    simulate(survey, n=60, shares=[0.2, 0.4], seed=3)
    response = owner_api.get(f"/api/v1/surveys/{survey.id}/estimates.csv?method=exact")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith(
        'attachment; filename="workplace-habits-estimates-'
    )
    # The codebook that explains it, for the same interval.
    assert response["Link"] == (
        f"<http://testserver/api/v1/surveys/{survey.id}/codebook.csv?method=exact>; "
        'rel="describedby"; type="text/csv"'
    )
    rows = _csv(response)
    expected = _csv(
        csv_export.estimates_csv_response(selectors.survey_estimates(survey=survey, method="exact"))
    )
    assert rows == expected
    # No "#" provenance lines any more (they moved to the codebook): one table, named rows.
    assert rows[0][:4] == ["column", "question_id", "position", "question"]
    assert [row[0] for row in rows[1:]] == ["Q1", "Q2"]
    method = rows[0].index("ci_method")
    assert {row[method] for row in rows[1:]} == {"exact"}


def test_estimates_csv_ignores_the_accept_header(owner_api, open_survey):
    response = owner_api.get(
        f"/api/v1/surveys/{open_survey.id}/estimates.csv", HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")


def test_estimates_csv_bad_parameter_is_a_json_400(owner_api, open_survey):
    response = owner_api.get(
        f"/api/v1/surveys/{open_survey.id}/estimates.csv?confidence=2", HTTP_ACCEPT="text/csv"
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["confidence"]


def test_responses_csv_has_one_row_per_submission(owner_api, open_survey, submit):
    first = submit(open_survey, [True, False]).json()["submission_id"]
    second = submit(open_survey, [False, False]).json()["submission_id"]
    response = owner_api.get(f"/api/v1/surveys/{open_survey.id}/responses.csv")
    assert response.status_code == 200
    assert "/codebook.csv>" in response["Link"]
    header, *rows = _csv(response)
    assert header == ["submission_id", "received_on", "Q1", "Q2", "P1", "P2"]
    # Ordered by the random submission id, never by arrival.
    assert [row[0] for row in rows] == sorted([first, second])
    assert sorted((row[0], row[2], row[3]) for row in rows) == sorted(
        [(first, "1", "0"), (second, "0", "0")]
    )


def test_empty_query_parameters_mean_the_surveys_defaults(owner_api, open_survey):
    body = owner_api.get(estimates_url(open_survey, "?confidence=&method=")).json()
    assert (body["confidence"], body["method"]) == (0.95, "wilson")


# Leading tabs and carriage returns cannot reach a title or question: the services strip them.
@pytest.mark.parametrize("dangerous", ["=1+1", "+SUM(A1)", "-2+3", "@cmd"])
def test_csv_cells_that_look_like_formulas_are_neutralised(owner_api, make_survey, dangerous):
    survey = make_survey(title=dangerous + " title", questions=[dangerous + " question?"])
    estimates = _csv(owner_api.get(f"/api/v1/surveys/{survey.id}/estimates.csv"))
    codebook = _csv(owner_api.get(f"/api/v1/surveys/{survey.id}/codebook.csv"))
    assert "'" + dangerous + " question?" in [cell for row in estimates for cell in row]
    cells = [cell for row in codebook for cell in row]
    assert "'" + dangerous + " title" in cells
    assert "'" + dangerous + " question?" in cells
    for rows in (estimates, codebook):
        assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) for r in rows for cell in r)


# --- surveys that mix question types and designs ------------------------------------------

# MIXED_QUESTIONS with a Kuk design and an option a spreadsheet would read as a formula.
MIXED = [
    {"text": "Have you taken office supplies home?"},
    {"text": "Have you lied to your manager?", "design": {"kind": "kuk", "theta1": 0.8,
                                                          "theta2": 0.2}},
    {"text": "Which did you do most?", "type": "choice", "options": ["None", "=Pens", "Paper"]},
    {"text": "Drinks in a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
]  # fmt: skip


@pytest.fixture
def mixed_survey(make_survey):
    return simulate_responses(make_survey(questions=MIXED, min_n=20), n=300, seed=3)


def test_mixed_estimates_have_one_row_per_type_equal_to_dpengines(owner_api, mixed_survey):
    questions = list(mixed_survey.questions.all())
    tallies = selectors.survey_tallies(survey=mixed_survey)
    numeric = questions[3]
    response = owner_api.get(estimates_url(mixed_survey, f"?threshold_q{numeric.pk}=10"))
    assert response.status_code == 200
    body = strict_json(response)
    rows = body["estimates"]
    assert [row["type"] for row in rows] == ["yes_no", "yes_no", "choice", "numeric"]
    assert [row["design"] for row in rows] == ["forced_response", "kuk", "choice", "numeric"]
    ledger = selectors.privacy_ledger(survey=mixed_survey)
    assert body["total_epsilon"] == ledger.total_epsilon
    assert [row["epsilon"] for row in rows] == [entry.epsilon for entry in ledger.entries]

    kuk = dpengine.Kuk(theta1=0.8, theta2=0.2)
    reports, yes = tallies.of(questions[1].pk)
    expected = dpengine.estimate_with_coverage(yes=yes, n=reports, design=kuk, confidence=0.95)
    assert (rows[1]["unbiased"], rows[1]["ci_low"]) == (expected.estimate, expected.ci_low)
    assert rows[1]["estimate"] == expected.clamped
    assert rows[1]["parameters"]["a"] == kuk.p_yes_given_yes

    choice = dpengine.estimate_choice_with_coverage(
        counts=tallies.counts_of(questions[2].pk, width=3),
        mechanism=selectors.question_mechanism(questions[2], survey=mixed_survey),
        confidence=0.95,
    )
    assert [o["label"] for o in rows[2]["options"]] == ["None", "=Pens", "Paper"]
    assert [o["unbiased"] for o in rows[2]["options"]] == list(choice.shares)
    assert rows[2]["shares"] == list(choice.shares)
    # The headline: the consistent shares (>= 0, summing to 1), with their shown intervals.
    assert [o["estimate"] for o in rows[2]["options"]] == list(choice.consistent)
    assert rows[2]["consistent_shares"] == list(choice.consistent)
    assert [o["ci_high"] for o in rows[2]["options"]] == list(choice.consistent_ci_high)
    assert rows[2]["adjustment"] == "bonferroni"
    assert rows[2]["per_option_confidence"] == pytest.approx(1 - 0.05 / 3)

    mechanism = selectors.question_mechanism(numeric, survey=mixed_survey)
    stored = stored_numeric_reports(mixed_survey, numeric.pk)
    mean = dpengine.estimate_mean(reports=stored, question=mechanism)
    share = dpengine.estimate_share_above(reports=stored, question=mechanism, threshold=10)
    assert rows[3]["mean"]["unbiased"] == pytest.approx(mean.estimate, rel=1e-12)
    assert rows[3]["mean"]["estimate"] == pytest.approx(mean.clamped, rel=1e-12)
    assert rows[3]["mean"]["ci_low"] == pytest.approx(mean.ci_low, rel=1e-12)
    assert rows[3]["share_above"] == {
        "threshold": 10,
        "estimate": share.clamped,
        "unbiased": share.estimate,
        "clamped": share.clamped,
        "std_error": share.std_error,
        "ci_low": share.ci_low,
        "ci_high": share.ci_high,
    }
    assert (rows[3]["min"], rows[3]["max"], rows[3]["threshold"]) == (0, 30, 10)


def test_numeric_threshold_defaults_to_the_middle_of_the_range(owner_api, mixed_survey):
    rows = owner_api.get(estimates_url(mixed_survey)).json()["estimates"]
    assert rows[3]["threshold"] == 15 and rows[3]["share_above"]["threshold"] == 15


@pytest.mark.parametrize("value", ["30", "-1", "abc", "2.5"])
@pytest.mark.parametrize("path", ["estimates/", "estimates.csv", "export.zip"])
@pytest.mark.slow
def test_bad_threshold_is_a_400_naming_the_parameter(owner_api, mixed_survey, value, path):
    numeric = mixed_survey.questions.all()[3]
    field = f"threshold_q{numeric.pk}"
    response = owner_api.get(f"/api/v1/surveys/{mixed_survey.id}/{path}?{field}={value}")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]


def test_suppressed_typed_rows_hold_no_statistics(owner_api, make_survey):
    survey = make_survey(questions=MIXED, min_n=5)
    rows = strict_json(owner_api.get(estimates_url(survey)))["estimates"]
    assert {row["suppressed"] for row in rows} == {True}
    assert {o["estimate"] for o in rows[2]["options"]} == {None}
    assert rows[3]["mean"]["estimate"] is None and rows[3]["share_above"]["ci_low"] is None


def test_mixed_estimates_csv_has_a_row_per_option_and_per_statistic(owner_api, mixed_survey):
    response = owner_api.get(f"/api/v1/surveys/{mixed_survey.id}/estimates.csv?method=exact")
    rows = _csv(response)
    header, body = rows[0], rows[1:]
    cell = {name: header.index(name) for name in header}
    assert [(r[cell["column"]], r[cell["statistic"]]) for r in body] == [
        ("Q1", "share_yes"),
        ("Q2", "share_yes"),
        ("Q3", "share"),
        ("Q3", "share"),
        ("Q3", "share"),
        ("Q4", "mean"),
        ("Q4", "share_above"),
    ]
    # The label that looks like a formula is neutralised, as everywhere in the CSV files.
    assert [r[cell["option"]] for r in body[2:5]] == ["None", "'=Pens", "Paper"]
    assert [r[cell["design"]] for r in body] == ["forced_response", "kuk"] + ["choice"] * 3 + [
        "numeric"
    ] * 2
    assert {r[cell["adjustment"]] for r in body[2:5]} == {"bonferroni"}
    assert {r[cell["ci_method"]] for r in body[:5]} == {"exact"}
    assert {r[cell["ci_method"]] for r in body[5:]} == {"normal"}
    assert body[6][cell["threshold"]] == "15"
    assert body[1][cell["parameters"]].startswith("theta1 = 0.8, theta2 = 0.2, a = ")
    estimates = selectors.survey_estimates(survey=mixed_survey, method="exact")
    options = estimates.rows[2].options
    assert [float(r[cell["unbiased"]]) for r in body[2:5]] == [o.estimate for o in options]
    assert [float(r[cell["estimate"]]) for r in body[2:5]] == [o.consistent for o in options]


def test_raw_reports_csv_holds_typed_values(owner_api, mixed_survey):
    rows = _csv(owner_api.get(f"/api/v1/surveys/{mixed_survey.id}/responses.csv"))
    assert rows[0][2:6] == ["Q1", "Q2", "Q3", "Q4"]
    assert {row[2] for row in rows[1:]} <= {"0", "1"}
    assert {row[4] for row in rows[1:]} == {"0", "1", "2"}
    numbers = [int(row[5]) for row in rows[1:]]  # integers, as sent, noise and all
    numeric = mixed_survey.questions.all()[3]
    assert sorted(numbers) == sorted(stored_numeric_reports(mixed_survey, numeric.pk))


def test_rows_name_the_method_used_and_the_one_requested(owner_api, make_survey):
    survey = simulate_responses(make_survey(questions=MIXED_QUESTIONS, min_n=10), n=12, seed=5)
    body = strict_json(owner_api.get(estimates_url(survey, "?method=jeffreys")))
    assert (body["method"], body["coverage_floor"]) == ("jeffreys", 0.93)
    yes_no, warner, choice, numeric = body["estimates"]
    for row in (yes_no, warner, choice):
        # 12 reports: Jeffreys could hold the truth less than 93 % of the time; exact shown.
        assert (row["method"], row["requested_method"]) == ("exact", "jeffreys")
    exact = dpengine.estimate(
        yes=yes_no["yes"], n=12, design=dpengine.CLASSIC, confidence=0.95, method="exact"
    )
    assert (yes_no["ci_low"], yes_no["ci_high"]) == (exact.ci_low, exact.ci_high)
    assert numeric["method"] == "normal" and "requested_method" not in numeric
    larger = simulate_responses(make_survey(questions=MIXED_QUESTIONS, min_n=10), n=400, seed=5)
    body = strict_json(owner_api.get(estimates_url(larger, "?method=jeffreys")))
    assert {row["method"] for row in body["estimates"][:3]} == {"jeffreys"}


ANALYSIS_PATHS = (
    "estimates/", "estimates.csv", "export.zip", "export.xlsx", "regression/", "codebook.csv",
)  # fmt: skip


@pytest.fixture
def grouped_mixed_survey(make_survey):
    """Every question type and a grouping question of three options, 40 simulated responses."""
    survey = make_survey(questions=MIXED_QUESTIONS, status="draft")
    grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B", "C"])
    survey = services.survey_open(survey=survey)
    options = list(survey.grouping_questions.get().options.values_list("id", flat=True))
    return simulate_responses(survey, n=40, seed=3, options=options)


@pytest.mark.parametrize("path", ANALYSIS_PATHS)
@pytest.mark.parametrize("level", ["0.9999999999999999", "0.9999999", "1", "0.4999"])
def test_a_confidence_beyond_six_nines_is_400_naming_confidence(
    owner_api, grouped_mixed_survey, path, level
):
    # Issue 32: 1 - 2**-53 reached dpengine, whose choice rows' per-option level
    # 1 - (1 - c) / k rounds to 1.0: a DPEngineError and a 500.
    response = owner_api.get(f"/api/v1/surveys/{grouped_mixed_survey.id}/{path}?confidence={level}")
    assert response.status_code == 400, response.content[:300]
    assert "confidence" in response.json()["errors"]


@pytest.mark.parametrize("path", ANALYSIS_PATHS)
def test_the_highest_confidence_allowed_is_computed_on_every_analysis_route(
    owner_api, grouped_mixed_survey, path
):
    response = owner_api.get(
        f"/api/v1/surveys/{grouped_mixed_survey.id}/{path}?confidence=0.999999"
    )
    assert response.status_code in (200, 202), response.content[:300]
