"""The binary-tree mechanism for continual counting (dpengine.continual)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpengine import (
    SeededRandomSource,
    TreeNode,
    composition_noise_variance,
    continual_counts,
    discrete_laplace_pmf,
    discrete_laplace_variance,
    increment_nodes,
    prefix_nodes,
    tree_levels,
    tree_node_scale,
    tree_noise_variance,
)


def released_nodes(horizon):
    """Every node any of the ``horizon`` releases uses."""
    return {node for step in range(1, horizon + 1) for node in prefix_nodes(step)}


def node_sums(increments, nodes):
    return {node: sum(increments[node.first - 1 : node.last]) for node in nodes}


# --- structure: exact, by enumeration ----------------------------------------------------


@pytest.mark.parametrize("step", range(1, 130))
def test_a_prefix_is_the_disjoint_union_of_one_block_per_set_bit(step):
    nodes = prefix_nodes(step)
    covered = [i for node in nodes for i in range(node.first, node.last + 1)]
    assert covered == list(range(1, step + 1))
    assert len(nodes) == bin(step).count("1")


def test_six_is_the_block_one_to_four_and_the_block_five_to_six():
    assert prefix_nodes(6) == (TreeNode(2, 0), TreeNode(1, 2))
    assert [(n.first, n.last, n.key) for n in prefix_nodes(6)] == [(1, 4, "2:0"), (5, 6, "1:2")]


@pytest.mark.parametrize("horizon", [1, 2, 3, 5, 7, 8, 30, 31, 32, 33, 100, 128])
def test_each_increment_lies_in_at_most_floor_log2_t_plus_one_released_nodes(horizon):
    levels = tree_levels(horizon)
    assert levels == math.floor(math.log2(horizon)) + 1
    released = released_nodes(horizon)
    touched = []
    for step in range(1, horizon + 1):
        containing = {node for node in released if node.first <= step <= node.last}
        assert containing == set(increment_nodes(step, horizon=horizon))
        touched.append(len(containing))
    assert max(touched) == levels  # the bound is attained: it cannot be lowered


@pytest.mark.parametrize("horizon", [5, 16, 30])
def test_the_stream_of_releases_is_epsilon_dp_for_one_changed_increment(horizon):
    # Neighbours: one step's increment differs by 1. The released node values then differ
    # in L1 by at most L, so with noise of scale L / epsilon every output's probability
    # changes by a factor of at most exp(L1 / scale) <= exp(epsilon) (the counts are sums of
    # nodes: post-processing). Checked exactly for every step and both directions.
    epsilon = Fraction(1, 2)
    scale = tree_node_scale(horizon=horizon, epsilon=epsilon)
    assert scale == Fraction(tree_levels(horizon)) / epsilon
    released = released_nodes(horizon)
    base = [
        3,
        0,
        1,
        4,
        1,
        5,
        9,
        2,
        6,
        5,
        3,
        5,
        8,
        9,
        7,
        9,
        3,
        2,
        3,
        8,
        4,
        6,
        2,
        6,
        4,
        3,
        3,
        8,
        3,
        2,
    ]
    base = base[:horizon]
    worst = 0
    for step in range(horizon):
        for delta in (1, -1):
            neighbour = list(base)
            neighbour[step] += delta
            a, b = node_sums(base, released), node_sums(neighbour, released)
            worst = max(worst, sum(abs(a[node] - b[node]) for node in released))
    assert worst == tree_levels(horizon)
    assert Fraction(worst) / scale == epsilon


# --- noise: exact variance formula, then a seeded simulation against it -------------------


@pytest.mark.parametrize("scale", [Fraction(1, 2), 1, Fraction(5, 2), 12])
def test_the_discrete_laplace_variance_formula_matches_its_pmf(scale):
    z = np.arange(-4000, 4001)
    direct = float(np.sum(z.astype(float) ** 2 * discrete_laplace_pmf(z, scale=float(scale))))
    assert discrete_laplace_variance(scale) == pytest.approx(direct, rel=1e-12)


@pytest.mark.slow
def test_the_noise_variance_at_each_step_matches_a_seeded_simulation():
    # 3000 seeded runs of a 16-step stream of zeros (L = 5, epsilon 2: node scale 5/2,
    # node variance 2q/(1-q)^2 = 12.58). The sample variance of heavy-tailed discrete
    # Laplace sums has a relative standard error of about sqrt((kurtosis - 1) / n) <= 0.04
    # here; 0.15 is more than 3.5 of them. Means: within 4 standard errors of 0.
    horizon, epsilon, runs = 16, 2, 3000
    rng = SeededRandomSource(20261123)
    draws = np.array(
        [
            continual_counts([0] * horizon, horizon=horizon, epsilon=epsilon, rng=rng).counts
            for _ in range(runs)
        ]
    )
    for step in range(1, horizon + 1):
        expected = tree_noise_variance(step, horizon=horizon, epsilon=epsilon)
        assert expected == len(prefix_nodes(step)) * discrete_laplace_variance(Fraction(5, 2))
        column = draws[:, step - 1]
        assert column.var() == pytest.approx(expected, rel=0.15), step
        assert abs(column.mean()) < 4 * math.sqrt(expected / runs), step


def test_the_error_grows_polylogarithmically_not_linearly():
    # The tree's worst step (T = 2^k - 1: all L bits set) against naive composition over T
    # releases. With x = 1 / (2 s), V(s) = 1 / (2 sinh(x)^2), between 2 s^2 - 1/6 and 2 s^2.
    epsilon = 1
    ratios = []
    for horizon in [2**k - 1 for k in (4, 8, 12, 16)]:
        levels = tree_levels(horizon)
        tree = tree_noise_variance(horizon, horizon=horizon, epsilon=epsilon)  # L nodes
        naive = composition_noise_variance(releases=horizon, epsilon=epsilon)
        assert tree <= 2 * levels**3 / epsilon**2  # L nodes of scale L / epsilon: L^3
        # Scale T / epsilon >= 15 here: at least 1.9 s^2, quadratic in T.
        assert naive >= 1.9 * horizon**2 / epsilon**2
        ratios.append(naive / tree)
    assert ratios == sorted(ratios) and ratios[-1] > 1000 * ratios[0]


# --- state: noise is drawn once, reused from stored nodes ----------------------------------


def test_stored_nodes_are_reused_and_only_new_nodes_are_drawn():
    increments = [2, 0, 1, 3, 1, 0, 4]
    first = continual_counts(increments[:5], horizon=8, epsilon=1, rng=SeededRandomSource(1))
    assert set(first.drawn) == {n.key for t in range(1, 6) for n in prefix_nodes(t)}

    class NoRandomness:
        def randbelow(self, n):
            raise AssertionError("noise drawn again")

    again = continual_counts(
        increments[:5], horizon=8, epsilon=1, nodes=first.nodes, rng=NoRandomness()
    )
    assert again.counts == first.counts and again.drawn == ()
    later = continual_counts(
        increments, horizon=8, epsilon=1, nodes=first.nodes, rng=SeededRandomSource(2)
    )
    assert later.counts[:5] == first.counts
    # One new node per new step: the block that ends at that step.
    assert later.drawn == ("1:2", "0:6")
    assert later.counts[6] == later.nodes["2:0"] + later.nodes["1:2"] + later.nodes["0:6"]


def test_counts_are_exact_sums_of_noisy_nodes_and_seeded_runs_repeat():
    a = continual_counts([1] * 10, horizon=10, epsilon=1, rng=SeededRandomSource(7))
    b = continual_counts([1] * 10, horizon=10, epsilon=1, rng=SeededRandomSource(7))
    assert a == b
    for step, count in enumerate(a.counts, start=1):
        assert count == sum(a.nodes[n.key] for n in prefix_nodes(step))
    assert all(isinstance(value, int) for value in a.nodes.values())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"increments": [1, 2, 3], "horizon": 2, "epsilon": 1}, "at most horizon=2"),
        ({"increments": [1.5], "horizon": 2, "epsilon": 1}, r"increments\[0\]"),
        ({"increments": [1], "horizon": 0, "epsilon": 1}, "horizon"),
        ({"increments": [1], "horizon": 2, "epsilon": 0}, "epsilon"),
        ({"increments": [1], "horizon": 2, "epsilon": 1, "nodes": {"0:0": 0.5}}, "nodes"),
    ],
)
def test_bad_arguments_are_refused_naming_them(kwargs, message):
    with pytest.raises(ValueError, match=message):
        continual_counts(**kwargs)
