"""The crosswise model (dpengine/designs/crosswise.py; Yu, Tian & Tang 2008): its a, b and ε,
its refusals, and its estimates against RRreg's ``"Crosswise"`` model.

The RRreg values were computed once with RRreg 0.7.5 in R 4 (stored here, so the suite does
not need R):

    library(RRreg)
    y <- c(rep(1, yes), rep(0, n - yes))
    m <- RRuni(y, model = "Crosswise", p = p); sprintf("%.17g", c(m$pi, m$piSE))

RRreg's standard error divides by n - 1 where dpengine's divides by n (Warner's formula,
``dpengine.estimation.estimate``), so the two agree after that factor; where the closed form
lies above 1, RRreg's optimiser stops at 1 - 1e-8 and dpengine clamps to 1.
"""

import math
from fractions import Fraction

import pytest

from dpengine import DESIGNS, DPEngineError, Reason, Warner, estimate
from dpengine.designs.crosswise import Crosswise


def test_it_is_registered_with_warners_a_and_b():
    assert DESIGNS["crosswise"] is Crosswise
    design = Crosswise()
    assert design.parameters == {"p": 0.75}
    assert design.exact_p_yes_given_yes == Fraction(3, 4)
    assert design.exact_p_yes_given_no == Fraction(1, 4)
    assert design.epsilon == pytest.approx(math.log(3), abs=1e-15)
    skewed = Crosswise(p=Fraction(5, 6))
    assert (skewed.exact_p_yes_given_yes, skewed.exact_p_yes_given_no) == (
        Fraction(5, 6),
        Fraction(1, 6),
    )
    assert skewed.likelihood_ratio == Fraction(5)
    assert skewed.epsilon == Warner(p=Fraction(5, 6)).epsilon


@pytest.mark.parametrize(
    ("p", "reason", "words"),
    [
        (0.5, Reason.NO_INFORMATION, "no information"),
        (0.25, Reason.OUT_OF_RANGE, "negated (use 1 - p)"),
        (1, Reason.NOT_DIFFERENTIALLY_PRIVATE, "infinite"),
        (1.5, Reason.OUT_OF_RANGE, "got 1.5"),
        ("0.7", Reason.INVALID_TYPE, "got '0.7'"),
    ],
)
def test_it_refuses_what_is_not_private_and_informative(p, reason, words):
    with pytest.raises(DPEngineError) as refused:
        Crosswise(p=p)
    assert refused.value.reason is reason
    assert refused.value.field == "p"
    assert words in str(refused.value)


def test_it_names_rrregs_crosswise_model():
    assert Crosswise(p=0.8).r_model == ("Crosswise", (0.8,))


# (yes, n, p): RRreg's pi and piSE.
RRREG = [
    ((130, 200, 0.75), (0.79999999999999982, 0.067622957060513411)),
    ((61, 150, 0.8), (0.34444444444444455, 0.067069377762317681)),
]


@pytest.mark.parametrize(("counts", "reference"), RRREG)
def test_its_estimate_is_rrregs(counts, reference):
    yes, n, p = counts
    pi, se = reference
    found = estimate(yes=yes, n=n, design=Crosswise(p=p))
    assert found.estimate == pytest.approx(pi, abs=1e-12)
    assert found.std_error * math.sqrt(n / (n - 1)) == pytest.approx(se, abs=1e-12)


def test_an_estimate_beyond_one_is_clamped_where_rrreg_stops_at_the_boundary():
    # RRuni(y, "Crosswise", p = 0.65) with 300 of 420: pi = 0.99999998999999995.
    found = estimate(yes=300, n=420, design=Crosswise(p=0.65))
    assert found.estimate > 1
    assert found.clamped == pytest.approx(0.99999998999999995, abs=1e-7)
