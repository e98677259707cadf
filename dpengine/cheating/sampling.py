"""Exact sampling for the cheating-detection designs: the random split into two groups, a
respondent's randomized report in their group, and simulated counts."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpengine._rational import as_fraction
from dpengine._validation import check_count
from dpengine.cheating.designs import (
    MAX_EXACT_DENOMINATOR,
    CheatingDesign,
    check_cheating_design,
    check_group,
    check_population_shares,
)
from dpengine.errors import DPEngineError, Reason
from dpengine.randomness import random_source, uniform_below

# --- sampling ---------------------------------------------------------------------------


def _thresholds(*probabilities: Fraction) -> tuple[int, tuple[int, ...]]:
    """A denominator ``D <= 2^64`` and integer thresholds ``k`` with ``P = k / D``.

    The rule of :mod:`dpengine.sampling`: exact for every denominator up to 2^64 (all dyadic
    and short decimal probabilities), else rounded to a multiple of 2^-64.
    """
    common = math.lcm(*(q.denominator for q in probabilities))
    if common <= MAX_EXACT_DENOMINATOR:
        return common, tuple(int(q * common) for q in probabilities)
    return MAX_EXACT_DENOMINATOR, tuple(
        min(round(q * MAX_EXACT_DENOMINATOR), MAX_EXACT_DENOMINATOR - 1) for q in probabilities
    )


def assign_groups(*, design: CheatingDesign, size: int, rng) -> np.ndarray:
    """``size`` independent group assignments: 1 with probability ``design.share``, else 2.

    One uniform integer per respondent compared with an exact rational threshold, as the
    browser does; ``rng`` as in :func:`dpengine.randomize`.
    """
    design = check_cheating_design(design)
    size = check_count("size", size)
    denominator, (threshold,) = _thresholds(as_fraction(design.share))
    draws = uniform_below(random_source(rng), denominator, (size,))
    return np.where(draws < np.uint64(threshold), 1, 2).astype(np.int64)


def randomize_in_group(truth, *, group, design: CheatingDesign, rng):
    """The report of a respondent who follows the instructions, given truth and group.

    A carrier (``truth`` True) reports "yes"; a non-carrier reports "yes" with probability
    ``r_g`` (CDM: ``p_g``; SLD: ``1 - p_g``). One uniform integer ``u < D`` per respondent
    decides (``u < r_g D``), so the probabilities are exact for dyadic designs such as the
    default (1/4, 3/4) and for decimal ones with a denominator up to 2^64 (see
    :mod:`dpengine.sampling`). ``truth`` is a bool or an array of bools, ``group`` 1 or 2 (or
    an array of the same shape); the result has the shape of ``truth``. Non-compliers are
    not sampled here: they say "no" whatever the coin says.
    """
    design = check_cheating_design(design)
    truth_arr = np.asarray(truth)
    if truth_arr.dtype != bool:
        raise DPEngineError(
            f"truth must be a bool or an array of bools, got {truth!r}",
            reason=Reason.INVALID_TYPE,
            field="truth",
        )
    group_arr = check_group(group)
    if group_arr.shape not in ((), truth_arr.shape):
        raise DPEngineError(
            f"group must be 1, 2 or an array shaped like truth {truth_arr.shape}, got shape "
            f"{group_arr.shape}",
            reason=Reason.SHAPE_MISMATCH,
            field="group",
        )
    denominator, (first, second) = _thresholds(
        design.exact_randomized_yes(1), design.exact_randomized_yes(2)
    )
    draws = uniform_below(random_source(rng), denominator, truth_arr.shape)
    thresholds = np.where(group_arr == 1, np.uint64(first), np.uint64(second))
    reports = truth_arr | (draws < thresholds)
    if truth_arr.ndim == 0:
        return bool(reports)
    return reports


def simulate_cheating_counts(
    *, design: CheatingDesign, n: int, rng, **shares: float
) -> tuple[int, int, int, int]:
    """Simulated counts ``(n1, yes1, n2, yes2)`` of ``n`` respondents under the model.

    CDM: pass ``pi`` and ``gamma`` (each respondent is an honest carrier with ``pi``, a
    cheater with ``gamma``, else an honest non-carrier). SLD: pass ``pi`` and ``t`` (a
    carrier with ``pi``, who answers honestly with ``t``; non-carriers comply). Groups come
    from :func:`assign_groups`, honest reports from :func:`randomize_in_group`, and every
    cheater says "no". Who is a carrier or a cheater is drawn from 53-bit uniforms (a
    simulation of the population, not a published probability). ``rng`` should be a NumPy
    generator (vectorised draws).
    """
    design = check_cheating_design(design)
    n = check_count("n", n)
    check_population_shares(design, shares, needs="simulation needs")
    source = random_source(rng)
    groups = assign_groups(design=design, size=n, rng=rng)
    u = np.asarray(uniform_below(source, 1 << 53, (n,)), dtype=np.float64) / float(1 << 53)
    if design.kind == "cdm":
        pi, gamma = shares["pi"], shares["gamma"]
        carrier = u < pi
        cheater = (u >= pi) & (u < pi + gamma)
    else:
        pi, t = shares["pi"], shares["t"]
        carrier = u < pi
        cheater = u < pi * (1 - t)  # a carrier who lies (u < pi (1 - t) <= pi)
    honest = randomize_in_group(carrier, group=groups, design=design, rng=rng)
    reports = honest & ~cheater
    in1 = groups == 1
    return (
        int(in1.sum()),
        int(reports[in1].sum()),
        int((~in1).sum()),
        int(reports[~in1].sum()),
    )
