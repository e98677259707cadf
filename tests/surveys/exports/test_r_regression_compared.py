"""The regression page's R code for a question compared with asking directly keeps the
randomized arm's codes only, and rr's rrreg run on it in R gives the product's coefficients
(issue 33 item 4). R with rr from ``../shared/r/install.sh``; a machine without it skips."""

import os
import shutil
import subprocess
import uuid

import pytest

from surveys import selectors, services
from surveys.exports import r as r_export
from surveys.models import PREFER_NOT_TO_SAY
from surveys.services import grouping

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def r_library():
    return os.environ.get("R_LIBS_USER", "/tmp/rlib")


def rr_or_skip():
    reason = None
    if shutil.which("Rscript") is None:
        reason = "Rscript is not installed (../shared/r/install.sh installs R and rr)"
    else:
        check = subprocess.run(
            ["Rscript", "-e", "library(rr)"],
            env={**os.environ, "R_LIBS_USER": r_library()},
            capture_output=True,
            check=False,
        )
        if check.returncode != 0:
            reason = f"R has no rr in {r_library()}"
    if reason:
        print(f"skipped: {reason}")
        pytest.skip(reason)


def test_rr_fits_the_randomized_arm_as_the_product_does(make_survey, owner_api, tmp_path):
    rr_or_skip()
    survey = make_survey(
        questions=[{"text": "Q1?"}, {"text": "Left early?", "compare_direct": True}],
        control_share=0.3,
        min_n=5,
        status="draft",
    )
    department = grouping.grouping_question_add(
        survey=survey, text="Department?", options=["Sales", "Office", "Lab"]
    )
    survey = services.survey_open(survey=survey)
    options = [str(option.pk) for option in department.options.all()]
    q1, q2 = survey.questions.all()
    # (group, code of Q2, count): randomized arm 0/1, direct arm 2/3, one declined grouping.
    rows = [(0, 1, 14), (0, 0, 26), (1, 1, 25), (1, 0, 15), (2, 1, 19), (2, 0, 21)]
    rows += [(0, 3, 30), (1, 2, 12), (None, 1, 4)]
    for group, code, count in rows:
        for _ in range(count):
            services.submission_receive(
                slug=survey.slug,
                submission_id=str(uuid.uuid4()),
                answers={str(q1.pk): True, str(q2.pk): code},
                groups={str(department.pk): PREFER_NOT_TO_SAY if group is None else options[group]},
            )
    result = selectors.survey_regression(survey=survey, question=q2)
    assert result.fitted and result.arm == "randomized" and result.n == 120
    for_r = owner_api.get(f"/api/v1/surveys/{survey.pk}/for-r.csv")
    (tmp_path / r_export.r_export_filename(survey=survey)).write_bytes(
        b"".join(for_r.streaming_content)
    )
    snippet = r_export.r_snippet(survey=survey, question=q2, covariates=result.covariates)
    # Installed already; nothing is fetched.
    code = "\n".join(line for line in snippet.splitlines() if "install.packages" not in line)
    code += '\ncat(sprintf("%.10f", coef(fit)), sep = "\\n")\ncat(nrow(d), "\\n")\n'
    (tmp_path / "fit.R").write_text(code)
    run = subprocess.run(
        ["Rscript", "fit.R"],
        cwd=tmp_path,
        env={**os.environ, "R_LIBS_USER": r_library()},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    *coefficients, rows_used = run.stdout.split()
    assert int(rows_used) == result.n
    ours = [coefficient.estimate for coefficient in result.coefficients]
    # rr's EM stops at its own tolerance: the same maximum to about 1e-4.
    assert [float(value) for value in coefficients[-len(ours) :]] == pytest.approx(ours, abs=2e-4)
