"""The control group's comparison as a CSV file (``control_group.csv``): per question compared
with asking directly, both arms and their difference (``selectors.control_group``). In the
results page's ZIP when the survey compares a question, and at the API's
``control-group.csv``; the codes of the raw reports are in the codebook."""

from collections.abc import Iterator

from ..selectors.control_group import ControlGroupResults, survey_control_group

CONTROL_GROUP_FILE = "control_group.csv"
CONTROL_GROUP_HEADER = [
    "column",
    "question_id",
    "question",
    "status",
    "control_share",
    "randomized_n",
    "randomized_yes_reports",
    "randomized_estimate",
    "randomized_ci_low",
    "randomized_ci_high",
    "randomized_ci_method",
    "direct_n",
    "direct_yes",
    "direct_share",
    "direct_ci_low",
    "direct_ci_high",
    "difference",
    "difference_ci_low",
    "difference_ci_high",
    "difference_method",
    "p_value_more_is_better",
    "confidence",
]


def control_group_csv_rows(results: ControlGroupResults, *, label=str) -> Iterator[list]:
    """The header, then one row per compared question. ``difference`` is the randomized
    estimate minus the direct share (both clamped to [0, 1]) with its exact product interval;
    ``p_value_more_is_better`` the one-sided p-value of "randomized reveals more" (normal
    theory, ``dpengine.compare_direct``). Suppressed rows (an arm below min_n) keep their
    counts only."""
    yield CONTROL_GROUP_HEADER
    for row in results.rows:
        values = row.as_dict()
        randomized, direct = row.randomized, row.direct
        cells = {
            **values,
            "question": label(row.text),
            "control_share": results.control_share,
            "randomized_ci_low": None if randomized is None else randomized.ci_low,
            "randomized_ci_high": None if randomized is None else randomized.ci_high,
            "randomized_ci_method": None if randomized is None else randomized.method,
            "direct_ci_low": None if direct is None else direct.ci_low,
            "direct_ci_high": None if direct is None else direct.ci_high,
            "difference_ci_low": None if row.shown is None else row.shown.low,
            "difference_ci_high": None if row.shown is None else row.shown.high,
            "confidence": results.confidence,
        }
        yield [cells.get(name) for name in CONTROL_GROUP_HEADER]


def control_group_members(survey, options, *, label=str) -> list:
    """The ZIP's ``control_group.csv`` as ``[(name, rows, large)]`` at the request's interval
    (``options``: ``method`` and ``confidence``, else the survey's); none when the survey
    compares no question."""
    if not survey.questions.filter(compare_direct=True).exists():
        return []
    results = survey_control_group(
        survey=survey, confidence=options.get("confidence"), method=options.get("method")
    )
    return [(CONTROL_GROUP_FILE, control_group_csv_rows(results, label=label), False)]
