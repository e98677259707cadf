"""dpengine: randomized-response surveys with local differential privacy.

Pure Python + NumPy/SciPy, no I/O. The stable entry points are :class:`ForcedResponse`,
:func:`estimate` and :func:`required_sample_size`; see each module for the rest:
``designs`` (yes/no designs), ``choice`` (multiple choice), ``numeric`` (bounded
numbers), ``errors`` (typed refusals), ``randomness`` (the one random-source protocol).

SciPy is imported inside the functions that use it (scipy.stats, scipy.special), not at
module level: importing it costs about 40 MB of memory in every process that imports the
package, and most web workers (submissions, exports) never compute an interval.
"""

from dpengine.accounting import (
    PrivacyLedger,
    PrivacyReport,
    group_privacy_epsilon,
    per_answer_epsilon,
    privacy_ledger,
    privacy_report,
    question_epsilon,
    sequential_composition,
    survey_epsilon,
)
from dpengine.choice import (
    ChoiceEstimate,
    KaryRandomizedResponse,
    estimate_choice,
    project_to_simplex,
    randomize_choice,
    required_sample_size_choice,
)
from dpengine.comparison import Comparison, compare
from dpengine.continual import (
    ContinualCounts,
    TreeNode,
    composition_noise_variance,
    continual_counts,
    discrete_laplace_variance,
    increment_nodes,
    prefix_nodes,
    tree_levels,
    tree_node_scale,
    tree_noise_variance,
)
from dpengine.coverage import CoverageProfile, exact_coverage
from dpengine.designs import (
    CLASSIC,
    DEFAULT_PRESET,
    DESIGNS,
    PRESETS,
    R_MODEL_NAMES,
    ForcedResponse,
    Kuk,
    Mangat,
    Preset,
    RModel,
    UnrelatedQuestion,
    Warner,
    YesNoDesign,
)
from dpengine.errors import DPEngineError, Reason
from dpengine.estimation import Estimate, estimate, required_sample_size
from dpengine.intervals import (
    DEFAULT_METHOD,
    METHODS,
    ConfidenceInterval,
    binomial_interval,
    prevalence_interval,
    z_value,
)
from dpengine.mechanisms import (
    bernoulli_exp,
    discrete_laplace_pmf,
    exponential_mechanism,
    geometric_mechanism,
    laplace_mechanism,
    sample_discrete_laplace,
)
from dpengine.numeric import (
    BoundedNumeric,
    NumericEstimate,
    estimate_mean,
    estimate_mean_from_sums,
    estimate_share_above,
    randomize_number,
    required_sample_size_mean,
    required_sample_size_share,
    share_above_filter,
)
from dpengine.planning import (
    margin_for_epsilon,
    margin_for_sample_size,
    power_difference,
    required_sample_size_difference,
)
from dpengine.randomness import (
    RandomSource,
    SeededRandomSource,
    SystemRandomSource,
    random_source,
)
from dpengine.regression import FitError, LogisticFit, fit_logistic
from dpengine.sampling import bernoulli, randomize, secure_rng, simulate_reports
from dpengine.simulation import (
    SimulatedEstimates,
    simulate_choice_reports,
    simulate_estimates,
    simulate_numeric_reports,
)

__all__ = [
    "CLASSIC",
    "DEFAULT_METHOD",
    "DEFAULT_PRESET",
    "DESIGNS",
    "METHODS",
    "PRESETS",
    "R_MODEL_NAMES",
    "BoundedNumeric",
    "ChoiceEstimate",
    "Comparison",
    "ConfidenceInterval",
    "ContinualCounts",
    "CoverageProfile",
    "DPEngineError",
    "Estimate",
    "FitError",
    "ForcedResponse",
    "KaryRandomizedResponse",
    "Kuk",
    "LogisticFit",
    "Mangat",
    "NumericEstimate",
    "Preset",
    "PrivacyLedger",
    "PrivacyReport",
    "RModel",
    "RandomSource",
    "Reason",
    "SeededRandomSource",
    "SimulatedEstimates",
    "SystemRandomSource",
    "TreeNode",
    "UnrelatedQuestion",
    "Warner",
    "YesNoDesign",
    "bernoulli",
    "bernoulli_exp",
    "binomial_interval",
    "compare",
    "composition_noise_variance",
    "continual_counts",
    "discrete_laplace_pmf",
    "discrete_laplace_variance",
    "estimate",
    "estimate_choice",
    "estimate_mean",
    "estimate_mean_from_sums",
    "estimate_share_above",
    "exact_coverage",
    "exponential_mechanism",
    "fit_logistic",
    "geometric_mechanism",
    "group_privacy_epsilon",
    "increment_nodes",
    "laplace_mechanism",
    "margin_for_epsilon",
    "margin_for_sample_size",
    "per_answer_epsilon",
    "power_difference",
    "prefix_nodes",
    "prevalence_interval",
    "privacy_ledger",
    "privacy_report",
    "project_to_simplex",
    "question_epsilon",
    "random_source",
    "randomize",
    "randomize_choice",
    "randomize_number",
    "required_sample_size",
    "required_sample_size_choice",
    "required_sample_size_difference",
    "required_sample_size_mean",
    "required_sample_size_share",
    "sample_discrete_laplace",
    "secure_rng",
    "sequential_composition",
    "share_above_filter",
    "simulate_choice_reports",
    "simulate_estimates",
    "simulate_numeric_reports",
    "simulate_reports",
    "survey_epsilon",
    "tree_levels",
    "tree_node_scale",
    "tree_noise_variance",
    "z_value",
]
