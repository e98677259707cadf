"""CDM and SLD cheating-detection designs (dpengine/cheating/) and the split-ballot test.

Reference values come from RRreg 0.7.5 in R (see each table's comment); unbiasedness,
variance and coverage are computed exactly by enumerating both groups' binomial counts;
the samplers are checked exactly by enumerating the uniform draw.
"""

import json
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CHEATING_DESIGNS,
    CheatingDetection,
    DPEngineError,
    ForcedResponse,
    Reason,
    StochasticLieDetector,
    assign_groups,
    compare_direct,
    estimate,
    estimate_cheating,
    randomize_in_group,
    simulate_cheating_counts,
)
from dpengine.cheating import closed_form, fieller_t_interval, triangle_ml, wald_intervals

DESIGN_CLASS = {"CDM": CheatingDetection, "SLD": StochasticLieDetector}

# RRreg 0.7.5 on simulated data, interior estimates (the closed form lies in the parameter
# space). Obtained with tests/dpengine/rrreg/cheating_reference.R: for each seed s,
#   set.seed(s); d <- RRgen(n, pi.true, model, p = c(p1, p2), complyRates, groupRatio)
#   r <- RRuni(response = d$response, model = model, p = c(p1, p2), group = d$group)
# and the counts n1, yes1, n2, yes2 of d, printed with formatC(digits = 17).
# Columns: model, seed, p, (n1, yes1, n2, yes2), then CDM (pi, piSE, beta, betaSE, gamma,
# gammaSE) or SLD (pi, piSE, t, tSE).
RRREG_INTERIOR = [
    (
        "CDM",
        2703,
        (0.25, 0.75),
        (200, 90, 200, 140),
        (
            0.32500000000000007,
            0.05533702132974128,
            0.4999999999999999,
            0.09589567195393903,
            0.17500000000000016,
            0.051819894900874595,
        ),
    ),
    (
        "CDM",
        2704,
        (0.1, 0.6),
        (250, 76, 250, 143),
        (
            0.25039999999999996,
            0.035537954143970575,
            0.5359999999999999,
            0.08562550383869587,
            0.21360000000000012,
            0.06106871500045854,
        ),
    ),
    (
        "CDM",
        2705,
        (0.2, 0.5),
        (240, 112, 360, 216),
        (
            0.3777777777777778,
            0.05647860687509244,
            0.44444444444444436,
            0.13783644821219715,
            0.1777777777777778,
            0.0874451688035769,
        ),
    ),
    (
        "CDM",
        2706,
        (0.4, 0.9),
        (400, 188, 400, 357),
        (
            0.132,
            0.046654706666480486,
            0.845,
            0.05881398824287112,
            0.02300000000000002,
            0.01926747489871029,
        ),
    ),
    (
        "CDM",
        2707,
        (0.2, 0.8),
        (600, 158, 400, 305),
        (
            0.09694444444444444,
            0.02502341615942,
            0.8319444444444443,
            0.04647949428555051,
            0.07111111111111124,
            0.02903208825179535,
        ),
    ),
    (
        "CDM",
        2708,
        (0.25, 0.75),
        (500, 260, 500, 378),
        (
            0.402,
            0.034897961766712705,
            0.472,
            0.058987040457067916,
            0.1260000000000001,
            0.0309322098015388,
        ),
    ),
    (
        "CDM",
        2710,
        (0.15, 0.85),
        (750, 267, 750, 575),
        (
            0.268,
            0.02150113215529743,
            0.5866666666666668,
            0.03334820699377562,
            0.1453333333333332,
            0.019136822718693804,
        ),
    ),
    (
        "CDM",
        2711,
        (0.6, 0.2),
        (750, 492, 750, 285),
        (
            0.24199999999999994,
            0.027983306104903828,
            0.6900000000000002,
            0.062040298716934915,
            0.06799999999999984,
            0.03898334175746661,
        ),
    ),
    (
        "CDM",
        2712,
        (0.2, 0.8),
        (1000, 240, 1000, 789),
        (
            0.05699999999999996,
            0.018523159578595315,
            0.9149999999999999,
            0.031146081804058087,
            0.027999999999999914,
            0.01779173626188703,
        ),
    ),
    (
        "CDM",
        2713,
        (0.35, 0.65),
        (900, 493, 1100, 773),
        (
            0.367003367003367,
            0.03939882585896051,
            0.5164983164983165,
            0.07192828119637944,
            0.11649831649831655,
            0.03560037685870707,
        ),
    ),
    (
        "CDM",
        2714,
        (0.1, 0.9),
        (1250, 303, 1250, 1082),
        (
            0.16449999999999998,
            0.013694597825700693,
            0.7789999999999999,
            0.019371985418517226,
            0.056499999999999995,
            0.01096277893682136,
        ),
    ),
    (
        "CDM",
        2715,
        (0.2, 0.8),
        (1500, 599, 1500, 1199),
        (
            0.26599999999999996,
            0.017215252486556892,
            0.6666666666666666,
            0.02723467287757523,
            0.06733333333333336,
            0.014422542023273787,
        ),
    ),
    (
        "CDM",
        2716,
        (0.25, 0.5),
        (1500, 526, 1500, 809),
        (
            0.16200000000000003,
            0.027809164685424746,
            0.7546666666666666,
            0.0712905859084273,
            0.08333333333333348,
            0.04581828992818017,
        ),
    ),
    (
        "CDM",
        2717,
        (0.2, 0.7),
        (175, 91, 175, 119),
        (
            0.456,
            0.054878758740696205,
            0.3200000000000001,
            0.10363508037849671,
            0.22399999999999987,
            0.06097446233851731,
        ),
    ),
    (
        "CDM",
        2718,
        (0.3, 0.8),
        (225, 89, 225, 139),
        (
            0.2622222222222223,
            0.05578498657014622,
            0.4444444444444444,
            0.09211985138611738,
            0.29333333333333333,
            0.04729590889534031,
        ),
    ),
    (
        "CDM",
        2719,
        (0.15, 0.55),
        (350, 107, 350, 183),
        (
            0.22428571428571428,
            0.03536035225265834,
            0.5428571428571429,
            0.0909330230950201,
            0.23285714285714287,
            0.06322697202324797,
        ),
    ),
    (
        "CDM",
        2720,
        (0.5, 0.8),
        (450, 219, 450, 344),
        (
            0.02370370370370374,
            0.07120824293740927,
            0.9259259259259258,
            0.10314185363091198,
            0.0503703703703704,
            0.036895812579239386,
        ),
    ),
    (
        "CDM",
        2721,
        (0.2, 0.6),
        (900, 458, 900, 620),
        (
            0.4188888888888888,
            0.026174363335817272,
            0.4500000000000002,
            0.05681099105693354,
            0.13111111111111107,
            0.03509410419652601,
        ),
    ),
    (
        "CDM",
        2722,
        (0.3, 0.9),
        (1540, 598, 1260, 963),
        (
            0.20032467532467538,
            0.019571225622886892,
            0.6266233766233764,
            0.028743592799168823,
            0.17305194805194835,
            0.01410856199610034,
        ),
    ),
    (
        "SLD",
        2723,
        (0.2, 0.8),
        (150, 119, 150, 60),
        (0.34444444444444455, 0.08678055195451836, 0.7806451612903227, 0.09327455904527153),
    ),
    (
        "SLD",
        2724,
        (0.3, 0.7),
        (150, 106, 150, 72),
        (0.43333333333333324, 0.13843699789535635, 0.7153846153846153, 0.0894584914977993),
    ),
    (
        "SLD",
        2725,
        (0.25, 0.75),
        (200, 159, 200, 100),
        (0.4099999999999999, 0.0911098514164392, 0.8597560975609757, 0.08721055032446717),
    ),
    (
        "SLD",
        2726,
        (0.2, 0.6),
        (250, 200, 250, 133),
        (0.3299999999999999, 0.10131861550272762, 0.8, 0.0768150606696338),
    ),
    (
        "SLD",
        2727,
        (0.1, 0.7),
        (240, 195, 360, 138),
        (0.28472222222222227, 0.059997370768178675, 0.5926829268292683, 0.06326056777508572),
    ),
    (
        "SLD",
        2729,
        (0.2, 0.8),
        (600, 468, 400, 132),
        (0.2500000000000001, 0.0483222056381047, 0.7199999999999999, 0.06000369322281025),
    ),
    (
        "SLD",
        2730,
        (0.25, 0.75),
        (500, 412, 500, 290),
        (0.512, 0.05581417781253953, 0.8945312499999998, 0.04469730123301148),
    ),
    (
        "SLD",
        2731,
        (0.4, 0.8),
        (600, 376, 600, 214),
        (0.325, 0.06953601827208664, 0.6820512820512821, 0.07431686589858746),
    ),
    (
        "SLD",
        2733,
        (0.8, 0.2),
        (750, 338, 750, 600),
        (0.4177777777777778, 0.0388782701080921, 0.8000000000000002, 0.034984344984983075),
    ),
    (
        "SLD",
        2734,
        (0.2, 0.8),
        (1000, 790, 1000, 238),
        (0.08000000000000006, 0.031073550900493577, 0.6750000000000003, 0.13226325183714677),
    ),
    (
        "SLD",
        2735,
        (0.35, 0.65),
        (900, 642, 1100, 565),
        (0.3343434343434344, 0.07108468658142522, 0.8394259818731119, 0.07890776621708522),
    ),
    (
        "SLD",
        2736,
        (0.1, 0.9),
        (1250, 1081, 1250, 310),
        (0.22900000000000004, 0.01948268102412782, 0.7462882096069868, 0.035638900907673354),
    ),
    (
        "SLD",
        2737,
        (0.2, 0.8),
        (1500, 1202, 1500, 549),
        (0.27444444444444455, 0.0269259349152243, 0.8048582995951415, 0.03785616876580661),
    ),
    (
        "SLD",
        2738,
        (0.3, 0.6),
        (1500, 1073, 1500, 798),
        (0.38888888888888884, 0.05792137040653155, 0.7394285714285715, 0.03418823227127886),
    ),
    (
        "SLD",
        2739,
        (0.2, 0.7),
        (175, 142, 175, 94),
        (0.45142857142857146, 0.09608816031713584, 0.8253164556962025, 0.0691462046507684),
    ),
    (
        "SLD",
        2740,
        (0.3, 0.8),
        (225, 145, 225, 77),
        (0.39555555555555544, 0.09006366550833458, 0.559550561797753, 0.06234990888573186),
    ),
    (
        "SLD",
        2741,
        (0.15, 0.55),
        (350, 295, 350, 194),
        (0.2785714285714286, 0.08243931092607296, 0.8243589743589749, 0.06573477423270785),
    ),
    (
        "SLD",
        2743,
        (0.2, 0.6),
        (900, 723, 900, 523),
        (0.4444444444444444, 0.05282678611089757, 0.8075, 0.030394630557085512),
    ),
    (
        "SLD",
        2744,
        (0.3, 0.9),
        (1540, 1102, 1260, 310),
        (0.2174122174122176, 0.027867900520941617, 0.7716814159292026, 0.05958734245236316),
    ),
    (
        "CDM",
        2745,
        (0.2, 0.8),
        (160, 61, 160, 109),
        (
            0.28124999999999994,
            0.052814056410271475,
            0.5,
            0.0889655272671877,
            0.21875,
            0.05091938406937178,
        ),
    ),
    (
        "CDM",
        2746,
        (0.25, 0.75),
        (320, 103, 320, 197),
        (
            0.17500000000000004,
            0.04153287607737539,
            0.5874999999999999,
            0.07552552299603395,
            0.23750000000000004,
            0.04289621888502134,
        ),
    ),
    (
        "CDM",
        2747,
        (0.1, 0.7),
        (550, 190, 550, 360),
        (
            0.2939393939393939,
            0.023917343501660648,
            0.5151515151515151,
            0.0478346870033213,
            0.1909090909090908,
            0.03208848354655564,
        ),
    ),
    (
        "CDM",
        2748,
        (0.3, 0.8),
        (1100, 456, 1100, 796),
        (
            0.22909090909090918,
            0.025116668489235692,
            0.6181818181818182,
            0.04014007763632587,
            0.1527272727272727,
            0.01979893669883258,
        ),
    ),
    (
        "SLD",
        2749,
        (0.25, 0.75),
        (165, 114, 165, 66),
        (0.4181818181818182, 0.10517740170526112, 0.6086956521739132, 0.06708599255439647),
    ),
    (
        "SLD",
        2750,
        (0.2, 0.7),
        (650, 499, 650, 292),
        (0.363076923076923, 0.05122615578114194, 0.7110169491525427, 0.03873237422243778),
    ),
    (
        "SLD",
        2751,
        (0.3, 0.8),
        (1300, 933, 1300, 422),
        (0.2138461538461538, 0.03604164454086585, 0.7827338129496408, 0.06880342902899704),
    ),
]

# The six data sets of the same script whose closed form leaves the parameter space.
# RRreg's RRuni then runs optim(L-BFGS-B, random start). For the SLD it lands next to the
# maximum (t = 1 - 1e-8, standard errors NaN); for the CDM it returns points outside the
# parameter space, because RRuni.ll answers an invalid point with +1e6, which the maximiser
# prefers: seed 2701 gave pi 0.2378, beta 0.9901, gamma -0.2278; seeds 2702 and 2709 gave
# pi = beta = 1 - 1e-8, gamma = -1. The reference maxima below are RRreg's own
# log-likelihood (RRreg:::RRuni.ll, the +1e6 replaced by -1e300) maximised along each edge
# of the parameter space with optimize(tol = 1e-13), tests/dpengine/rrreg/cheating_boundary.R.
# Columns: model, seed, p, counts, CDM (pi, beta, gamma) or SLD (pi, t).
RRREG_BOUNDARY = [
    ("CDM", 2701, (0.2, 0.8), (150, 59, 150, 129), (0.24778551304500082, 0.75221448695499915, 0)),
    ("CDM", 2702, (0.3, 0.7), (150, 63, 150, 114), (0.17698127828599422, 0.82301872171400581, 0)),
    ("CDM", 2709, (0.3, 0.6), (600, 238, 600, 403), (0.14874690163990301, 0.85125309836009699, 0)),
    ("SLD", 2728, (0.3, 0.9), (400, 304, 400, 100), (0.17003223361249903, 1)),
    ("SLD", 2732, (0.15, 0.85), (750, 663, 750, 238), (0.19865430383135552, 1)),
    ("SLD", 2742, (0.5, 0.9), (450, 263, 450, 109), (0.1600832106808841, 1)),
]
# RRreg's own optim result for the SLD's pi in those three cases (t = 1 - 1e-8).
RRREG_OPTIM_SLD_PI = {
    2728: 0.1700329088710957,
    2732: 0.19865473974756556,
    2742: 0.16008320204548485,
}
INTERIOR_IDS = [f"{row[0]}-{row[1]}" for row in RRREG_INTERIOR]
BOUNDARY_IDS = [f"{row[0]}-{row[1]}" for row in RRREG_BOUNDARY]


def _design(model, p):
    return DESIGN_CLASS[model](p=p)


def _estimate(design, counts):
    n1, yes1, n2, yes2 = counts
    return estimate_cheating(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)


def _values(design, result, field):
    return [getattr(result[name], field) for name in design.parameter_names]


def _log_likelihood(design, weights, counts):
    """Two binomials at the yes-rates of barycentric weights (w_yes, w_rand, w_no)."""
    w_yes, w_rand, _ = weights
    n1, yes1, n2, yes2 = counts
    total = 0.0
    for g, (yes, n) in enumerate(((yes1, n1), (yes2, n2)), start=1):
        rate = w_yes + w_rand * float(design.exact_randomized_yes(g))
        total += stats.binom.logpmf(yes, n, min(max(rate, 0.0), 1.0))
    return total


def _weights(model, values):
    """Barycentric (w_yes, w_rand, w_no) from CDM (pi, beta, gamma) or SLD (pi, t)."""
    if model == "CDM":
        return tuple(values)
    pi, t = values
    return (pi * t, 1 - pi, pi * (1 - t))


# --- RRreg ------------------------------------------------------------------------------


def test_at_least_twenty_rrreg_data_sets_per_design_between_300_and_3000():
    for model in DESIGN_CLASS:
        sizes = [row[3][0] + row[3][2] for row in RRREG_INTERIOR if row[0] == model]
        assert len(sizes) >= 20
        assert all(300 <= size <= 3000 for size in sizes)
        assert min(sizes) <= 400 and max(sizes) >= 2600
        assert len({row[2] for row in RRREG_INTERIOR if row[0] == model}) >= 10


@pytest.mark.parametrize("row", RRREG_INTERIOR, ids=INTERIOR_IDS)
def test_estimates_and_standard_errors_equal_rrreg(row):
    # The acceptance asks 1e-6; the formulas are RRreg's, so they agree to rounding.
    model, _seed, p, counts, reference = row
    design = _design(model, p)
    result = _estimate(design, counts)
    assert not result.boundary
    ours = [
        value
        for name in design.parameter_names
        for value in (result[name].clamped, result[name].std_error)
    ]
    assert ours == pytest.approx(reference, rel=0, abs=1e-12)
    assert _values(design, result, "estimate") == _values(design, result, "clamped")


@pytest.mark.parametrize("row", RRREG_BOUNDARY, ids=BOUNDARY_IDS)
def test_boundary_estimates_equal_rrreg_likelihood_maximised_on_the_edges(row):
    model, seed, p, counts, reference = row
    design = _design(model, p)
    result = _estimate(design, counts)
    assert result.boundary
    assert _values(design, result, "clamped") == pytest.approx(reference, rel=0, abs=1e-6)
    # Some closed-form value really lies outside [0, 1] (what sends RRreg to optim).
    assert any(not 0 <= value <= 1 for value in _values(design, result, "estimate"))
    if model == "SLD":
        assert result["pi"].clamped == pytest.approx(RRREG_OPTIM_SLD_PI[seed], abs=1e-6)


@pytest.mark.parametrize("model", DESIGN_CLASS)
@pytest.mark.parametrize("p", [(0.2, 0.8), (0.7, 0.4)])
def test_maximum_likelihood_beats_every_point_of_a_fine_grid_for_every_outcome(model, p):
    # Exhaustive over the outcomes of n1 = 7, n2 = 9 and a grid of step 1/120 on the
    # parameter space: an independent check of the edge search, inside and outside.
    design = _design(model, p)
    steps = np.arange(121) / 120
    w_yes, w_rand = (axis.ravel() for axis in np.meshgrid(steps, steps))
    on_triangle = w_yes + w_rand <= 1 + 1e-12
    w_yes, w_rand = w_yes[on_triangle], w_rand[on_triangle]
    rates = [np.clip(w_yes + w_rand * float(design.exact_randomized_yes(g)), 0, 1) for g in (1, 2)]
    for yes1 in range(8):
        for yes2 in range(10):
            counts = (7, yes1, 9, yes2)
            result = _estimate(design, counts)
            values = _values(design, result, "clamped")
            if model == "SLD" and values[0] == 0:
                assert values[1] is None  # t is not identified without carriers
                values[1] = 0.5
            assert all(0 <= value <= 1 for value in values)
            best = _log_likelihood(design, _weights(model, values), counts)
            grid_best = np.max(
                stats.binom.logpmf(yes1, 7, rates[0]) + stats.binom.logpmf(yes2, 9, rates[1])
            )
            assert best >= grid_best - 1e-9
            if model == "CDM":
                assert sum(values) == pytest.approx(1, abs=1e-12)


def test_triangle_ml_is_the_closed_form_inside_the_parameter_space():
    design = CheatingDetection(p=(0.2, 0.8))
    # lambda = (0.36, 0.72): pi = 0.24, beta = 0.6, gamma = 0.16.
    assert triangle_ml(design=design, n1=100, yes1=36, n2=100, yes2=72) == pytest.approx(
        (0.24, 0.6, 0.16), abs=1e-15
    )


# --- designs ----------------------------------------------------------------------------


def test_both_designs_are_registered_with_rrreg_names_and_defaults():
    assert dict(CHEATING_DESIGNS) == {"cdm": CheatingDetection, "sld": StochasticLieDetector}
    cdm, sld = CheatingDetection(), StochasticLieDetector()
    assert cdm.p == (0.25, 0.75) and cdm.share == 0.5
    assert cdm.r_model.name == "CDM" and cdm.r_model.p == (0.25, 0.75)
    assert sld.r_model.name == "SLD" and sld.kind == "sld"
    assert cdm.parameters == {"p": [0.25, 0.75], "share": 0.5}
    assert cdm.parameter_names == ("pi", "beta", "gamma")
    assert sld.parameter_names == ("pi", "t")
    assert "0.25" in cdm.description and "0.75" in sld.description
    assert pickle.loads(pickle.dumps(sld)) == sld
    with pytest.raises(AttributeError):
        cdm.share = 0.3


def test_report_probabilities_follow_rrreg_misclassification_matrices():
    # RRreg's getPW: CDM column "0" (non-carrier) is (1 - p_g, p_g) for (no, yes); SLD's
    # true-0 column is (p_g, 1 - p_g); carriers (honest) say yes.
    cdm = CheatingDetection(p=(Fraction(1, 5), Fraction(3, 5)), share=0.4)
    assert cdm.report_probabilities == ((1.0, 0.2), (1.0, 0.6))
    assert cdm.exact_p_yes(group=2, truth=False) == Fraction(3, 5)
    sld = StochasticLieDetector(p=(0.2, 0.6))
    assert sld.report_probabilities == ((1.0, 0.8), (1.0, 0.4))
    assert cdm.expected_yes_rates(pi=0.3, gamma=0.1) == pytest.approx((0.42, 0.66))
    assert sld.expected_yes_rates(pi=0.3, t=0.8) == pytest.approx((0.8, 0.52))


@pytest.mark.parametrize("cls", [CheatingDetection, StochasticLieDetector])
@pytest.mark.parametrize(
    ("kwargs", "field", "reason"),
    [
        ({"p": 0.3}, "p", Reason.INVALID_TYPE),
        ({"p": "ab"}, "p", Reason.INVALID_TYPE),
        ({"p": (0.2, 0.5, 0.8)}, "p", Reason.INVALID_TYPE),
        ({"p": (0.2, "0.5")}, "p", Reason.INVALID_TYPE),
        ({"p": (0.0, 0.5)}, "p", Reason.OUT_OF_RANGE),
        ({"p": (0.5, 1.0)}, "p", Reason.OUT_OF_RANGE),
        ({"p": (0.5, float("nan"))}, "p", Reason.OUT_OF_RANGE),
        ({"p": (0.4, Fraction(2, 5))}, "p", Reason.NO_INFORMATION),
        ({"share": 0}, "share", Reason.OUT_OF_RANGE),
        ({"share": 1.5}, "share", Reason.OUT_OF_RANGE),
        ({"share": None}, "share", Reason.INVALID_TYPE),
    ],
)
def test_bad_parameters_are_refused_naming_the_field(cls, kwargs, field, reason):
    with pytest.raises(DPEngineError) as info:
        cls(**kwargs)
    assert info.value.field == field
    assert info.value.reason == reason


# --- privacy ----------------------------------------------------------------------------


@pytest.mark.parametrize("design", [CheatingDetection(), StochasticLieDetector(p=(0.1, 0.9))])
def test_an_honest_no_proves_a_non_carrier_so_epsilon_is_infinite(design):
    for group in (1, 2):
        assert design.exact_p_yes(group=group, truth=True) == 1  # P(no | carrier) = 0
        assert design.exact_p_yes(group=group, truth=False) < 1  # P(no | non-carrier) > 0
    assert design.epsilon == math.inf
    assert not design.is_differentially_private
    assert _estimate(design, (10, 3, 10, 6)).as_dict()["epsilon"] is None


def test_epsilon_is_the_worst_log_ratio_so_randomized_carriers_would_make_it_finite():
    # The computation, not a constant: were carriers to say "yes" with 3/4 (so "no" with
    # 1/4), the worst ratio over reports and groups would be that of group 1's "yes":
    # (3/4) / (1/5) = 15/4 against "no" ratios (4/5) / (1/4) = 16/5 and (2/5) / (1/4).
    class CarriersRandomized(CheatingDetection):
        def exact_p_yes(self, *, group, truth):
            return Fraction(3, 4) if truth else super().exact_p_yes(group=group, truth=truth)

    design = CarriersRandomized(p=(0.2, 0.6))
    assert design.epsilon == pytest.approx(math.log(Fraction(15, 4)), rel=1e-15)
    assert design.is_differentially_private


@pytest.mark.parametrize(
    ("design", "ratio"),
    [
        # CDM: P(yes | carrier) / P(yes | non-carrier) = 1 / p_g, worst in the smaller p.
        (CheatingDetection(p=(0.2, 0.6)), Fraction(5)),
        (CheatingDetection(p=(0.75, 0.25)), Fraction(4)),
        # SLD: 1 / (1 - p_g), worst in the larger p.
        (StochasticLieDetector(p=(0.2, 0.6)), Fraction(5, 2)),
        (StochasticLieDetector(p=(0.9, 0.5)), Fraction(10)),
    ],
)
def test_a_yes_is_at_most_epsilon_yes_more_likely_from_a_carrier_in_either_group(design, ratio):
    per_group = [
        design.exact_p_yes(group=g, truth=True) / design.exact_p_yes(group=g, truth=False)
        for g in (1, 2)
    ]
    assert max(per_group) == ratio == design.yes_likelihood_ratio
    assert design.epsilon_yes == pytest.approx(math.log(ratio), rel=1e-15)
    # A non-complier says "no" whatever the truth: likelihood ratio 1, nothing revealed.
    counts_all_cheat = simulate_cheating_counts(
        design=CheatingDetection(), n=50, rng=np.random.default_rng(1), pi=0.0, gamma=1.0
    )
    assert counts_all_cheat[1] == counts_all_cheat[3] == 0


# --- sampling ---------------------------------------------------------------------------


class Enumerate:
    """A random source that returns 0, 1, 2, ... modulo each bound: one full enumeration."""

    def __init__(self):
        self.calls = 0
        self.bounds = set()

    def randbelow(self, n):
        self.bounds.add(n)
        value = self.calls % n
        self.calls += 1
        return value


@pytest.mark.parametrize(
    ("design", "yes_per_group"),
    [
        # Dyadic p: one draw below 4 per respondent.
        (CheatingDetection(p=(0.25, 0.75)), (1, 3)),
        (StochasticLieDetector(p=(0.25, 0.75)), (3, 1)),
        # Decimal p = (0.3, 0.7): denominators 10, lcm 10.
        (CheatingDetection(p=(0.3, 0.7)), (3, 7)),
        (StochasticLieDetector(p=(0.3, 0.45)), (14, 11)),
    ],
)
def test_a_non_carriers_report_follows_the_published_probability_exactly(design, yes_per_group):
    r = [design.exact_randomized_yes(g) for g in (1, 2)]
    denominator = math.lcm(*(q.denominator for q in r))
    for g, expected in zip((1, 2), yes_per_group, strict=True):
        source = Enumerate()
        reports = randomize_in_group(
            np.zeros(denominator, dtype=bool), group=g, design=design, rng=source
        )
        assert source.bounds == {denominator}
        assert Fraction(int(reports.sum()), denominator) == r[g - 1]
        assert int(reports.sum()) == expected
        carriers = randomize_in_group(
            np.ones(denominator, dtype=bool), group=g, design=design, rng=Enumerate()
        )
        assert carriers.all()


def test_groups_in_one_call_use_their_own_probability():
    design = CheatingDetection(p=(0.25, 0.75))
    groups = np.array([1, 1, 1, 1, 2, 2, 2, 2])
    reports = randomize_in_group(
        np.zeros(8, dtype=bool), group=groups, design=design, rng=Enumerate()
    )
    # u = 0..3 in group 1 (yes when u < 1), u = 4..7 -> 0..3 mod 4 in group 2 (u < 3).
    assert reports.tolist() == [True, False, False, False, True, True, True, False]
    assert randomize_in_group(True, group=2, design=design, rng=Enumerate()) is True


@pytest.mark.parametrize(
    ("share", "denominator", "group_one"), [(0.5, 2, 1), (Fraction(1, 4), 4, 1), (0.3, 10, 3)]
)
def test_group_assignment_follows_the_share_exactly(share, denominator, group_one):
    design = StochasticLieDetector(share=share)
    source = Enumerate()
    groups = assign_groups(design=design, size=denominator, rng=source)
    assert source.bounds == {denominator}
    assert int((groups == 1).sum()) == group_one
    assert set(groups.tolist()) <= {1, 2}


@pytest.mark.parametrize(
    ("call", "field", "reason"),
    [
        (
            lambda d: randomize_in_group(np.array([1, 0]), group=1, design=d, rng=1),
            "truth",
            Reason.INVALID_TYPE,
        ),
        (
            lambda d: randomize_in_group(True, group=3, design=d, rng=None),
            "group",
            Reason.OUT_OF_RANGE,
        ),
        (
            lambda d: randomize_in_group(True, group=1.0, design=d, rng=None),
            "group",
            Reason.INVALID_TYPE,
        ),
        (
            lambda d: randomize_in_group(
                np.ones(3, bool), group=np.ones(2, int), design=d, rng=None
            ),
            "group",
            Reason.SHAPE_MISMATCH,
        ),
        (
            lambda d: randomize_in_group(True, group=1, design=ForcedResponse(), rng=None),
            "design",
            Reason.INVALID_TYPE,
        ),
        (lambda d: assign_groups(design=d, size=-1, rng=None), "size", Reason.OUT_OF_RANGE),
        (lambda d: d.exact_p_yes(group=0, truth=True), "group", Reason.OUT_OF_RANGE),
        (
            lambda d: simulate_cheating_counts(design=d, n=5, rng=None, pi=0.7, gamma=0.4),
            "gamma",
            Reason.OUT_OF_RANGE,
        ),
        (
            lambda d: simulate_cheating_counts(design=d, n=5, rng=None, pi=-0.1, gamma=0.4),
            "pi",
            Reason.OUT_OF_RANGE,
        ),
        (
            lambda d: simulate_cheating_counts(design=d, n=5, rng=None, pi=0.1, t=0.5),
            "shares",
            Reason.INVALID_CHOICE,
        ),
    ],
)
def test_bad_sampler_input_is_refused_naming_the_field(call, field, reason):
    with pytest.raises(DPEngineError) as info:
        call(CheatingDetection())
    assert info.value.field == field
    assert info.value.reason == reason


@pytest.mark.parametrize(
    ("design", "shares"),
    [
        (CheatingDetection(p=(0.2, 0.8), share=0.3), {"pi": 0.3, "gamma": 0.1}),
        (StochasticLieDetector(p=(0.3, 0.7)), {"pi": 0.4, "t": 0.75}),
    ],
)
def test_simulated_counts_follow_the_model(design, shares):
    # Seeded; 200 000 respondents, each group's yes-rate within 4 standard errors of the
    # model's and the group-1 share within 4 standard errors of `share`.
    n1, yes1, n2, yes2 = simulate_cheating_counts(
        design=design, n=200_000, rng=np.random.default_rng(27), **shares
    )
    share = float(design.share)
    assert abs(n1 / (n1 + n2) - share) <= 4 * math.sqrt(share * (1 - share) / (n1 + n2))
    for (yes, n), rate in zip(
        ((yes1, n1), (yes2, n2)), design.expected_yes_rates(**shares), strict=True
    ):
        assert abs(yes / n - rate) <= 4 * math.sqrt(rate * (1 - rate) / n)


# --- estimation: exact properties ---------------------------------------------------------


def _joint(design, n1, n2, truth):
    """Both groups' count grids and their joint probabilities under ``truth``."""
    yes1 = np.arange(n1 + 1)[:, None]
    yes2 = np.arange(n2 + 1)[None, :]
    rates = design.expected_yes_rates(**truth)
    weight = stats.binom.pmf(yes1, n1, rates[0]) * stats.binom.pmf(yes2, n2, rates[1])
    return yes1, yes2, weight


def _true_values(design, truth):
    if design.kind == "cdm":
        # Exact in rationals: 1 - 0.8 - 0.2 is not 0 in floats.
        beta = float(1 - Fraction(str(truth["pi"])) - Fraction(str(truth["gamma"])))
        return {"pi": truth["pi"], "beta": beta, "gamma": truth["gamma"]}
    return dict(truth)


CDM_TRUTHS = [{"pi": pi, "gamma": g} for pi in (0.0, 0.1, 0.3, 0.6) for g in (0.0, 0.1, 0.25)]
SLD_TRUTHS = [{"pi": pi, "t": t} for pi in (0.05, 0.2, 0.5) for t in (0.5, 0.9, 1.0)]


@pytest.mark.parametrize(
    ("design", "truths"),
    [
        (CheatingDetection(p=(0.2, 0.8)), CDM_TRUTHS),
        (CheatingDetection(p=(0.6, 0.3)), CDM_TRUTHS),
        (StochasticLieDetector(p=(0.2, 0.8)), SLD_TRUTHS),
    ],
)
def test_linear_estimates_and_their_variance_estimates_are_exactly_unbiased(design, truths):
    # Enumerating both binomials (n1 = 9, n2 = 14): E[estimate] = truth for the CDM's three
    # shares and the SLD's pi, and E[se^2] = Var(estimate) exactly, since
    # E[l (1 - l) / (n - 1)] = lambda (1 - lambda) / n. (The SLD's t is a ratio: not claimed.)
    for truth in truths:
        yes1, yes2, weight = _joint(design, 9, 14, truth)
        forms = closed_form(design=design, n1=9, yes1=yes1, n2=14, yes2=yes2)
        for name, value in _true_values(design, truth).items():
            if name == "t":
                continue
            est, se = forms[name]
            mean = float((weight * est).sum())
            assert mean == pytest.approx(value, abs=1e-12)
            variance = float((weight * (est - mean) ** 2).sum())
            assert float((weight * se**2).sum()) == pytest.approx(variance, rel=1e-10, abs=1e-14)


def _grid(n1, n2):
    """Every pair of counts: group 1's along the rows, group 2's along the columns."""
    return np.arange(n1 + 1)[:, None], np.arange(n2 + 1)[None, :]


def _wald_family(design, n1, n2, confidence=0.95):
    """Wald's intervals (Fieller's for t) at every pair of counts."""
    yes1, yes2 = _grid(n1, n2)
    forms = closed_form(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)
    return {
        name: (
            fieller_t_interval(
                design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=confidence
            )
            if name == "t"
            else wald_intervals(estimate=est, std_error=se, confidence=confidence)
        )
        for name, (est, se) in forms.items()
    }


def _least_coverage(design, n1, n2, truths, intervals):
    """Each parameter's least exact coverage over ``truths`` of ``intervals`` (given at every
    pair of counts), both binomials enumerated."""
    worst = {}
    for truth in truths:
        _, _, weight = _joint(design, n1, n2, truth)
        for name, value in _true_values(design, truth).items():
            low, high = intervals[name]
            covered = float((weight * ((low <= value) & (value <= high))).sum())
            worst[name] = min(worst.get(name, 1.0), covered)
    return worst


def _min_coverage(design, n1, n2, truths):
    return _least_coverage(design, n1, n2, truths, _wald_family(design, n1, n2))


COVERAGE_CASES = [
    (CheatingDetection(p=(0.2, 0.8)), CDM_TRUTHS),
    (CheatingDetection(p=(0.1, 0.5)), CDM_TRUTHS),
    (CheatingDetection(p=(0.9, 0.5)), CDM_TRUTHS),
    (StochasticLieDetector(p=(0.2, 0.8)), SLD_TRUTHS),
    (StochasticLieDetector(p=(0.3, 0.7)), SLD_TRUTHS),
]


@pytest.mark.parametrize(("design", "truths"), COVERAGE_CASES)
@pytest.mark.parametrize(("n1", "n2"), [(150, 150), (100, 200)])
def test_exact_coverage_is_at_least_093_at_n_300(design, truths, n1, n2):
    # Exact: the intervals estimate_cheating reports, summed over all (n1 + 1)(n2 + 1)
    # outcomes, at every grid truth (CDM: pi 0-0.6, gamma 0-0.25; SLD: pi 0.05-0.5,
    # t 0.5-1), 95 % nominal.
    worst = _min_coverage(design, n1, n2, truths)
    assert set(worst) == set(design.parameter_names)
    assert min(worst.values()) >= 0.93, worst


@pytest.mark.slow
@pytest.mark.parametrize(("design", "truths"), COVERAGE_CASES)
def test_exact_coverage_is_at_least_093_at_n_3000(design, truths):
    worst = _min_coverage(design, 1500, 1500, truths)
    assert min(worst.values()) >= 0.94, worst


def test_delta_method_interval_for_t_undercovers_when_carriers_are_rare():
    # Why t's interval is Fieller's: at pi = 0.05, t = 1, n = 300, p = (0.3, 0.7) the Wald
    # interval around RRreg's t and its standard error covers about 71 %.
    design = StochasticLieDetector(p=(0.3, 0.7))
    truth = {"pi": 0.05, "t": 1.0}
    yes1, yes2, weight = _joint(design, 150, 150, truth)
    est, se = closed_form(design=design, n1=150, yes1=yes1, n2=150, yes2=yes2)["t"]
    wald = wald_intervals(estimate=est, std_error=se, confidence=0.95)
    assert float((weight * (wald.high >= 1.0)).sum()) < 0.75
    assert _min_coverage(design, 150, 150, [truth])["t"] >= 0.94


@pytest.mark.parametrize(
    ("design", "shares"),
    [
        (CheatingDetection(p=(0.2, 0.8)), {"pi": 0.3, "gamma": 0.1}),
        (CheatingDetection(p=(0.3, 0.7), share=0.4), {"pi": 0.1, "gamma": 0.0}),
        (StochasticLieDetector(p=(0.2, 0.8)), {"pi": 0.3, "t": 0.8}),
        (StochasticLieDetector(p=(0.3, 0.7)), {"pi": 0.15, "t": 1.0}),
    ],
)
@pytest.mark.parametrize("n", [300, pytest.param(3000, marks=pytest.mark.slow)])
def test_simulated_coverage_through_the_sampler_is_at_least_093(design, shares, n):
    # Seeded: 1500 surveys of n respondents each, random group sizes, drawn through
    # assign_groups and randomize_in_group. Exact coverage at these truths is 0.94-0.96;
    # the simulation's standard error is about 0.006, so 0.93 leaves two of them.
    rng = np.random.default_rng(2027 + n)
    truth = _true_values(design, shares)
    hits = dict.fromkeys(design.parameter_names, 0)
    surveys = 1500
    for _ in range(surveys):
        n1, yes1, n2, yes2 = simulate_cheating_counts(design=design, n=n, rng=rng, **shares)
        result = estimate_cheating(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)
        for name in hits:
            hits[name] += result[name].ci_low <= truth[name] <= result[name].ci_high
    assert min(hits.values()) / surveys >= 0.93, hits


# --- estimation: results and edge cases ---------------------------------------------------


def test_result_reads_like_a_yes_no_estimate_for_pi_and_serialises_to_json():
    design = CheatingDetection(p=(0.2, 0.8))
    result = estimate_cheating(design=design, n1=100, yes1=36, n2=100, yes2=72)
    # lambda = (0.36, 0.72): pi = (0.8 * 0.36 - 0.2 * 0.72) / 0.6 = 0.24.
    assert result.estimate == pytest.approx(0.24) and result.clamped == result.estimate
    assert result.n == 200 and result.yes == 108 and result.has_data
    assert result.yes_rates == (0.36, 0.72)
    assert result.ci == result["pi"].ci and result.ci_low < 0.24 < result.ci_high
    assert result.std_error == result["pi"].std_error
    assert result["gamma"].estimate == pytest.approx(0.16)
    data = json.loads(json.dumps(result.as_dict(), allow_nan=False))
    assert data["design"] == "cdm" and data["p"] == [0.2, 0.8] and data["share"] == 0.5
    assert data["gamma"]["estimate"] == pytest.approx(0.16)
    assert data["epsilon_yes"] == pytest.approx(math.log(5))
    with pytest.raises(KeyError):
        result["t"]


def test_clamped_values_stay_in_the_parameter_space_and_intervals_contain_them():
    # gamma's closed form is negative here (more "yes" than the design predicts).
    design = CheatingDetection(p=(0.2, 0.6))
    result = estimate_cheating(design=design, n1=150, yes1=60, n2=150, yes2=110)
    assert result.boundary and result["gamma"].was_clamped
    assert result["gamma"].estimate < 0 and result["gamma"].clamped == 0
    assert sum(_values(design, result, "clamped")) == pytest.approx(1, abs=1e-12)
    assert result["gamma"].ci_low == 0


def test_without_data_every_value_is_none_and_every_interval_is_the_unit_interval():
    result = estimate_cheating(design=StochasticLieDetector(), n1=0, yes1=0, n2=40, yes2=12)
    assert not result.has_data and not result.boundary
    for parameter in result.parameters:
        assert (parameter.estimate, parameter.clamped, parameter.std_error) == (None,) * 3
        assert tuple(parameter.ci) == (0.0, 1.0)
    one = estimate_cheating(design=CheatingDetection(), n1=1, yes1=1, n2=40, yes2=12)
    assert one.estimate is not None and one.std_error is None and tuple(one.ci) == (0.0, 1.0)


def test_sld_t_is_undefined_without_carriers():
    # lambda_2 - lambda_1 = p_1 - p_2: pi = 0 (to rounding), t = 0 / 0.
    design = StochasticLieDetector(p=(0.2, 0.6))
    result = estimate_cheating(design=design, n1=100, yes1=80, n2=100, yes2=40)
    assert result["pi"].estimate == pytest.approx(0, abs=1e-15)
    assert result["t"].estimate is None and result["t"].std_error is None


@pytest.mark.parametrize(
    ("kwargs", "field", "reason"),
    [
        ({"n1": -1}, "n1", Reason.OUT_OF_RANGE),
        ({"n2": 2.0}, "n2", Reason.INVALID_TYPE),
        ({"yes1": 11}, "yes1", Reason.OUT_OF_RANGE),
        ({"yes2": True}, "yes2", Reason.INVALID_TYPE),
        ({"confidence": 1.0}, "confidence", Reason.OUT_OF_RANGE),
        ({"design": ForcedResponse()}, "design", Reason.INVALID_TYPE),
    ],
)
def test_bad_counts_are_refused_naming_the_field(kwargs, field, reason):
    arguments = {"design": CheatingDetection(), "n1": 10, "yes1": 3, "n2": 10, "yes2": 5}
    with pytest.raises(DPEngineError) as info:
        estimate_cheating(**{**arguments, **kwargs})
    assert info.value.field == field
    assert info.value.reason == reason


# --- randomized against direct questioning ------------------------------------------------


def test_direct_comparison_by_hand():
    # se_d = sqrt(0.2 * 0.8 / 100) = 0.04; se = sqrt(0.05^2 + 0.04^2) = 0.0640312;
    # z = 0.1 / 0.0640312 = 1.561738; one-sided p = 1 - Phi(1.561738) = 0.0591749.
    result = compare_direct(estimate=0.3, std_error=0.05, direct_yes=20, direct_n=100)
    assert result.direct == 0.2 and result.direct_std_error == pytest.approx(0.04)
    assert result.difference == pytest.approx(0.1)
    assert result.std_error == pytest.approx(0.0640312424, rel=1e-9)
    assert result.z == pytest.approx(1.5617376189, rel=1e-9)
    assert result.p_value == pytest.approx(stats.norm.sf(1.5617376189), rel=1e-9)
    se, z_two, z_one = math.hypot(0.05, 0.04), stats.norm.ppf(0.975), stats.norm.ppf(0.95)
    assert tuple(result.ci) == pytest.approx((0.1 - z_two * se, 0.1 + z_two * se), rel=1e-12)
    assert result.lower_bound == pytest.approx(0.1 - z_one * se, rel=1e-12)
    assert json.loads(json.dumps(result.as_dict()))["direct_n"] == 100


def test_far_upper_tail_keeps_its_precision():
    # z is about 11: 1 - Phi(z) in floats would round to 0; the erfc form keeps ~1e-28.
    result = compare_direct(estimate=0.5, std_error=0.01, direct_yes=300, direct_n=1000)
    assert 10 < result.z < 12
    assert 0 < result.p_value == pytest.approx(stats.norm.sf(result.z), rel=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "field", "reason"),
    [
        ({"direct_n": 0, "direct_yes": 0}, "direct_n", Reason.NO_DATA),
        ({"direct_yes": 101}, "direct_yes", Reason.OUT_OF_RANGE),
        ({"direct_yes": -1}, "direct_yes", Reason.OUT_OF_RANGE),
        ({"direct_n": "100"}, "direct_n", Reason.INVALID_TYPE),
        ({"estimate": float("nan")}, "estimate", Reason.OUT_OF_RANGE),
        ({"estimate": None}, "estimate", Reason.INVALID_TYPE),
        ({"std_error": -0.1}, "std_error", Reason.OUT_OF_RANGE),
        ({"std_error": 0.0, "direct_yes": 0}, None, Reason.ZERO_VARIANCE),
        ({"confidence": 0}, "confidence", Reason.OUT_OF_RANGE),
    ],
)
def test_bad_direct_comparison_input_is_refused_naming_the_field(kwargs, field, reason):
    arguments = {"estimate": 0.3, "std_error": 0.05, "direct_yes": 20, "direct_n": 100}
    with pytest.raises(DPEngineError) as info:
        compare_direct(**{**arguments, **kwargs})
    assert info.value.field == field
    assert info.value.reason == reason


@pytest.mark.parametrize("prevalence", [0.1, 0.3, 0.5])
def test_direct_comparison_has_its_nominal_level_exactly(prevalence):
    # Exact: the classic forced-response design with 300 respondents against 150 asked
    # directly, both groups with the same prevalence; every pair of counts through
    # compare_direct. The one-sided 5 % test rejects with probability within 0.005 of 0.05.
    design = ForcedResponse(p_truth=0.5, p_forced_yes=0.5)
    rate = design.p_yes_given_no + design.information * prevalence
    rr_weight = stats.binom.pmf(np.arange(301), 300, rate)
    direct_weight = stats.binom.pmf(np.arange(151), 150, prevalence)
    level = 0.0
    for yes, w_rr in enumerate(rr_weight):
        if w_rr < 1e-15:
            continue
        est = estimate(yes=yes, n=300, design=design)
        for direct_yes, w_d in enumerate(direct_weight):
            if w_d < 1e-15:
                continue
            result = compare_direct(
                estimate=est.estimate, std_error=est.std_error, direct_yes=direct_yes, direct_n=150
            )
            level += w_rr * w_d * (result.p_value <= 0.05)
    assert abs(level - 0.05) <= 0.005


@pytest.mark.slow
@pytest.mark.parametrize(
    ("design", "shares"),
    [
        (ForcedResponse(p_truth=0.5, p_forced_yes=0.5), None),
        (CheatingDetection(p=(0.2, 0.8)), {"pi": 0.3, "gamma": 0.0}),
    ],
)
def test_direct_comparison_level_and_power_on_simulated_data(design, shares):
    # Seeded: 4000 split ballots of 1000 randomized and 500 direct answers. Under the null
    # (both halves at 0.3, nobody cheating) the rejection rate is 0.05 within 0.012 (three
    # simulation standard errors); when the direct half under-reports (0.2) the power
    # matches the normal approximation Phi(delta / se - z_0.95) within 0.03.
    rng = np.random.default_rng(27)
    trials = 4000

    def randomized():
        if shares is None:
            rate = design.p_yes_given_no + design.information * 0.3
            est = estimate(yes=int(rng.binomial(1000, rate)), n=1000, design=design)
            return est.estimate, est.std_error
        n1, yes1, n2, yes2 = simulate_cheating_counts(design=design, n=1000, rng=rng, **shares)
        pi = estimate_cheating(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)["pi"]
        return pi.estimate, pi.std_error

    rejected = {0.3: 0, 0.2: 0}
    ses = []
    for _ in range(trials):
        est, se = randomized()
        ses.append(se)
        for direct_rate in rejected:
            direct_yes = int(rng.binomial(500, direct_rate))
            result = compare_direct(estimate=est, std_error=se, direct_yes=direct_yes, direct_n=500)
            rejected[direct_rate] += result.p_value <= 0.05
    assert abs(rejected[0.3] / trials - 0.05) <= 0.012
    se = math.sqrt(np.mean(np.square(ses)) + 0.2 * 0.8 / 500)
    expected_power = stats.norm.cdf(0.1 / se - stats.norm.ppf(0.95))
    assert abs(rejected[0.2] / trials - expected_power) <= 0.03
