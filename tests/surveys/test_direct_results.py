"""Direct answers as results (issue 27 item 1): counts and shares with the survey's ordinary
binomial intervals, a direct number's mean, min_n applied; text answers exported (CSV,
codebook, SPSS, Stata) and never shown on a results page or the public page; the ledger
lists direct questions outside ε."""

import csv
import io
import uuid

import pyreadstat
import pytest
from django.urls import reverse

import dpengine
from surveys import selectors, services
from surveys.exports import spss_stata
from surveys.exports.codebook import codebook_rows, survey_codebook
from surveys.exports.csv import csv_safe, report_csv_rows
from surveys.services.answers import text_answer_encode

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"text": "Ever taken supplies home?"},
    {"text": "Do you manage people?", "randomized": False},
    {"text": "Department?", "type": "choice", "options": ["A", "B", "C"], "randomized": False},
    {"text": "Years here?", "type": "numeric", "min": 0, "max": 40, "randomized": False},
    {"text": "Anything else?", "type": "text", "randomized": False, "required": False},
]
TEXTS = ["직장 내 괴롭힘은 없었다", "=HYPERLINK(1)", None, "Quiet team", None]


@pytest.fixture
def study(make_survey):
    return make_study(make_survey)


def make_study(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS, title="Direct study")
    survey.min_n = 5
    survey.save(update_fields=["min_n"])
    survey = services.survey_open(survey=survey)
    q = list(survey.questions.values_list("id", flat=True))
    rows = [(True, True, 0, 3), (False, True, 1, 10), (True, False, 1, 0), (False, True, 2, 40)]
    rows.append((True, False, 1, 7))
    for (bit, manager, department, years), text in zip(rows, TEXTS, strict=True):
        answers = {str(q[0]): bit, str(q[1]): manager, str(q[2]): department, str(q[3]): years}
        if text is not None:
            answers[str(q[4])] = text_answer_encode(text)
        services.submission_receive(slug=survey.slug, submission_id=uuid.uuid4(), answers=answers)
    survey.refresh_from_db()
    return survey


def test_direct_answers_are_counted_with_ordinary_intervals(study):
    estimates = selectors.survey_estimates(survey=study)
    manager, department, years, text = estimates.direct_rows
    assert [s.count for s in manager.shares] == [3, 2]  # yes, no
    expected = dpengine.binomial_interval(yes=3, n=5, confidence=0.95, method=study.ci_method)
    assert (manager.shares[0].ci_low, manager.shares[0].ci_high) == (expected.low, expected.high)
    assert manager.shares[0].share == pytest.approx(0.6)
    assert [s.count for s in department.shares] == [1, 3, 1]
    assert years.mean.mean == pytest.approx(12.0)
    assert years.mean.ci_low <= 12.0 <= years.mean.ci_high
    assert years.mean.ci_low >= 0 and years.mean.ci_high <= 40
    assert text.n == 3 and text.is_text
    # min_n: with six required, every direct number is withheld.
    study.min_n = 6
    assert all(row.suppressed for row in selectors.survey_estimates(survey=study).direct_rows)


def test_the_exact_method_gives_clopper_pearson(study):
    estimates = selectors.survey_estimates(survey=study, method="exact")
    share = estimates.direct_rows[0].shares[0]
    expected = dpengine.binomial_interval(yes=3, n=5, confidence=0.95, method="exact")
    assert (share.ci_low, share.ci_high) == (expected.low, expected.high)


def test_the_results_page_shows_counts_but_never_text_answers(study, owner_client):
    page = owner_client.get(reverse("surveys:results", kwargs={"pk": study.pk})).content.decode()
    assert 'data-kind="direct"' in page
    assert "Asked directly (not randomized)" in page
    assert "3 text answers" in page
    for text in TEXTS:
        if text:
            assert text not in page
    assert "60.0%" in page or "60%" in page


def test_the_ledger_lists_direct_questions_outside_epsilon(study, owner_client):
    ledger = selectors.privacy_ledger(survey=study)
    assert ledger.questions == 1
    assert [entry.kind for entry in ledger.direct] == ["yes_no", "choice", "numeric", "text"]
    builder = owner_client.get(reverse("surveys:builder", kwargs={"pk": study.pk}))
    assert "+ 4 direct questions, not covered" in builder.content.decode()
    respond = owner_client.get(f"/s/{study.slug}/").content.decode()
    assert "+ 4 direct questions, not covered" in respond
    assert respond.count("data-direct") == 4
    assert respond.count("Your answer to this question is sent exactly as you give it") == 4


def _csv(rows):
    out = io.StringIO()
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([csv_safe(cell) for cell in row])
    return list(csv.reader(io.StringIO(out.getvalue())))


def test_text_answers_are_exported_escaped_with_their_codebook_types(study):
    header, *rows = _csv(report_csv_rows(survey_codebook(survey=study)))
    texts = {row[header.index("Q5")] for row in rows}
    assert texts == {"직장 내 괴롭힘은 없었다", "'=HYPERLINK(1)", "", "Quiet team"}
    assert {row[header.index("Q4")] for row in rows} == {"3", "10", "0", "40", "7"}
    types = {
        row[1]: row[2] for row in codebook_rows(survey_codebook(survey=study)) if row[0] == "column"
    }
    assert [types[name] for name in ("Q1", "Q2", "Q3", "Q4", "Q5")] == [
        "randomized_yes_no",
        "direct_yes_no",
        "direct_choice",
        "direct_numeric",
        "direct_text",
    ]


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_spss_and_stata_hold_direct_numbers_and_texts(study, tmp_path, kind):
    path = tmp_path / f"reports.{kind}"
    (spss_stata.write_sav if kind == "sav" else spss_stata.write_dta)(
        survey_codebook(survey=study), path
    )
    reader = pyreadstat.read_sav if kind == "sav" else pyreadstat.read_dta
    frame, meta = reader(str(path), user_missing=True)
    assert set(frame["Q5"]) == {"직장 내 괴롭힘은 없었다", "=HYPERLINK(1)", "", "Quiet team"}
    assert sorted(float(v) for v in frame["Q4"]) == [0.0, 3.0, 7.0, 10.0, 40.0]
    assert meta.column_names_to_labels["Q5"] == "Anything else?"
    assert "Q2" in meta.variable_value_labels  # a direct yes/no is coded and labelled


@pytest.mark.slow
def test_the_estimates_api_and_csv_carry_direct_rows(study, owner_api):
    body = owner_api.get(f"/api/v1/surveys/{study.pk}/estimates/").json()
    direct = [row for row in body["estimates"] if row["type"] == "direct"]
    assert [row["question_type"] for row in direct] == ["yes_no", "choice", "numeric", "text"]
    assert direct[0]["epsilon"] is None
    assert [share["count"] for share in direct[0]["shares"]] == [3, 2]
    assert direct[2]["mean"]["mean"] == pytest.approx(12.0)
    assert direct[3]["shares"] == [] and direct[3]["mean"] is None


@pytest.mark.parametrize(
    ("language", "note", "ledger"),
    [
        ("ko", "동전 없이 입력한 그대로 전송됩니다", "+ 직접 묻는 질문 1개, 보호 대상 아님"),
        ("zh-hans", "将不经硬币、按原样发送", "+ 1 道直接提问的问题，不在保护范围内"),
    ],
)
def test_the_respondent_page_says_it_in_the_survey_language(
    make_survey, client, language, note, ledger
):
    survey = make_survey(status="draft", questions=QUESTIONS[:2], language=language)
    survey = services.survey_open(survey=survey)
    page = client.get(f"/s/{survey.slug}/").content.decode()
    assert note in page
    assert ledger in page


def test_results_break_down_by_a_direct_answer(study, owner_client):
    """A direct yes/no or choice question groups the randomized reports as a grouping
    question does: the counts per group are the stored reports of its respondents."""
    manager_id = study.questions.all()[1].pk
    grouping = selectors.direct_grouping(survey=study, question=study.questions.all()[1])
    assert [(o.label, o.respondent_count) for o in grouping.options] == [("Yes", 3), ("No", 2)]
    first = study.questions.all()[0].pk
    # Submissions 1, 2 and 4 manage people and reported True, False, False.
    assert grouping.tallies[first, 1] == (3, 1)
    assert grouping.tallies[first, 0] == (2, 2)
    study.min_n = 1
    study.save(update_fields=["min_n"])
    url = reverse("surveys:breakdown", kwargs={"pk": study.pk})
    page = owner_client.get(url, {"by": f"d{manager_id}"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "Respondents per group: Do you manage people?" in html
    assert f'value="d{manager_id}"' in html
    # A text or numeric direct question is not offered; nor is anything else.
    years_id = study.questions.all()[3].pk
    assert owner_client.get(url, {"by": f"d{years_id}"}).status_code == 400
    breakdown = selectors.survey_breakdown(survey=study, grouping_question=grouping)
    assert [cell.estimate.n for cell in breakdown.rows[0].cells] == [3, 2]
