"""The export for R: one row per submission with the grouping covariates, and the rr code."""

import csv
import io
from fractions import Fraction

import pytest
from django.urls import reverse

from surveys import analysis, grouping, r_export

pytestmark = pytest.mark.django_db


def rows_of(response):
    body = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(body)))


def test_one_row_per_submission_with_randomized_bits_and_chosen_options(
    grouped_survey, options, submit_grouped, owner_client
):
    sent = [([True, False], options[0]), ([False, False], options[2]), ([True, True], options[1])]
    for bits, option in sent:
        assert submit_grouped(grouped_survey, bits, [option]).status_code == 201
    response = owner_client.get(reverse("surveys:r-export", kwargs={"pk": grouped_survey.pk}))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    header, *rows = rows_of(response)
    question_ids = list(grouped_survey.questions.values_list("id", flat=True))
    gq = grouped_survey.grouping_questions.get()
    assert header == [
        "submission_id",
        "received_on",
        *(f"q{qid}" for qid in question_ids),
        f"g{gq.pk}",
    ]
    assert [row[2:] for row in rows] == [
        ["1", "0", "Sales"],
        ["0", "0", "Support"],
        ["1", "1", "Research"],
    ]


def test_labels_that_look_like_formulas_are_neutralised_in_the_csv_and_the_r_code(
    make_survey, owner_api
):
    survey = make_survey(status="draft")
    gq = grouping.grouping_question_add(
        survey=survey, text="Income?", options=["=HYPERLINK(1)", 'Say "no"']
    )
    code = r_export.r_snippet(
        survey=survey,
        question=survey.questions.first(),
        grouping=analysis.survey_grouping_questions(survey=survey),
    )
    assert (
        f'd$g{gq.pk} <- factor(d$g{gq.pk}, levels = c("\'=HYPERLINK(1)", "Say \\"no\\""))' in code
    )
    response = owner_api.get(f"/api/v1/surveys/{survey.pk}/for-r.csv")
    assert response.status_code == 200
    assert rows_of(response)[0][-1] == f"g{gq.pk}"


def test_the_r_code_uses_rrs_unconditional_probabilities(make_survey):
    # p_truth 0.6, p_forced_yes 0.3: p = 0.6, p1 = 0.4 * 0.3 = 0.12, p0 = 0.4 * 0.7 = 0.28.
    survey = make_survey(status="draft", p_truth=0.6, p_forced_yes=0.3)
    design = r_export.r_design(survey=survey)
    assert (design.p, design.p1, design.p0) == (0.6, 0.12, 0.28)
    assert Fraction(str(design.p)) + Fraction(str(design.p1)) + Fraction(str(design.p0)) == 1
    code = r_export.r_snippet(survey=survey, question=survey.questions.first(), grouping=[])
    qid = survey.questions.first().pk
    assert f"fit <- rrreg(q{qid} ~ 1, data = d," in code
    assert "p = 0.6, p1 = 0.12, p0 = 0.28" in code
    assert 'design = "forced-known")' in code
