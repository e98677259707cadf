"""Cheating-detection questions (issue 27 item 3): CDM and SLD designs on yes/no questions,
validated with dpengine's errors naming the field, part of the design fingerprint, reported as
one code 2 × (group - 1) + bit, estimated from the tallies (dpengine.estimate_cheating) with
min_n applied, and in the privacy ledger outside ε with their one-sided bound."""

import math
import types
import uuid

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

import dpengine
from surveys import selectors, services
from surveys.selectors.cheating_rows import group_counts
from surveys.services.question_types import clean_question_type

pytestmark = pytest.mark.django_db

CDM = {"kind": "cdm", "p": [0.25, 0.75]}
SLD = {"kind": "sld", "p": [0.2, 0.8], "group_share": 0.4}
QUESTIONS = [
    {"text": "Ever taken supplies home?"},
    {"text": "Ever called in sick when well?", "design": CDM},
    {"text": "Ever falsified a timesheet?", "design": SLD},
]


@pytest.fixture
def study(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS, title="Cheating study")
    survey.min_n = 5
    survey.save(update_fields=["min_n"])
    return services.survey_open(survey=survey)


def _send(survey, codes):
    ids = list(survey.questions.values_list("id", flat=True))
    for cdm_code, sld_code in codes:
        answers = {str(ids[0]): True, str(ids[1]): cdm_code, str(ids[2]): sld_code}
        services.submission_receive(slug=survey.slug, submission_id=uuid.uuid4(), answers=answers)


def test_designs_are_stored_in_rrreg_parametrisation_with_the_group_share():
    assert clean_question_type({"design": CDM})["design"] == {
        "kind": "cdm",
        "p": [0.25, 0.75],
        "group_share": 0.5,
    }
    assert clean_question_type({"design": SLD})["design"] == {
        "kind": "sld",
        "p": [0.2, 0.8],
        "group_share": 0.4,
    }


@pytest.mark.parametrize(
    ("design", "field"),
    [
        ({"kind": "cdm", "p": [0.5, 0.5]}, "design.p"),
        ({"kind": "cdm", "p": [0, 0.5]}, "design.p"),
        ({"kind": "sld", "p": [0.2]}, "design.p"),
        ({"kind": "sld", "p": "0.2,0.8"}, "design.p"),
        ({"kind": "sld", "p": [0.2, True]}, "design.p"),
        ({"kind": "cdm", "p": [0.2, 0.8], "group_share": 1}, "design.group_share"),
        ({"kind": "cdm", "p": [0.2, 0.8], "group_share": "half"}, "design.group_share"),
        ({"kind": "cdm", "p": [0.2, 0.8], "share": 0.5}, "design"),
        # A "yes" 1 / 0.1 = 10 times as likely from a carrier: above the ceiling of 9.
        ({"kind": "cdm", "p": [0.1, 0.8]}, "design"),
    ],
)
def test_bad_parameters_are_refused_naming_the_field(design, field):
    with pytest.raises(ValidationError) as info:
        clean_question_type({"design": design}, prefix="questions.1.")
    assert list(info.value.message_dict) == [f"questions.1.{field}"]


@pytest.mark.parametrize("kind", ["choice", "numeric"])
def test_only_yes_no_questions_take_a_design(kind):
    spec = {"type": kind, "options": ["a", "b"], "min": 0, "max": 3, "design": CDM}
    spec = {k: v for k, v in spec.items() if k != ("min" if kind == "choice" else "options")}
    if kind == "choice":
        spec.pop("max")
    with pytest.raises(ValidationError) as info:
        clean_question_type(spec)
    assert "design" in info.value.message_dict


def test_a_direct_question_takes_no_cheating_design():
    with pytest.raises(ValidationError) as info:
        clean_question_type({"randomized": False, "design": CDM})
    assert "design" in info.value.message_dict


@pytest.mark.parametrize(
    "changed",
    [
        {"kind": "cdm", "p": [0.25, 0.7]},
        {"kind": "cdm", "p": [0.25, 0.75], "group_share": 0.6},
        {"kind": "sld", "p": [0.25, 0.75]},
    ],
)
def test_the_fingerprint_changes_with_each_parameter(make_survey, changed):
    survey = make_survey(status="draft", questions=[{"text": "Q", "design": CDM}])
    question = survey.questions.get()
    first_print = selectors.survey_design_fingerprint(survey=survey)
    question.design = clean_question_type({"design": changed})["design"]
    question.save(update_fields=["design"])
    assert selectors.survey_design_fingerprint(survey=survey) != first_print
    question.design = clean_question_type({"design": CDM})["design"]
    question.save(update_fields=["design"])
    assert selectors.survey_design_fingerprint(survey=survey) == first_print


def test_reports_are_codes_0_to_3_and_a_bit_is_refused(study):
    target = selectors.submission_target(slug=study.slug)
    ids = list(study.questions.values_list("id", flat=True))
    assert target.report_ranges == {ids[1]: ("choice", 0, 3), ids[2]: ("choice", 0, 3)}
    for bad in (True, 4, -1):
        answers = {str(ids[0]): True, str(ids[1]): bad, str(ids[2]): 0}
        with pytest.raises(ValidationError) as info:
            services.submission_receive(
                slug=study.slug, submission_id=uuid.uuid4(), answers=answers
            )
        assert f"answers.{ids[1]}" in str(info.value.message_dict)
    assert study.submissions.count() == 0


def test_group_counts_split_the_codes():
    assert group_counts((5, 7, 2, 9)) == group_counts([5, 7, 2, 9])
    counts = group_counts((5, 7, 2, 9))
    assert (counts.n1, counts.yes1, counts.n2, counts.yes2) == (12, 7, 11, 9)
    assert group_counts((3, 1)).n2 == 0  # a tally that never saw codes 2 or 3


def test_estimates_are_dpengines_from_the_groups_counts_and_withheld_below_min_n(study):
    # CDM codes: group 1 (p 0.25) 2 no, 2 yes; group 2 (p 0.75) 1 no, 3 yes.
    codes = [(0, 1), (0, 3), (1, 2), (1, 3), (2, 0), (3, 1), (3, 3), (3, 3)]
    _send(study, codes[:4])
    rows = [row for row in selectors.survey_estimates(survey=study).rows if row.kind == "cheating"]
    assert [row.suppressed for row in rows] == [True, True]
    _send(study, codes[4:])
    rows = [row for row in selectors.survey_estimates(survey=study).rows if row.kind == "cheating"]
    cdm, sld = rows
    assert not cdm.suppressed and cdm.design_name == "cdm" and sld.design_name == "sld"
    expected = dpengine.estimate_cheating(
        design=dpengine.CheatingDetection(p=(0.25, 0.75)),
        n1=4,
        yes1=2,
        n2=4,
        yes2=3,
        confidence=study.confidence,
    )
    assert cdm.estimate == expected
    # SLD codes 1, 3, 2, 3, 0, 1, 3, 3: group 1 (codes 0, 1) 1 no, 2 yes; group 2 1 no, 4 yes.
    counts = (sld.estimate.n1, sld.estimate.yes1, sld.estimate.n2, sld.estimate.yes2)
    assert counts == (3, 2, 5, 4)
    assert sld.estimate.design == dpengine.StochasticLieDetector(p=(0.2, 0.8), share=0.4)
    assert [p.name for p in sld.shown_parameters] == ["pi", "t"]
    for parameter in cdm.shown_parameters:
        if parameter.estimate is not None:
            assert parameter.ci_low <= parameter.estimate <= parameter.ci_high
    assert cdm.as_dict()["gamma"]["estimate"] == cdm.shown("gamma").estimate


def test_simulated_respondents_go_through_dpengines_samplers(study):
    rng = np.random.default_rng(27)
    reports = services.simulated_reports_draw(survey=study, shares=[0.3, 0.3, 0.3], n=4000, rng=rng)
    assert set(np.unique(reports[:, 1])) == {0, 1, 2, 3}
    services.simulated_submissions_record(survey=study, reports=reports)
    cdm = next(r for r in selectors.survey_estimates(survey=study).rows if r.kind == "cheating")
    # Everyone complies: gamma near 0, pi near 0.3 (four standard errors).
    assert abs(cdm.estimate["pi"].estimate - 0.3) <= 4 * cdm.estimate["pi"].std_error
    assert abs(cdm.estimate["gamma"].estimate) <= 4 * cdm.estimate["gamma"].std_error
    # Group 2 holds about 1 - 0.5 of the respondents (binomial, four standard deviations).
    assert abs(cdm.estimate.n2 - 2000) <= 4 * math.sqrt(4000 * 0.25)


def test_the_ledger_lists_them_outside_epsilon_with_the_one_sided_bound(study):
    ledger = selectors.privacy_ledger(survey=study)
    assert [entry.design for entry in ledger.entries] == ["forced_response"]
    assert math.isfinite(ledger.total_epsilon)
    assert ledger.total_epsilon == pytest.approx(selectors.survey_coins(study).epsilon)
    cdm, sld = ledger.one_sided
    assert (cdm.design, sld.design) == ("cdm", "sld")
    assert (cdm.number, sld.number) == (2, 3)  # as the page numbers them
    assert cdm.yes_odds == pytest.approx(4)  # 1 / min(p) = 1 / 0.25
    assert sld.yes_odds == pytest.approx(5)  # 1 / min(1 - p) = 1 / 0.2
    assert math.isinf(selectors.question_mechanism(study.questions.all()[1], survey=study).epsilon)


@pytest.fixture
def answered(study):
    rng = np.random.default_rng(3)
    reports = services.simulated_reports_draw(survey=study, shares=[0.3, 0.3, 0.3], n=60, rng=rng)
    services.simulated_submissions_record(survey=study, reports=reports)
    return study


SURVEY_PAGES = [
    "builder",
    "preview",
    "results",
    "estimates-csv",
    "responses-csv",
    "responses-sav",
    "responses-dta",
    "codebook-csv",
    "export-zip",
    "export-xlsx",
    "breakdown",
    "regression",
    "r-export",
    "planner",
    "public-settings",
]
API_READS = [
    "survey-detail",
    "survey-estimates",
    "survey-estimates-csv",
    "survey-responses-csv",
    "survey-codebook-csv",
    "survey-regression",
    "survey-r-export",
]


@pytest.mark.parametrize("name", SURVEY_PAGES)
def test_every_page_and_export_of_a_survey_with_cheating_questions_works(
    answered, owner_client, name
):
    response = owner_client.get(reverse(f"surveys:{name}", kwargs={"pk": answered.pk}))
    assert response.status_code == 200, name


@pytest.mark.parametrize("name", API_READS)
def test_every_api_read_of_a_survey_with_cheating_questions_works(answered, owner_api, name):
    response = owner_api.get(reverse(f"api:{name}", kwargs={"survey_id": answered.pk}))
    assert response.status_code == 200, name


def test_the_respondent_page_and_public_definition_work(answered, client):
    assert client.get(reverse("surveys:respond", kwargs={"slug": answered.slug})).status_code == 200
    public = client.get(reverse("api:public-survey", kwargs={"slug": answered.slug}))
    assert public.status_code == 200


def test_only_one_bit_questions_are_released_or_broken_down(study):
    from surveys.selectors.public_results import released_questions

    released = list(released_questions(study))
    assert [question.text for question in released] == [QUESTIONS[0]["text"]]
    assert [selectors.reports_a_bit(q) for q in study.questions.all()] == [True, False, False]


def test_the_results_page_shows_pi_gamma_and_t_and_says_gamma_is_a_bound(answered, owner_client):
    page = owner_client.get(reverse("surveys:results", kwargs={"pk": answered.pk}))
    html = page.content.decode()
    assert html.count('data-kind="cheating"') == 2
    for parameter in ("pi", "beta", "gamma", "t"):
        assert f'data-parameter="{parameter}"' in html
    assert "It is only a lower bound on not following the instructions" in html
    cdm = next(r for r in selectors.survey_estimates(survey=answered).rows if r.kind == "cheating")
    assert f"Group 1: {cdm.estimate.yes1} “yes” of {cdm.estimate.n1} reports" in html


def test_below_min_n_the_results_page_withholds_the_numbers(study, owner_client):
    _send(study, [(1, 1)])
    html = owner_client.get(reverse("surveys:results", kwargs={"pk": study.pk})).content.decode()
    assert html.count("Not enough responses yet (1 of 5)") >= 2
    assert 'data-parameter="gamma"' not in html


# Sentences of the respondent page that a cheating-detection question makes false or needs.
NO_ANSWER_PROVES = (
    "Sometimes it sends your true answer, sometimes a random one, so no answer proves what you "
    "said."
)
QUALIFIED = "Sometimes it sends your true answer, sometimes a random one."
ONE_SIDED_NOTE = (
    "In the questions that put you in group 1 or 2, a “no” sent shows that your answer is no."
)


@pytest.mark.parametrize("language", ["en", "ko", "zh-hans"])
def test_no_answer_proves_what_you_said_is_never_said_when_a_no_is_conclusive(
    client, make_survey, language
):
    """An honest "no" under CDM or SLD proves the true answer is no (dpengine: epsilon is
    inf), so the page must not promise that no answer proves anything, in any language; it
    says which questions are the exception and lists them outside ε in the ledger."""
    from tests.surveys.views.test_privacy_statements import plain_text

    def page(questions):
        survey = make_survey(language=language, questions=questions)
        html = client.get(reverse("surveys:respond", args=[survey.slug]), {"lang": language})
        return plain_text(html.content.decode()), html.content.decode()

    with translation.override(language):
        promise, qualified, note = (
            gettext(NO_ANSWER_PROVES),
            gettext(QUALIFIED),
            gettext(ONE_SIDED_NOTE),
        )
    if language != "en":
        assert promise != NO_ANSWER_PROVES and qualified != QUALIFIED and note != ONE_SIDED_NOTE
    for design in (CDM, SLD):
        text, html = page([{"text": "Ever?"}, {"text": "Cheated?", "design": design}])
        assert promise not in text
        assert qualified in text and note in text
        # The question says a "no" is conclusive, and the ledger lists it outside ε.
        assert 'data-stat="one-sided"' in html and 'data-stat="one-sided-questions"' in html
    text, html = page([{"text": "Ever?"}])
    assert promise in text and note not in text and "one-sided" not in html


def _add_url(survey):
    return reverse("surveys:question-add", kwargs={"pk": survey.pk})


CDM_POST = {
    "text": "Cheated?",
    "question_type": "yes_no",
    "design": "cdm",
    "cdm_p1": "0.2",
    "cdm_p2": "0.7",
    "cdm_group_share": "0.6",
}


def test_the_builder_asks_to_confirm_and_stores_the_design(make_survey, owner_client):
    draft = make_survey(status="draft", questions=[])
    refused = owner_client.post(_add_url(draft), CDM_POST)
    assert refused.status_code == 400
    assert "Tick this to use cheating detection" in refused.content.decode()
    assert not draft.questions.exists()
    stored = owner_client.post(_add_url(draft), {**CDM_POST, "cheating_confirmed": "on"})
    assert stored.status_code == 302
    assert draft.questions.get().design == {"kind": "cdm", "p": [0.2, 0.7], "group_share": 0.6}
    page = owner_client.get(reverse("surveys:builder", kwargs={"pk": draft.pk})).content.decode()
    assert "cheating detection (CDM), no ε" in page
    assert 'data-stat="one-sided-questions"' in page  # the builder's ledger lists it apart


@pytest.mark.parametrize(
    ("change", "field"),
    [({"cdm_p2": "0.2"}, "cdm_p1"), ({"cdm_group_share": "1"}, "cdm_group_share")],
)
def test_the_builder_refuses_bad_parameters_next_to_their_box(
    make_survey, owner_client, change, field
):
    draft = make_survey(status="draft", questions=[])
    response = owner_client.post(
        _add_url(draft), {**CDM_POST, "cheating_confirmed": "on", **change}
    )
    assert response.status_code == 400
    assert not draft.questions.exists()
    assert f'id="id_{field}_error"' in response.content.decode()


def test_the_api_refuses_bad_parameters_naming_the_field(owner_api):
    response = owner_api.post(
        reverse("api:survey-list"),
        {
            "title": "T",
            "p_truth": 0.5,
            "p_forced_yes": 0.5,
            "questions": [{"text": "Q", "design": {"kind": "sld", "p": [0.3, 0.3]}}],
        },
        format="json",
    )
    assert response.status_code == 400
    assert "questions.0.design.p" in response.content.decode()
    ok = owner_api.post(
        reverse("api:survey-list"),
        {
            "title": "T",
            "p_truth": 0.5,
            "p_forced_yes": 0.5,
            "questions": [{"text": "Q", "design": SLD}],
        },
        format="json",
    )
    assert ok.status_code == 201
    assert ok.json()["questions"][0]["design"] == SLD
    assert ok.json()["questions"][0]["epsilon"] is None


def test_the_admin_shows_the_design_with_no_finite_epsilon(answered, admin_client):
    page = admin_client.get(
        reverse("admin:surveys_survey_change", args=[answered.pk])
    ).content.decode()
    assert "cdm, p=0.25/0.75, group_share=0.5 · ε = ∞, ε_yes = 1.39" in page
    assert "sld, p=0.2/0.8, group_share=0.4 · ε = ∞, ε_yes = 1.61" in page


def test_the_codebook_documents_the_codes_and_the_one_sided_bound(answered):
    from surveys.exports.codebook import TYPE_CHEATING, codebook_rows, survey_codebook

    rows = list(codebook_rows(survey_codebook(survey=answered)))
    header = rows[0]
    at = {name: index for index, name in enumerate(header)}
    columns = {row[at["name"]]: row for row in rows if row[at["section"]] == "column"}
    assert columns["Q2"][at["type"]] == TYPE_CHEATING == columns["Q3"][at["type"]]
    assert columns["Q2"][at["epsilon"]] is None and columns["Q2"][at["design"]] == "cdm"
    assert columns["Q2"][at["parameters"]].startswith("p1 = 0.25, p2 = 0.75, group_share = 0.5")
    assert "epsilon_yes = 1.38629" in columns["Q2"][at["parameters"]]
    values = {
        row[at["value"]]: row[at["text"]]
        for row in rows
        if row[at["section"]] == "value" and row[at["name"]] == "Q2"
    }
    assert set(values) == {0, 1, 2, 3, ""}
    assert values[2].startswith("Group 2, reported no") and values[1].startswith(
        "Group 1, reported yes"
    )


def test_the_estimates_csv_has_the_groups_and_each_parameter(answered):
    from surveys.exports.csv import ESTIMATE_HEADER, estimate_csv_rows

    estimates = selectors.survey_estimates(survey=answered)
    rows = [dict(zip(ESTIMATE_HEADER, row, strict=True)) for row in estimate_csv_rows(estimates)]
    cdm = [row for row in rows[1:] if row["column"] == "Q2"]
    assert [row["statistic"] for row in cdm] == ["group_1", "group_2", "pi", "beta", "gamma"]
    sld = [row for row in rows[1:] if row["column"] == "Q3"]
    assert [row["statistic"] for row in sld] == ["group_1", "group_2", "pi", "t"]
    row = next(r for r in estimates.rows if r.kind == "cheating")
    assert (cdm[0]["n"], cdm[0]["reported_yes"]) == (row.estimate.n1, row.estimate.yes1)
    assert cdm[4]["unbiased"] == row.estimate["gamma"].estimate
    assert cdm[4]["epsilon"] is None and cdm[4]["type"] == "cheating"
    # 60 respondents: groups below dpengine.WALD_MIN_GROUP, so the conservative interval.
    assert (sld[3]["ci_method"], sld[3]["requested_ci_method"]) == ("exact_conservative", "fieller")


def test_the_r_script_fits_rruni_with_the_group(answered):
    from surveys.exports.r import r_estimates_script

    script = r_estimates_script(survey=answered)
    assert "fit <- RRuni(response = y %% 2, group = y %/% 2 + 1," in script
    assert 'model = "CDM", p = c(0.25, 0.75)' in script
    assert 'model = "SLD", p = c(0.2, 0.8)' in script


# --- which interval is shown (dpengine.cheating.conservative's rule) -----------------------

CONSERVATIVE_NOTE = "conservative intervals built from each group’s exact (Clopper–Pearson)"


def _api_cheating_rows(owner_api, survey):
    response = owner_api.get(reverse("api:survey-estimates", kwargs={"survey_id": survey.pk}))
    assert response.status_code == 200
    return [row for row in response.json()["estimates"] if row["type"] == "cheating"]


def test_small_groups_show_the_conservative_interval_and_say_so(answered, owner_client, owner_api):
    # 60 respondents: about 30 a group, below dpengine.WALD_MIN_GROUP.
    rows = [r for r in selectors.survey_estimates(survey=answered).rows if r.kind == "cheating"]
    for row in rows:
        assert row.method_replaced and row.small_groups
        assert {p.method for p in row.shown_parameters} == {"exact_conservative"}
        assert row.as_dict()["method_reason"] == "small_groups"
    html = owner_client.get(reverse("surveys:results", kwargs={"pk": answered.pk})).content
    html = html.decode()
    for row in rows:
        assert f'data-method-replaced="{row.question_id}"' in html
    assert html.count(CONSERVATIVE_NOTE) == 2
    assert f"(fewer than {dpengine.WALD_MIN_GROUP} in one), 95% Wald intervals" in html
    for api_row in _api_cheating_rows(owner_api, answered):
        assert api_row["method"] == "exact_conservative" and api_row["requested_method"] == "wald"
        assert api_row["method_reason"] == "small_groups"
        for parameter in api_row["parameters_estimated"].values():
            assert parameter["method"] == "exact_conservative"
    from surveys.exports.csv import ESTIMATE_HEADER, estimate_csv_rows

    estimates = selectors.survey_estimates(survey=answered)
    csv_rows = [dict(zip(ESTIMATE_HEADER, r, strict=True)) for r in estimate_csv_rows(estimates)]
    sld_t = next(r for r in csv_rows if r["column"] == "Q3" and r["statistic"] == "t")
    assert (sld_t["ci_method"], sld_t["requested_ci_method"]) == ("exact_conservative", "fieller")


def test_large_groups_keep_wald_and_fieller(study, owner_client, owner_api):
    rng = np.random.default_rng(5)
    reports = services.simulated_reports_draw(survey=study, shares=[0.3, 0.3, 0.3], n=500, rng=rng)
    services.simulated_submissions_record(survey=study, reports=reports)
    rows = [r for r in selectors.survey_estimates(survey=study).rows if r.kind == "cheating"]
    assert min(min(r.estimate.n1, r.estimate.n2) for r in rows) >= dpengine.WALD_MIN_GROUP
    assert not any(row.method_replaced for row in rows)
    html = owner_client.get(reverse("surveys:results", kwargs={"pk": study.pk})).content.decode()
    assert "data-method-replaced" not in html and CONSERVATIVE_NOTE not in html
    cdm, sld = _api_cheating_rows(owner_api, study)
    assert cdm["method"] == "wald" and cdm["method_reason"] == "large_groups"
    assert sld["parameters_estimated"]["t"]["method"] == "fieller"
    assert sld["parameters_estimated"]["pi"]["method"] == "wald"


@pytest.mark.parametrize("language", ["ko", "zh-hans"])
def test_the_conservative_interval_notes_are_translated(language):
    from django.template.loader import render_to_string

    from surveys.templatetags.researcher_tags import pct

    with translation.override(language):
        for reason in ("small_groups", "unswept_level"):
            row = types.SimpleNamespace(
                question_id=1,
                column="Q1",
                text="?",
                design_name="cdm",
                design_label="CDM",
                parameters={"p1": 0.25, "p2": 0.75, "group_share": 0.5},
                epsilon_yes=math.log(4),
                suppressed=False,
                has_data=True,
                is_sld=False,
                shown_parameters=[],
                estimate=types.SimpleNamespace(n1=12, yes1=3, n2=14, yes2=9),
                method_replaced=True,
                small_groups=reason == "small_groups",
                wald_min_group=100,
                pi=types.SimpleNamespace(estimate=0.1),
                prevalence_upper=0.2,
            )
            estimates = types.SimpleNamespace(
                cheating_rows=[row], confidence=0.95, coverage_floor=0.93
            )
            survey = types.SimpleNamespace(language="en", min_n=5)
            html = render_to_string(
                "surveys/_cheating_results.html", {"estimates": estimates, "survey": survey}
            )
            assert 'data-method-replaced="1"' in html
            assert "Clopper–Pearson" in html and CONSERVATIVE_NOTE not in html
            assert "Wald intervals" not in html and pct(0.93, 0) in html
