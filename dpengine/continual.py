"""Continual counting: a running count released T times under one total epsilon.

The binary-tree (hierarchical) mechanism of Chan, Shi & Song (2011, "Private and continual
release of statistics", ACM TISSEC 14(3), section 3.4) and Dwork, Naor, Pitassi & Rothblum
(2010, "Differential privacy under continual observation", STOC). The stream is a sequence
of per-period increments ``x_1, ..., x_T`` (say, new respondents per day); after period
``t`` the prefix count ``x_1 + ... + x_t`` is released.

Naively each release would get fresh noise for ``epsilon / T`` (sequential composition), so
its noise grows linearly in ``T``. The tree instead adds noise to dyadic blocks: node
``(level j, index k)`` holds ``x_i`` summed over steps ``i`` in ``[k 2^j + 1, (k + 1) 2^j]``
plus its own noise. The prefix count at ``t`` is the sum of the nodes of the binary
decomposition of ``t`` (one per set bit of ``t``: at most ``L = floor(log2 T) + 1``), and
one increment lies in one node per level, of which only levels ``j <= floor(log2 T)`` have
nodes that ever end by step ``T``: at most ``L`` released nodes (step 1 attains it; the
decomposition only ever uses left children, even ``k``, so most steps touch fewer). One
person changing one increment by 1 therefore changes at most ``L`` node values by 1 each (L1
sensitivity ``L``), so discrete Laplace noise of scale ``L / epsilon`` per node makes the
whole stream of ``T`` prefix counts ``epsilon``-differentially private (Dwork & Roth 2014,
Theorem 3.6 applied to the vector of nodes; the counts are post-processing). The noise of
the count at ``t`` has variance ``popcount(t) * V(L / epsilon)`` with ``V(s) = 2q / (1 - q)^2``,
``q = exp(-1/s)``, the discrete Laplace variance: ``O(log(T)^3 / epsilon^2)``
against ``O(T^2 / epsilon^2)`` for naive composition.

``L = floor(log2 T) + 1`` (``T.bit_length()``), one less than the ``ceil(log2 T) + 1``
levels of a complete tree when ``T`` is not a power of two: a node that would end after
step ``T`` is never released, so it needs no budget.

Noise is drawn once per node, exactly (``sample_discrete_laplace``: integers, no
floating-point Laplace, Mironov 2012), when a release first needs the node, and the noisy
node values are returned so a caller can store them and pass them back: a recomputation
reuses them and never draws again, otherwise repeated recomputation would average the
noise away. A node's stored noisy value is authoritative even if the caller's increments
for its steps have changed since.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction, fmt, is_integer, is_real_number
from dpengine.errors import DPEngineError, Reason
from dpengine.mechanisms import sample_discrete_laplace

__all__ = [
    "ContinualCounts",
    "TreeNode",
    "composition_noise_variance",
    "continual_counts",
    "discrete_laplace_variance",
    "increment_nodes",
    "prefix_nodes",
    "tree_levels",
    "tree_node_scale",
    "tree_noise_variance",
]


@dataclass(frozen=True, order=True)
class TreeNode:
    """The dyadic block of steps ``first..last`` = ``k 2^j + 1 .. (k + 1) 2^j`` (1-based)."""

    level: int
    index: int

    @property
    def first(self) -> int:
        return self.index * 2**self.level + 1

    @property
    def last(self) -> int:
        return (self.index + 1) * 2**self.level

    @property
    def key(self) -> str:
        """``"level:index"``, for storing noisy node values as JSON."""
        return f"{self.level}:{self.index}"


def _positive(name: str, value: object) -> Fraction:
    if not is_real_number(value) or not math.isfinite(float(value)) or value <= 0:
        raise DPEngineError(
            f"{name} must be a positive finite number, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    return as_fraction(value)


def _check_horizon(horizon: object) -> int:
    if not is_integer(horizon) or horizon < 1:
        raise DPEngineError(
            f"horizon must be a positive integer, got {fmt(horizon)}",
            reason=Reason.OUT_OF_RANGE,
            field="horizon",
        )
    return int(horizon)


def _check_step(step: object, horizon: int) -> int:
    if not is_integer(step) or not 1 <= step <= horizon:
        raise DPEngineError(
            f"step must be an integer from 1 to {horizon}, got {fmt(step)}",
            reason=Reason.OUT_OF_RANGE,
            field="step",
        )
    return int(step)


def tree_levels(horizon: int) -> int:
    """``L = floor(log2 T) + 1``: the most released nodes one increment can lie in."""
    return _check_horizon(horizon).bit_length()


def prefix_nodes(step: int) -> tuple[TreeNode, ...]:
    """The nodes whose sum is the count after ``step``: one per set bit, earliest first.

    ``6 = 4 + 2``: the block of steps 1-4 (level 2) and the block 5-6 (level 1).
    """
    if not is_integer(step) or step < 1:
        raise DPEngineError(
            f"step must be a positive integer, got {fmt(step)}",
            reason=Reason.OUT_OF_RANGE,
            field="step",
        )
    nodes, start = [], 0
    for level in range(int(step).bit_length() - 1, -1, -1):
        if step >> level & 1:
            nodes.append(TreeNode(level, start >> level))
            start += 1 << level
    return tuple(nodes)


def increment_nodes(step: int, *, horizon: int) -> tuple[TreeNode, ...]:
    """The nodes that contain the increment of ``step`` and are released by ``horizon``."""
    horizon = _check_horizon(horizon)
    step = _check_step(step, horizon)
    nodes = (TreeNode(level, (step - 1) >> level) for level in range(horizon.bit_length()))
    # A prefix uses left children only (a block starting at a multiple of twice its size).
    return tuple(node for node in nodes if node.index % 2 == 0 and node.last <= horizon)


def tree_node_scale(*, horizon: int, epsilon: float | Fraction) -> Fraction:
    """The discrete Laplace scale of each node, ``L / epsilon``, exact."""
    return Fraction(tree_levels(horizon)) / _positive("epsilon", epsilon)


def discrete_laplace_variance(scale: float | Fraction) -> float:
    """``2 q / (1 - q)^2`` with ``q = exp(-1 / scale)``: the variance of discrete Laplace noise."""
    q = math.exp(-1 / float(_positive("scale", scale)))
    return 2 * q / (1 - q) ** 2


def tree_noise_variance(step: int, *, horizon: int, epsilon: float | Fraction) -> float:
    """The variance of the noise in the count after ``step``: ``popcount(step) V(L / eps)``."""
    horizon = _check_horizon(horizon)
    step = _check_step(step, horizon)
    scale = tree_node_scale(horizon=horizon, epsilon=epsilon)
    return len(prefix_nodes(step)) * discrete_laplace_variance(scale)


def composition_noise_variance(*, releases: int, epsilon: float | Fraction) -> float:
    """For comparison: each of ``releases`` counts noised for ``epsilon / releases``.

    Sequential composition (Dwork & Roth 2014, Theorem 3.16) with fresh discrete Laplace
    noise of scale ``releases / epsilon`` per release: variance ``V(releases / epsilon)``.
    """
    releases = _check_horizon(releases)
    return discrete_laplace_variance(releases / _positive("epsilon", epsilon))


@dataclass(frozen=True)
class ContinualCounts:
    counts: tuple[int, ...]  # the noisy count after each step 1..len(increments)
    nodes: dict[str, int]  # every noisy node value the counts use, by TreeNode.key
    drawn: tuple[str, ...]  # the keys of the nodes whose noise this call drew


def continual_counts(
    increments: Sequence[int],
    *,
    horizon: int,
    epsilon: float | Fraction,
    nodes: Mapping[str, int] | None = None,
    rng: object = None,
) -> ContinualCounts:
    """The noisy prefix counts of ``increments`` by the binary-tree mechanism.

    ``increments[t - 1]`` is the exact increment of step ``t`` (integers); at most
    ``horizon`` steps. Every node needed gets exact discrete Laplace noise of scale
    ``floor(log2 horizon) + 1`` over ``epsilon`` unless ``nodes`` already holds its noisy
    value (from an earlier call), which is then used as it is. The ``horizon`` releases
    together are ``epsilon``-differentially private when one person changes one increment by
    at most 1 (see the module). ``rng``: as for :func:`geometric_mechanism`.
    References: Chan, Shi & Song (2011), section 3.4; Dwork, Naor, Pitassi & Rothblum (2010).
    """
    horizon = _check_horizon(horizon)
    if len(increments) > horizon:
        raise DPEngineError(
            f"increments may hold at most horizon={horizon} steps, got {len(increments)}",
            reason=Reason.SHAPE_MISMATCH,
            field="increments",
        )
    for index, value in enumerate(increments):
        if not is_integer(value):
            raise DPEngineError(
                f"increments[{index}] must be an integer, got {fmt(value)}",
                reason=Reason.INVALID_TYPE,
                field="increments",
            )
    scale = tree_node_scale(horizon=horizon, epsilon=epsilon)
    noisy = {}
    for key, value in (nodes or {}).items():
        if not is_integer(value):
            raise DPEngineError(
                f"nodes[{key!r}] must be an integer, got {fmt(value)}",
                reason=Reason.INVALID_TYPE,
                field="nodes",
            )
        noisy[key] = int(value)
    prefix = [0]
    for value in increments:
        prefix.append(prefix[-1] + int(value))
    counts, drawn = [], []
    for step in range(1, len(increments) + 1):
        total = 0
        for node in prefix_nodes(step):
            if node.key not in noisy:
                exact = prefix[node.last] - prefix[node.first - 1]
                noisy[node.key] = exact + sample_discrete_laplace(scale, rng)
                drawn.append(node.key)
            total += noisy[node.key]
        counts.append(total)
    return ContinualCounts(counts=tuple(counts), nodes=noisy, drawn=tuple(drawn))
