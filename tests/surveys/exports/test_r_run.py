"""The R estimates script (``exports.r.r_estimates_script``) run in R with RRreg on the file
for R, for a survey of every question kind: it reproduces the estimates API's numbers.

R and RRreg come from ``../shared/r/install.sh`` (``make test`` runs it; into
``R_LIBS_USER``, default /tmp/rlib). A machine without them skips, saying why."""

import csv
import io
import math
import os
import shutil
import subprocess
import uuid

import numpy as np
import pytest

import dpengine
from surveys import selectors, services
from surveys.exports import r as r_export
from surveys.services.answers import text_answer_encode

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

CDM = {"kind": "cdm", "p": [0.25, 0.75]}
SLD = {"kind": "sld", "p": [0.2, 0.8], "group_share": 0.4}
QUESTIONS = [
    {"text": "Forced response?"},
    {"text": "Warner?", "design": {"kind": "warner", "p": 0.75}},
    {"text": "Unrelated question?", "design": {"kind": "unrelated_question", "p": 0.6, "pi": 0.3}},
    {"text": "Kuk?", "design": {"kind": "kuk", "theta1": 0.7, "theta2": 0.2}},
    {"text": "Mangat?", "design": {"kind": "mangat", "p": 0.7, "t": 0.6}},
    {"text": "Compared with asking directly?", "compare_direct": True},
    {"text": "Cheating detection?", "design": CDM},
    {"text": "Stochastic lie detector?", "design": SLD},
    {"text": "Which?", "type": "choice", "options": ["None", "NA", "01"]},
    {"text": "How many?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
    {"text": "Directly yes?", "randomized": False},
    {"text": "Directly which?", "randomized": False, "type": "choice", "options": ["A", "B"]},
    {"text": "Directly how many?", "randomized": False, "type": "numeric", "min": 0, "max": 10},
    {"text": "Anything else?", "randomized": False, "type": "text", "required": False},
]
# The true population: each question's share of "yes" (the compared one: randomized truth and
# the share saying yes when asked directly), option shares, true mean; text is not simulated.
SHARES = [0.3, 0.4, 0.2, 0.3, 0.25, (0.3, 0.2), 0.3, 0.3, [0.5, 0.3, 0.2], 8, 0.4, [0.6, 0.4], 4]
N = 400


def r_library():
    return os.environ.get("R_LIBS_USER", "/tmp/rlib")


def r_or_skip():
    """Skips, printing why, unless Rscript runs and loads RRreg."""
    if shutil.which("Rscript") is None:
        reason = "Rscript is not installed (../shared/r/install.sh installs R and RRreg)"
    else:
        check = subprocess.run(
            ["Rscript", "-e", "library(RRreg)"],
            env={**os.environ, "R_LIBS_USER": r_library()},
            capture_output=True,
            text=True,
            check=False,
        )
        reason = None if check.returncode == 0 else f"R has no RRreg in {r_library()}"
    if reason:
        print(f"skipped: {reason}")
        pytest.skip(reason)


def codes_with_cheaters(design, *, n, rng, pi, cheating):
    """Cheating-detection codes 2 × (group − 1) + report of ``n`` respondents, as
    ``dpengine.simulate_cheating_counts`` draws them but one by one: carriers with ``pi``,
    and a share ``cheating`` of the population (CDM: cheaters) or of the carriers (SLD: liars)
    says "no" whatever the coin says, so that γ and t lie inside their ranges."""
    groups = dpengine.assign_groups(design=design, size=n, rng=rng)
    u = rng.random(n)
    carrier = u < pi
    # CDM: a cheater is no carrier; SLD: a liar is a carrier.
    cheater = (u >= pi) & (u < pi + cheating) if design.kind == "cdm" else u < pi * cheating
    honest = dpengine.randomize_in_group(carrier, group=groups, design=design, rng=rng)
    return 2 * (groups - 1) + (honest & ~cheater)


def api_numbers(estimates):
    """{(column, statistic, option): (estimate, std_error)} from the estimates API's JSON."""
    numbers = {}
    for row in estimates["estimates"]:
        column = row["column"]
        if row["type"] == "yes_no":
            numbers[column, "share_yes", None] = (row["unbiased"], row["std_error"])
        elif row["type"] == "cheating":
            for name, value in row["parameters_estimated"].items():
                numbers[column, name, None] = (value["estimate"], value["std_error"])
        elif row["type"] == "choice":
            for option in row["options"]:
                numbers[column, "share", option["index"]] = (
                    option["unbiased"],
                    option["std_error"],
                )
                numbers[column, "consistent_share", option["index"]] = (option["estimate"], None)
        elif row["type"] == "numeric":
            numbers[column, "mean", None] = (row["mean"]["unbiased"], row["mean"]["std_error"])
        elif row["question_type"] == "numeric":
            numbers[column, "mean", None] = (row["mean"]["mean"], None)
            numbers[column, "std_dev", None] = (row["mean"]["std_dev"], None)
        elif row["question_type"] == "choice":
            for index, share in enumerate(row["shares"]):
                numbers[column, "share", index] = (share["share"], None)
        elif row["question_type"] == "yes_no":
            numbers[column, "share_yes", None] = (row["shares"][0]["share"], None)
    for row in estimates["control_group"]["questions"]:
        numbers[row["column"], "direct_share", None] = (row["direct_share"], None)
        numbers[row["column"], "difference", None] = (row["difference"], None)
    return numbers


def r_numbers(text):
    """The same dictionary from the script's ``estimates`` data frame written as CSV."""
    numbers = {}
    for row in csv.DictReader(io.StringIO(text)):
        option = None if row["option"] == "NA" else int(row["option"])
        std_error = None if row["std_error"] == "NA" else float(row["std_error"])
        numbers[row["column"], row["statistic"], option] = (float(row["estimate"]), std_error)
    return numbers


def respondents(survey, *, rng):
    """``N`` answer dictionaries for ``survey``: every question but the text one drawn through
    its own mechanism (``services.simulated_reports_draw`` on a twin survey without it), the
    cheating-detection questions with cheaters (CDM: π 0.3, γ 0.15; SLD: π 0.3, t 0.7), and
    a text answer from every tenth respondent."""
    twin = services.survey_create(
        owner=survey.owner, title="Twin", questions=QUESTIONS[:-1], control_share=0.3
    )
    reports = services.simulated_reports_draw(survey=twin, shares=SHARES, n=N, rng=rng)
    cdm, sld = (
        selectors.question_mechanism(question, survey=survey)
        for question in survey.questions.all()[6:8]
    )
    reports[:, 6] = codes_with_cheaters(cdm, n=N, rng=rng, pi=0.3, cheating=0.15)
    reports[:, 7] = codes_with_cheaters(sld, n=N, rng=rng, pi=0.3, cheating=0.3)
    ids = [str(pk) for pk in survey.questions.values_list("id", flat=True)]
    # A plain yes/no question is sent as a boolean, every other kind as a number (a code).
    boolean = [
        ("type" not in spec and "design" not in spec and "compare_direct" not in spec)
        or spec.get("design", {}).get("kind") in {"warner", "unrelated_question", "kuk", "mangat"}
        for spec in QUESTIONS[:-1]
    ]
    for index, row in enumerate(reports):
        values = [bool(v) if b else int(v) for v, b in zip(row, boolean, strict=True)]
        values.append(text_answer_encode(f"answer {index}") if index % 10 == 0 else None)
        yield {key: value for key, value in zip(ids, values, strict=True) if value is not None}


def test_r_runs_the_script_for_every_question_kind_and_gets_the_apis_numbers(
    make_survey, owner_api, tmp_path
):
    r_or_skip()
    survey = make_survey(questions=QUESTIONS, control_share=0.3, min_n=10)
    for answers in respondents(survey, rng=np.random.default_rng(33)):
        services.submission_receive(slug=survey.slug, submission_id=uuid.uuid4(), answers=answers)
    estimates = owner_api.get(f"/api/v1/surveys/{survey.pk}/estimates/").json()
    for_r = owner_api.get(f"/api/v1/surveys/{survey.pk}/for-r.csv")
    (tmp_path / r_export.r_export_filename(survey=survey)).write_bytes(
        b"".join(for_r.streaming_content)
    )
    script = owner_api.get(f"/api/v1/surveys/{survey.pk}/estimates.R")
    assert script.status_code == 200
    (tmp_path / "estimates.R").write_bytes(script.content)

    run = subprocess.run(
        [
            "Rscript",
            "-e",
            'source("estimates.R"); write.csv(estimates, "from-r.csv", row.names = FALSE)',
        ],
        cwd=tmp_path,
        env={**os.environ, "R_LIBS_USER": r_library()},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    expected = api_numbers(estimates)
    got = r_numbers((tmp_path / "from-r.csv").read_text())
    assert set(got) == set(expected)
    # Every kind is there, with a standard error where the API gives one.
    assert {statistic for _column, statistic, _option in got} == {
        "share_yes", "direct_share", "difference", "pi", "beta", "gamma", "t", "share",
        "consistent_share", "mean", "std_dev",
    }  # fmt: skip
    for key, (estimate, std_error) in expected.items():
        assert math.isclose(got[key][0], estimate, rel_tol=0, abs_tol=1e-9), key
        if std_error is not None:
            assert math.isclose(got[key][1], std_error, rel_tol=0, abs_tol=1e-9), key
