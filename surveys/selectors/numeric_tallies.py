"""The histograms of randomized numeric reports (``models.NumericTally``), as kept at write
time: one row per value reported so far and shard, summed here, so a read costs the number of
distinct values (at most the range plus twice ``dpengine.report_bounds``' slack) times the
shards, not the number of responses.
"""

from dataclasses import dataclass

from ..models import NumericTally


@dataclass(frozen=True)
class NumericHistogram:
    """How many reports (``counts[i]``) were each value (``values[i]``), values ascending:
    what ``dpengine.estimate_share_above_from_histogram`` and
    ``dpengine.manipulation_check_from_histogram`` read."""

    values: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()

    @property
    def n(self) -> int:
        return sum(self.counts)


def numeric_histograms(*, question_ids) -> dict[int, NumericHistogram]:
    """The histogram of each of ``question_ids`` in one query (an empty one for a question
    without reports)."""
    rows = {question_id: ([], []) for question_id in question_ids}
    if not rows:
        return {}
    for question_id, report, count in (
        NumericTally.objects.filter(question_id__in=rows, count__gt=0)
        .totals()
        .order_by("question_id", "report")
    ):
        values, counts = rows[question_id]
        values.append(report)
        counts.append(count)
    return {
        question_id: NumericHistogram(values=tuple(values), counts=tuple(counts))
        for question_id, (values, counts) in rows.items()
    }
