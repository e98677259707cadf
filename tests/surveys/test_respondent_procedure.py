"""The respondent procedure (issue 33 items 1-3): who carries out a yes/no design, validated
(CDM and SLD require the respondent procedure), named by the fingerprint, the public
definition, the ledger, the API and the codebook; CDM and SLD estimated from what respondents
pressed, cheaters and liars included; and CDM/SLD questions stored under the device procedure
keep their data but say that gamma / t cannot be estimated."""

import re
import uuid

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys import selectors, services
from surveys.exports.codebook import CODEBOOK_HEADER, codebook_rows, survey_codebook
from surveys.exports.csv import ESTIMATE_HEADER, estimate_csv_rows
from surveys.models import Question
from surveys.services.question_types import clean_question_type, question_type_spec

pytestmark = pytest.mark.django_db

CDM = {"kind": "cdm", "p": [0.25, 0.75]}
SLD = {"kind": "sld", "p": [0.25, 0.75], "group_share": 0.5}
WARNER = {"kind": "warner", "p": 0.75}


def _survey_body(questions):
    return {"title": "Procedure", "p_truth": 0.5, "p_forced_yes": 0.5, "questions": questions}


# --- validation ----------------------------------------------------------------------------


def test_yes_no_designs_default_to_the_device_and_cdm_sld_to_the_respondent():
    assert clean_question_type({"design": WARNER})["procedure"] == "device"
    assert clean_question_type({})["procedure"] == "device"
    assert clean_question_type({"design": CDM})["procedure"] == "respondent"
    assert clean_question_type({"design": SLD})["procedure"] == "respondent"
    assert clean_question_type({"design": WARNER, "procedure": "respondent"})["procedure"] == (
        "respondent"
    )
    assert clean_question_type({"type": "choice", "options": ["a", "b"]})["procedure"] == "device"


@pytest.mark.parametrize(
    "spec",
    [
        {"design": CDM, "procedure": "device"},
        {"design": SLD, "procedure": "device"},
        {"design": WARNER, "procedure": "coin"},
        {"type": "choice", "options": ["a", "b"], "procedure": "respondent"},
        {"randomized": False, "procedure": "respondent"},
        {"compare_direct": True, "procedure": "respondent"},
    ],
)
def test_a_procedure_the_question_cannot_have_is_refused_naming_it(spec):
    with pytest.raises(ValidationError) as refused:
        clean_question_type(spec, prefix="questions.0.")
    assert list(refused.value.message_dict) == ["questions.0.procedure"]


@pytest.mark.parametrize("design", [CDM, SLD])
def test_the_api_refuses_cdm_and_sld_under_the_device_procedure(owner_api, design):
    url = reverse("api:survey-list")
    refused = owner_api.post(
        url,
        _survey_body([{"text": "Cheated?", "design": design, "procedure": "device"}]),
        format="json",
    )
    assert refused.status_code == 400
    assert "questions.0.procedure" in refused.json()["errors"]
    assert "respondent procedure" in refused.json()["errors"]["questions.0.procedure"][0]
    made = owner_api.post(url, _survey_body([{"text": "Cheated?", "design": design}]), "json")
    assert made.status_code == 201
    assert made.json()["questions"][0]["procedure"] == "respondent"


def test_the_api_returns_the_procedure_and_null_where_there_is_none(owner_api):
    made = owner_api.post(
        reverse("api:survey-list"),
        _survey_body(
            [
                {"text": "A", "design": WARNER, "procedure": "respondent"},
                {"text": "B"},
                {"text": "C", "type": "choice", "options": ["x", "y"]},
            ]
        ),
        format="json",
    )
    assert made.status_code == 201
    assert [q["procedure"] for q in made.json()["questions"]] == ["respondent", "device", None]
    question = Question.objects.get(pk=made.json()["questions"][0]["id"])
    assert question_type_spec(question) == {
        "type": "yes_no",
        "design": WARNER,
        "procedure": "respondent",
    }


# --- fingerprint, definition, ledger, codebook -------------------------------------------------


def test_the_procedure_is_part_of_the_design_fingerprint(make_survey):
    """The same questions, only the procedure changed: another design, so a memo drawn under
    the device procedure is never used to show an instruction, nor the other way round."""
    for spec in ({"text": "Q", "design": WARNER}, {"text": "Q"}):
        survey = make_survey(status="draft", questions=[spec])
        device = selectors.survey_design_fingerprint(survey=survey)
        survey.questions.update(procedure="respondent")
        assert selectors.survey_design_fingerprint(survey=survey) != device
        survey.questions.update(procedure="device")
        assert selectors.survey_design_fingerprint(survey=survey) == device


def test_the_public_definition_and_the_ledger_name_the_procedure(make_survey, client):
    survey = make_survey(
        questions=[
            {"text": "A", "design": WARNER, "procedure": "respondent"},
            {"text": "B", "design": WARNER},
            {"text": "C", "design": CDM},
        ]
    )
    public = client.get(reverse("api:public-survey", kwargs={"slug": survey.slug})).json()
    assert [q.get("procedure") for q in public["questions"]] == ["respondent", None, "respondent"]
    ledger = selectors.privacy_ledger(survey=survey)
    assert [entry.procedure for entry in ledger.entries] == ["respondent", "device"]
    assert [entry.procedure for entry in ledger.one_sided] == ["respondent"]
    assert ledger.followed == (1, 3)
    page = client.get(reverse("surveys:respond", kwargs={"slug": survey.slug})).content.decode()
    assert "Questions you answer by following the coin yourself: 1, 3." in page
    # Each respondent-procedure question has its instruction's place, filled by the script.
    for question in public["questions"]:
        has_instruction = f'id="q-{question["id"]}-instruction-text"' in page
        assert has_instruction == (question.get("procedure") == "respondent")


def test_the_codebook_names_the_procedure_of_every_yes_no_column(make_survey):
    survey = make_survey(
        questions=[
            {"text": "A", "design": WARNER, "procedure": "respondent"},
            {"text": "B"},
            {"text": "C", "design": SLD},
            {"text": "D", "type": "choice", "options": ["x", "y"]},
        ]
    )
    rows = list(codebook_rows(survey_codebook(survey=survey)))
    at = {name: index for index, name in enumerate(CODEBOOK_HEADER)}
    assert rows[0][-1] == "procedure"
    columns = {row[at["name"]]: row for row in rows if row[at["section"]] == "column"}
    assert [columns[name][at["procedure"]] for name in ("Q1", "Q2", "Q3", "Q4")] == [
        "respondent",
        "device",
        "respondent",
        None,
    ]
    values = {
        row[at["value"]]: row[at["text"]]
        for row in rows
        if row[at["section"]] == "value" and row[at["name"]] == "Q1"
    }
    assert values[1].startswith("Pressed yes, as the coin's instruction said")


def test_spss_and_stata_carry_the_procedure_in_the_column_notes(make_survey):
    from surveys.exports.spss_stata import labelled_variables

    survey = make_survey(questions=[{"text": "A", "design": WARNER, "procedure": "respondent"}])
    (variable, *_rest) = [
        v for v in labelled_variables(survey_codebook(survey=survey)) if v.name == "Q1"
    ]
    assert variable.provenance["procedure"] == "respondent"


def test_a_practice_round_per_design_and_procedure_cdm_and_sld_included(make_survey):
    survey = make_survey(
        status="draft",
        comprehension_check=True,
        questions=[
            {"text": "A", "design": WARNER},
            {"text": "B", "design": WARNER, "procedure": "respondent"},
            {"text": "C", "design": CDM},
            {"text": "D", "design": SLD},
        ],
    )
    rounds = selectors.practice_rounds(survey=survey)
    assert [(r["design"]["kind"], r.get("procedure", "device")) for r in rounds] == [
        ("warner", "device"),
        ("warner", "respondent"),
        ("cdm", "respondent"),
        ("sld", "respondent"),
    ]
    assert rounds[2]["design"] == {"kind": "cdm", "p": [0.25, 0.75], "group_share": 0.5}


# --- a simulated population through the public API --------------------------------------------


def _press(rng, *, kind, design, kinds_of_people):
    """What one simulated respondent presses: the instruction drawn as static/js/procedure.js
    draws it (group with group_share, then p of that group), followed unless the respondent
    is a CDM cheater (presses No whatever it says) or an SLD liar (a carrier pressing No)."""
    group = 1 if rng.random() < design["group_share"] else 2
    coin = rng.random() < design["p"][group - 1]
    person = kinds_of_people(rng)
    if kind == "cdm":
        # coin: "press Yes, whatever the truth"; else "answer truthfully".
        pressed = {"carrier": True, "non_carrier": coin, "cheater": False}[person]
    else:
        # A carrier is told to press Yes; a non-carrier: coin "answer truthfully", else Yes.
        pressed = {"carrier": True, "liar": False, "non_carrier": not coin}[person]
    return 2 * (group - 1) + int(pressed)


def _population(n, *, kind, pi, other, rng):
    def draw(rng):
        u = rng.random()
        if kind == "cdm":  # pi honest carriers, other = gamma cheaters, the rest honest no
            return "carrier" if u < pi else "cheater" if u < pi + other else "non_carrier"
        # SLD: pi carriers, of whom a share other = t answer honestly
        if u < pi:
            return "carrier" if rng.random() < other else "liar"
        return "non_carrier"

    return draw


@pytest.mark.parametrize(
    ("kind", "parameter", "truth"),
    [("cdm", "gamma", 0.15), ("sld", "t", 0.8)],
)
def test_cheaters_and_liars_are_estimated_from_what_respondents_press(
    owner_api, respondent, settings, kind, parameter, truth
):
    """3,000 respondents through the public API, each shown the coin's instruction; 15 % CDM
    cheaters press No whatever it says (SLD: 20 % of carriers deny). γ's (t's) 95 % interval
    holds its truth and π's holds the honest share. Seeded: a fixed draw, not a flaky test."""
    settings.RESPONSE_RATE_LIMIT = None
    design = {"cdm": {**CDM, "group_share": 0.5}, "sld": SLD}[kind]
    made = owner_api.post(
        reverse("api:survey-list"),
        {**_survey_body([{"text": "Ever cheated?", "design": design}]), "min_n": 10},
        format="json",
    )
    assert made.status_code == 201, made.content
    survey_id, question_id = made.json()["id"], made.json()["questions"][0]["id"]
    opened = owner_api.post(reverse("api:survey-open", kwargs={"survey_id": survey_id}))
    assert opened.status_code == 200, opened.content
    slug = opened.json()["slug"]
    definition = respondent.get(reverse("api:public-survey", kwargs={"slug": slug})).json()
    assert definition["questions"][0]["procedure"] == "respondent"
    pi = 0.3
    rng = np.random.default_rng(20261202)
    people = _population(3000, kind=kind, pi=pi, other=truth, rng=rng)
    url = reverse("api:public-responses", kwargs={"slug": slug})
    for _ in range(3000):
        code = _press(rng, kind=kind, design=design, kinds_of_people=people)
        body = {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(question_id): code},
            "design_fingerprint": definition["design_fingerprint"],
        }
        assert respondent.post(url, body, format="json").status_code == 201
    estimates = owner_api.get(reverse("api:survey-estimates", kwargs={"survey_id": survey_id}))
    (row,) = [q for q in estimates.json()["estimates"] if q["question_id"] == question_id]
    assert row["procedure"] == "respondent" and row["not_estimable"] == {}
    shown = row["parameters_estimated"]
    assert shown[parameter]["ci_low"] <= truth <= shown[parameter]["ci_high"], shown[parameter]
    assert shown["pi"]["ci_low"] <= pi <= shown["pi"]["ci_high"], shown["pi"]


# --- CDM and SLD stored under the device procedure ---------------------------------------------


@pytest.fixture
def device_study(make_survey):
    """CDM and SLD questions as stored before issue 33: the device procedure, with answers."""
    survey = make_survey(
        status="draft",
        questions=[{"text": "Ever?"}, {"text": "C", "design": CDM}, {"text": "S", "design": SLD}],
    )
    Question.objects.filter(survey=survey, design__kind__in=["cdm", "sld"]).update(
        procedure="device"
    )
    survey = services.survey_open(survey=survey)
    survey.min_n = 5
    survey.save(update_fields=["min_n"])
    reports = services.simulated_reports_draw(
        survey=survey, shares=[0.3, 0.3, 0.3], n=400, rng=np.random.default_rng(5)
    )
    services.simulated_submissions_record(survey=survey, reports=reports)
    return survey


def test_device_cdm_and_sld_keep_their_data_but_say_gamma_and_t_cannot_be_estimated(
    device_study, owner_client, owner_api
):
    rows = [r for r in selectors.survey_estimates(survey=device_study).rows if r.kind == "cheating"]
    assert [(r.design_name, r.not_estimable, r.procedure) for r in rows] == [
        ("cdm", ("gamma",), "device"),
        ("sld", ("t",), "device"),
    ]
    cdm, sld = rows
    # The data and the formulas are unchanged: π is dpengine's estimate from the same counts.
    assert cdm.estimate.n == 400 and cdm.shown("pi").estimate == cdm.estimate["pi"].clamped
    assert cdm.shown("gamma").estimate is None and sld.shown("t").ci_low is None

    html = owner_client.get(reverse("surveys:results", kwargs={"pk": device_study.pk})).content
    html = html.decode()
    assert 'data-not-estimable="gamma"' in html and 'data-not-estimable="t"' in html
    assert "γ cannot be estimated for this question" in html
    assert "t cannot be estimated for this question" in html

    api = owner_api.get(reverse("api:survey-estimates", kwargs={"survey_id": device_study.pk}))
    api_rows = [q for q in api.json()["estimates"] if q["type"] == "cheating"]
    assert [sorted(q["not_estimable"]) for q in api_rows] == [["gamma"], ["t"]]
    assert "device procedure" in api_rows[0]["not_estimable"]["gamma"]
    assert api_rows[0]["parameters_estimated"]["gamma"]["estimate"] is None
    assert api_rows[0]["parameters_estimated"]["gamma"]["method"] == "not_estimable"
    assert api_rows[0]["parameters_estimated"]["pi"]["estimate"] is not None

    estimates = selectors.survey_estimates(survey=device_study)
    csv_rows = [dict(zip(ESTIMATE_HEADER, r, strict=True)) for r in estimate_csv_rows(estimates)]
    gamma = next(r for r in csv_rows if r["column"] == "Q2" and r["statistic"] == "gamma")
    assert gamma["estimate"] is None and gamma["ci_method"] == "not_estimable"
    assert "device procedure" in gamma["parameters"]
    t = next(r for r in csv_rows if r["column"] == "Q3" and r["statistic"] == "t")
    assert t["ci_low"] is None and "device procedure" in t["parameters"]


def test_respondent_cdm_and_sld_estimate_every_parameter(make_survey):
    survey = make_survey(questions=[{"text": "C", "design": CDM}, {"text": "S", "design": SLD}])
    reports = services.simulated_reports_draw(
        survey=survey, shares=[0.3, 0.3], n=400, rng=np.random.default_rng(6)
    )
    services.simulated_submissions_record(survey=survey, reports=reports)
    rows = [r for r in selectors.survey_estimates(survey=survey).rows if r.kind == "cheating"]
    assert [r.not_estimable for r in rows] == [(), ()]
    assert rows[0].shown("gamma").estimate is not None and rows[1].shown("t").estimate is not None


def test_a_cdm_practice_answer_is_a_boolean_and_every_page_reads_it(
    make_survey, respondent, owner_client, owner_api
):
    """The hidden comprehension question of a CDM round names the CDM design but is asked
    directly: its answer is true/false, never a code, and the results and exports read it."""
    survey = make_survey(questions=[{"text": "C", "design": CDM}], comprehension_check=True)
    definition = respondent.get(reverse("api:public-survey", kwargs={"slug": survey.slug})).json()
    (question,), (practice,) = definition["questions"], definition["comprehension"]
    assert practice["procedure"] == "respondent" and practice["design"]["kind"] == "cdm"
    url = reverse("api:public-responses", kwargs={"slug": survey.slug})
    for code, understood in ((1, True), (2, False), (3, True)):
        body = {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(question["id"]): code, str(practice["id"]): understood},
            "design_fingerprint": definition["design_fingerprint"],
        }
        assert respondent.post(url, body, format="json").status_code == 201
    refused = respondent.post(
        url,
        {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(question["id"]): 1, str(practice["id"]): 1},
            "design_fingerprint": definition["design_fingerprint"],
        },
        format="json",
    )
    assert refused.status_code == 400
    (result,) = selectors.comprehension_results(survey=survey)
    assert (result.understood.n, result.understood.count) == (3, 2)
    assert result.design_kind == "cdm" and result.procedure == "respondent"
    for name in ("results", "codebook-csv", "responses-csv", "export-zip", "r-export"):
        page = owner_client.get(reverse(f"surveys:{name}", kwargs={"pk": survey.pk}))
        assert page.status_code == 200, name
    estimates = owner_api.get(reverse("api:survey-estimates", kwargs={"survey_id": survey.pk}))
    assert estimates.json()["comprehension"][0]["procedure"] == "respondent"


def test_the_builder_box_stores_the_respondent_procedure_and_cdm_gets_it_unticked(
    make_survey, owner_client
):
    draft = make_survey(status="draft", questions=[])
    url = reverse("surveys:question-add", kwargs={"pk": draft.pk})
    warner = {"text": "W", "question_type": "yes_no", "design": "warner", "warner_p": "0.75"}
    assert owner_client.post(url, {**warner, "respondent_procedure": "on"}).status_code == 302
    assert owner_client.post(url, {**warner, "text": "V"}).status_code == 302
    cdm = {
        "text": "C",
        "question_type": "yes_no",
        "design": "cdm",
        "cdm_p1": "0.2",
        "cdm_p2": "0.7",
        "cdm_group_share": "0.5",
        "cheating_confirmed": "on",
    }
    assert owner_client.post(url, cdm).status_code == 302
    assert list(draft.questions.values_list("text", "procedure")) == [
        ("W", "respondent"),
        ("V", "device"),
        ("C", "respondent"),
    ]
    # A choice question cannot be carried out by the respondent: refused next to the box.
    choice = {
        "text": "X",
        "question_type": "choice",
        "options": "a\nb",
        "respondent_procedure": "on",
    }
    refused = owner_client.post(url, choice)
    assert refused.status_code == 400
    assert 'id="id_respondent_procedure_error"' in refused.content.decode()
    first = draft.questions.first()
    edit = owner_client.get(
        reverse("surveys:question-edit", kwargs={"pk": draft.pk, "qid": first.pk})
    ).content.decode()
    assert re.search(r'<input[^>]*name="respondent_procedure"[^>]*checked', edit)
