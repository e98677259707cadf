"""Outward rounding of privacy losses (dpengine.rounding, and its use by designs and the ledger).

The oracle here is independent of dpengine.rounding: it decides ``ratio <= e^eps`` by the
decimal module's correctly rounded ``exp`` at 120 digits (dpengine uses ``ln`` at 40 digits
and doubles), and refuses to decide when the two sides are closer than the oracle's error.
"""

import math
import random
from decimal import Context, Decimal, localcontext
from fractions import Fraction

import pytest

from dpengine import (
    DESIGNS,
    ForcedResponse,
    KaryRandomizedResponse,
    group_privacy_epsilon,
    privacy_ledger,
    survey_epsilon,
)
from dpengine.numeric import BoundedNumeric
from dpengine.rounding import ceil_decimal, float_at_least, log_at_most, log_upper

ORACLE_DIGITS = 120


def exp_at_least(ratio: Fraction, epsilon: Fraction) -> bool:
    """``e^epsilon >= ratio``, by a correctly rounded exp at ORACLE_DIGITS digits."""
    with localcontext(Context(prec=ORACLE_DIGITS)):
        e = Decimal(epsilon.numerator) / Decimal(epsilon.denominator)
        value = e.exp()
    # exp is correctly rounded, e itself off by half an ulp: a relative error of 1e-115
    # covers both at the exponents used here (epsilon below 10).
    tolerance = Fraction(1, 10**115) * Fraction(value)
    gap = Fraction(value) - ratio
    assert abs(gap) > tolerance, "oracle cannot decide"
    return gap > 0


def readings(value: float) -> tuple[Fraction, Fraction]:
    return Fraction(value), Fraction(repr(value))


@pytest.mark.slow
def test_for_epsilon_never_spends_more_than_asked_over_10000_random_requests():
    rng = random.Random(20231123)
    for _ in range(10_000):
        epsilon = rng.choice([rng.uniform(0.01, 5.0), round(rng.uniform(0.05, 3.0), 2)])
        p_forced_yes = rng.choice([0.5, rng.uniform(0.05, 0.95), round(rng.uniform(0.1, 0.9), 1)])
        design = ForcedResponse.for_epsilon(epsilon, p_forced_yes=p_forced_yes)
        ratio = design.likelihood_ratio
        for requested in readings(epsilon):
            assert exp_at_least(ratio, requested), (epsilon, p_forced_yes)
        # The float the ledger charges is an upper bound too, and not above the request.
        assert design.epsilon <= epsilon
        for charged in readings(design.epsilon):
            assert exp_at_least(ratio, charged), (epsilon, p_forced_yes)


def test_the_issue_example_is_now_within_its_budget():
    # Issue 23: for_epsilon(0.17963483016132317) had exact loss 0.17963483016132321...
    design = ForcedResponse.for_epsilon(0.17963483016132317)
    assert exp_at_least(design.likelihood_ratio, Fraction(0.17963483016132317))
    assert exp_at_least(design.likelihood_ratio, Fraction("0.17963483016132317"))


def test_for_epsilon_is_still_as_close_as_a_float_allows():
    # One float step of p_truth up would overspend: the result is the largest that fits.
    rng = random.Random(7)
    for _ in range(200):
        epsilon = rng.uniform(0.05, 4.0)
        design = ForcedResponse.for_epsilon(epsilon)
        above = ForcedResponse(p_truth=math.nextafter(design.p_truth, 1), p_forced_yes=0.5)
        assert not all(exp_at_least(above.likelihood_ratio, r) for r in readings(epsilon))


@pytest.mark.slow
def test_every_yes_no_design_charges_at_least_its_exact_loss_over_random_parameters():
    rng = random.Random(99)
    samples = {
        "forced_response": lambda: {"p_truth": rng.uniform(0.01, 0.9), "p_forced_yes": 0.5},
        "warner": lambda: {"p": rng.uniform(0.51, 0.95)},
        "unrelated_question": lambda: {"p": rng.uniform(0.05, 0.9), "pi": rng.uniform(0.1, 0.9)},
        "kuk": lambda: {"theta1": rng.uniform(0.55, 0.95), "theta2": rng.uniform(0.05, 0.5)},
        "mangat": lambda: {"p": rng.uniform(0.55, 0.95), "t": rng.uniform(0.5, 1.0)},
    }
    for kind, draw in samples.items():
        for _ in range(300):
            design = DESIGNS[kind](**draw())
            for charged in readings(design.epsilon):
                assert exp_at_least(design.likelihood_ratio, charged), (kind, design)
            # ...and it is the least such float: one step down is below the loss.
            below = math.nextafter(design.epsilon, 0)
            assert not all(exp_at_least(design.likelihood_ratio, r) for r in readings(below))


def test_choice_given_as_odds_charges_ln_odds_rounded_up():
    for odds in (3, Fraction(7, 2), 9, Fraction(1001, 1000)):
        mechanism = KaryRandomizedResponse(k=4, odds=odds)
        for charged in readings(mechanism.epsilon):
            assert exp_at_least(Fraction(odds), charged)


def test_ledger_entries_and_total_never_understate_the_exact_losses():
    rng = random.Random(5)
    for _ in range(200):
        mechanisms = [
            ForcedResponse(p_truth=rng.uniform(0.05, 0.8), p_forced_yes=0.5),
            KaryRandomizedResponse(k=3, epsilon=rng.uniform(0.1, 2.0)),
            KaryRandomizedResponse(k=5, epsilon=Fraction(rng.randint(1, 300), 101)),
            BoundedNumeric(lo=0, hi=10, epsilon=rng.uniform(0.1, 2.0)),
        ]
        ledger = privacy_ledger(mechanisms)
        exact = [
            Fraction(repr(mechanisms[1].epsilon)),
            mechanisms[2].epsilon,
            Fraction(repr(mechanisms[3].epsilon)),
        ]
        for charged, loss in zip(ledger.per_question[1:], exact, strict=True):
            assert Fraction(repr(charged)) >= loss
        # The total (read as its decimal): at least every question's exact loss, summed.
        ratio = mechanisms[0].likelihood_ratio
        assert exp_at_least(ratio, Fraction(repr(ledger.total_epsilon)) - sum(exact))


def test_multiples_round_up():
    design = ForcedResponse(p_truth=0.3, p_forced_yes=0.5)
    for k in (1, 3, 7, 10, 33):
        # Sums and multiples are read as the decimals they print as, like every ε float.
        charged = Fraction(repr(survey_epsilon(design, questions=k)))
        assert charged >= k * Fraction(repr(design.epsilon))
        assert Fraction(repr(group_privacy_epsilon(0.1, group_size=k))) >= k * Fraction(1, 10)
    assert survey_epsilon(design, questions=1) == design.epsilon


def test_float_at_least_is_the_least_float_above_in_both_readings():
    for value in (Fraction(1, 3), Fraction(11, 10), Fraction(2, 7), Fraction(10**20 + 1, 10**20)):
        result = float_at_least(value)
        assert min(readings(result)) >= value
        assert min(readings(math.nextafter(result, 0))) < value


@pytest.mark.parametrize(
    ("ratio", "bound", "expected"),
    [
        (Fraction(3), Fraction("1.0986122886681096"), False),  # ln 3 = 1.09861228866810969...
        (Fraction(3), Fraction("1.0986122886681097"), True),
        (Fraction(1), Fraction(0), True),
        (Fraction(1, 2), Fraction(-7, 10), False),  # ln 1/2 = -0.693...
        (Fraction(1, 2), Fraction(-69, 100), True),
    ],
)
def test_log_at_most_decides_exactly(ratio, bound, expected):
    assert log_at_most(ratio, bound) is expected


def test_log_upper_of_3_is_the_float_above_ln_3():
    # ln 3 = 1.0986122886681096913952452369225257... (OEIS A002391)
    assert log_upper(Fraction(3)) == 1.0986122886681098
    assert Fraction(1.0986122886681098) > Fraction("1.0986122886681096913952452369225257")


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (math.log(3), 2, "1.10"),
        (1.1, 2, "1.10"),  # read as the decimal 1.1, not its binary 1.100000000000000088...
        (0.5, 2, "0.50"),
        (0.501, 2, "0.51"),
        (2.1972245773362196, 2, "2.20"),
        (1.0041, 2, "1.01"),
        (Fraction(1, 3), 3, "0.334"),
    ],
)
def test_ceil_decimal_rounds_up(value, digits, shown):
    assert str(ceil_decimal(value, digits)) == shown
