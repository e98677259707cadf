"""The regression's cells of a question compared with asking directly: its randomized arm
alone.

A compared question's report is a code (``control_arms``): 0/1 the randomized report, 2/3 the
direct answer. The regression models the true answer through the question's design, which
only the randomized arm's reports carry, so it is fitted on that arm alone (the control group's
answers are direct, with ``P(yes | truth) = truth``, another model; the page and the API say
which arm was used). There are no per-cell tallies of codes (``models.GroupCell`` counts one-bit
reports), so the cells are counted by one grouped query over the released submissions: each
grouping question's answer of a submission by a subquery, counted by the database, a row per
combination back. Reads only.
"""

from collections import Counter

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.fields.json import KeyTransform

from ..models import GroupAnswer, Submission, question_key
from .control_arms import FIRST_DIRECT_CODE

RANDOMIZED_ARM = "randomized"  # Regression.arm of a compared question


def compared_regression_cells(*, survey, question, grouping):
    """``(cells, left_out)`` as ``regression._regression_rows`` gives them: a ``Counter`` of
    (option ids tuple in ``grouping`` order, reported yes) over the randomized arm's reports,
    and how many of that arm's reports lack some grouping answer (skipped, "Prefer not to
    say")."""
    key = question_key(question.pk)
    randomized = Q()
    for code in range(FIRST_DIRECT_CODE):
        randomized |= Q(**{f"reports__{key}": code})
    submissions = Submission.objects.filter(survey=survey).filter(randomized)
    chosen = {
        f"g{index}": Subquery(
            GroupAnswer.objects.filter(submission=OuterRef("pk"), grouping_question=gq).values(
                "option"
            )[:1]
        )
        for index, gq in enumerate(grouping)
    }
    rows = (
        submissions.annotate(**chosen)
        .values(*chosen, code=KeyTransform(key, "reports"))
        .annotate(reports=Count("pk"))
        .order_by()
    )
    options = [{option.pk for option in gq.options.all()} for gq in grouping]
    cells, left_out = Counter(), 0
    for row in rows:
        combination = tuple(row[f"g{index}"] for index in range(len(grouping)))
        if all(oid in allowed for oid, allowed in zip(combination, options, strict=True)):
            cells[(combination, int(row["code"]) == 1)] += row["reports"]
        else:
            left_out += row["reports"]
    return +cells, left_out
