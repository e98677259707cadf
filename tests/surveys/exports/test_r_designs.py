"""The code for R names RRreg's model for each yes/no design, and never claims RRreg fits
multiple-choice or numeric questions."""

import pytest

import dpengine
from surveys.exports import r as r_export

DESIGN_SPECS = {
    "forced_response": {"kind": "forced_response", "p_truth": 0.6, "p_forced_yes": 0.4},
    "warner": {"kind": "warner", "p": 0.8},
    "unrelated_question": {"kind": "unrelated_question", "p": 0.6, "pi": 0.3},
    "kuk": {"kind": "kuk", "theta1": 0.7, "theta2": 0.2},
    "mangat": {"kind": "mangat", "p": 0.7, "t": 0.6},
}
# RRreg's model names (Heck & Moshagen 2018, Table 1); the private Mangat variant is a
# forced-response design in RRreg's terms (dpengine.designs.Mangat's docstring).
RRREG_MODELS = {
    "forced_response": "FR",
    "warner": "Warner",
    "unrelated_question": "UQTknown",
    "kuk": "Kuk",
    "mangat": "FR",
}


@pytest.mark.parametrize("kind", DESIGN_SPECS)
def test_each_design_is_fitted_with_its_rrreg_model(make_survey, kind):
    spec = DESIGN_SPECS[kind]
    survey = make_survey(questions=[{"text": "Have you ever cheated?", "design": spec}])
    question = survey.questions.get()
    design = dpengine.DESIGNS[kind](**{k: v for k, v in spec.items() if k != "kind"})
    model = design.r_model
    assert model.name == RRREG_MODELS[kind]
    expected = f'model = "{model.name}", p = '
    expected += repr(model.p[0]) if len(model.p) == 1 else f"c({', '.join(map(repr, model.p))})"
    script = r_export.r_estimates_script(survey=survey)
    assert "y <- d$Q1[!is.na(d$Q1)]" in script
    assert f"fit <- RRuni(response = y, {expected})" in script
    snippet = r_export.r_snippet(survey=survey, question=question, covariates=[])
    if kind == "forced_response":
        # rr's rrreg with its own forced-response parameters: p + p1 + p0 = 1.
        rr = r_export.r_design(survey=survey, question=question)
        assert rr.p == pytest.approx(0.6) and rr.p1 == pytest.approx(0.4 * 0.4)
        assert 'design = "forced-known"' in snippet
    else:
        assert r_export.r_design(survey=survey, question=question) is None
        assert f"fit <- RRlog(Q1 ~ 1, data = d,\n             {expected})" in snippet


def test_choice_and_numeric_questions_get_base_r_not_rrreg(make_survey):
    survey = make_survey(
        questions=[
            {"text": "Which?", "type": "choice", "options": ["A", "B", "C"], "epsilon": 1.5},
            {"text": "How many?", "type": "numeric", "min": 0, "max": 10, "epsilon": 1.0},
        ]
    )
    script = r_export.r_estimates_script(survey=survey)
    assert "RRuni" not in script and "RRlog" not in script
    assert "keep <- exp(1.5) / (exp(1.5) + 2); other <- 1 / (exp(1.5) + 2)" in script
    assert 'names(shares) <- c("A", "B", "C")' in script
    assert 'add("Q2", "mean", mean(y), sqrt(max(var(y), noise_variance) / length(y)))' in script
