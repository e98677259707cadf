"""The counts a submission adds to: tally shards (responses and reports per question), the
per-(question, grouping option) tallies, the regression's cells (per question and whole
combination of grouping answers) and the option counts; and simulated respondents, stored and
counted in bulk.

Reports read these counts instead of scanning submissions; ``group_tallies_rebuild``
recounts them from the stored rows whenever rows were missing.
"""

import random
import uuid

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Case, Count, F, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from dpengine import (
    simulate_choice_reports,
    simulate_numeric_reports,
    simulate_reports,
    tally_sum,
)

from .. import selectors
from ..models import (
    TALLY_SHARDS,
    GroupAnswer,
    GroupCell,
    GroupingOption,
    GroupingQuestion,
    GroupTally,
    Question,
    Submission,
    Survey,
    TallyShard,
    group_cell_key,
    question_key,
)


def tally_shard_pick():
    """The shard a submission adds to: any, at random (not a secret; spreads row locks)."""
    return random.randrange(TALLY_SHARDS)


def tally_add(survey_id, *, responses, reports, shard=0):
    """Add ``responses`` responses and, per question id, a tally vector (``(reports, yes
    reports)`` for yes/no, see ``dpengine.report_tally``), to one of the survey's tally shards,
    inside the caller's transaction.

    The row is read FOR UPDATE, so concurrent transactions on the same shard add up instead of
    overwriting each other's counts (on SQLite the transaction already holds the database's
    write lock). It is created first if missing, ignoring a concurrent creation.
    """
    TallyShard.objects.bulk_create(
        [TallyShard(survey_id=survey_id, shard=shard)], ignore_conflicts=True
    )
    tally = TallyShard.objects.select_for_update().get(survey_id=survey_id, shard=shard)
    for question_id, added in reports.items():
        key = question_key(question_id)
        tally.reports[key] = tally_sum(tally.reports.get(key, ()), added)
    tally.responses += responses
    tally.save(update_fields=["responses", "reports"])


def group_answers_record(*, survey_id, submission, answers, chosen):
    """Store the chosen options and add the submission to the per-(question, option) tallies
    and to its regression cells.

    A "Prefer not to say" (option None) is stored and counted on its grouping question, and
    is in no option's tallies: it is missing for breakdowns, not a group of its own. It is
    part of the cell's key (the regression leaves such cells out)."""
    GroupAnswer.objects.bulk_create(
        GroupAnswer(submission=submission, grouping_question_id=gid, option_id=oid)
        for gid, oid in chosen.items()
    )
    declined = [gid for gid, oid in chosen.items() if oid is None]
    if declined:
        GroupingQuestion.objects.filter(id__in=declined).update(
            declined_count=F("declined_count") + 1
        )
    options = [oid for oid in chosen.values() if oid is not None]
    GroupingOption.objects.filter(id__in=options).update(respondent_count=F("respondent_count") + 1)
    yes_ids = [qid for qid, bit in answers.items() if bit]
    if answers and chosen:
        key = group_cell_key(chosen)
        GroupCell.objects.bulk_create(
            (GroupCell(question_id=qid, key=key) for qid in sorted(answers)), ignore_conflicts=True
        )
        GroupCell.objects.filter(question_id__in=answers, key=key).update(
            report_count=F("report_count") + 1,
            yes_count=F("yes_count")
            + Case(When(question_id__in=yes_ids, then=Value(1)), default=Value(0)),
        )
    updated = GroupTally.objects.filter(question_id__in=answers, option_id__in=options).update(
        report_count=F("report_count") + 1,
        yes_count=F("yes_count")
        + Case(When(question_id__in=yes_ids, then=Value(1)), default=Value(0)),
    )
    if updated != len(answers) * len(options):
        # Rows missing (created when the survey opens, so: a survey opened before they were,
        # or rows removed): recount from the stored rows, this submission included.
        group_tallies_rebuild(survey=Survey.objects.get(pk=survey_id))


def group_tallies_ensure(*, survey):
    """Create the zero tally row of every (yes/no question, grouping option) pair that lacks
    one (breakdowns by group cover the yes/no questions)."""
    question_ids = list(
        survey.questions.filter(kind=Question.Kind.YES_NO).values_list("id", flat=True)
    )
    option_ids = list(
        GroupingOption.objects.filter(grouping_question__survey=survey).values_list("id", flat=True)
    )
    GroupTally.objects.bulk_create(
        (GroupTally(question_id=qid, option_id=oid) for qid in question_ids for oid in option_ids),
        ignore_conflicts=True,
    )


def _counts_by(queryset, field):
    return dict(queryset.values_list(field).annotate(n=Count("id")))


@transaction.atomic
def group_tallies_rebuild(*, survey):
    """Recount every per-(yes/no question, option) tally and option count from the stored
    rows."""
    question_ids = list(
        survey.questions.filter(kind=Question.Kind.YES_NO).values_list("id", flat=True)
    )
    # Per option, one pair of counts per question (reports, yes reports), in one query.
    aggregates = {}
    for qid in question_ids:
        key = question_key(qid)
        aggregates[f"n_{qid}"] = Count("id", filter=Q(submission__reports__has_key=key))
        aggregates[f"yes_{qid}"] = Count("id", filter=Q(**{f"submission__reports__{key}": True}))
    answers = GroupAnswer.objects.filter(submission__survey=survey)
    counts = answers.values("option_id").annotate(**aggregates)
    found = {
        (qid, row["option_id"]): (row[f"n_{qid}"], row[f"yes_{qid}"])
        for row in counts
        for qid in question_ids
    }
    options = list(GroupingOption.objects.filter(grouping_question__survey=survey))
    GroupTally.objects.filter(option__in=options).delete()
    GroupTally.objects.bulk_create(
        GroupTally(
            question_id=qid,
            option=option,
            report_count=found.get((qid, option.pk), (0, 0))[0],
            yes_count=found.get((qid, option.pk), (0, 0))[1],
        )
        for qid in question_ids
        for option in options
    )
    respondents = _counts_by(answers, "option_id")
    for option in options:
        option.respondent_count = respondents.get(option.pk, 0)
    GroupingOption.objects.bulk_update(options, ["respondent_count"])
    declined = _counts_by(answers.filter(option__isnull=True), "grouping_question_id")
    grouping_questions = list(GroupingQuestion.objects.filter(survey=survey))
    for grouping_question in grouping_questions:
        grouping_question.declined_count = declined.get(grouping_question.pk, 0)
    GroupingQuestion.objects.bulk_update(grouping_questions, ["declined_count"])
    group_cells_rebuild(survey=survey, question_ids=question_ids)


# The option a declined grouping answer is recounted under (ids start at 1).
_DECLINED = 0


def group_cells_rebuild(*, survey, question_ids):
    """Recount the regression's cells of ``question_ids`` (the survey's yes/no questions)
    from the stored rows, in one grouped query: each submission's answer to every grouping
    question (a correlated subquery each), grouped by that combination."""
    grouping_ids = sorted(
        GroupingQuestion.objects.filter(survey=survey).values_list("id", flat=True)
    )
    GroupCell.objects.filter(question_id__in=question_ids).delete()
    if not grouping_ids or not question_ids:
        return
    names = {f"g{gid}": gid for gid in grouping_ids}
    per_submission = GroupAnswer.objects.filter(submission=OuterRef("pk"))
    aggregates = {}
    for qid in question_ids:
        key = question_key(qid)
        aggregates[f"n_{qid}"] = Count("id", filter=Q(reports__has_key=key))
        aggregates[f"yes_{qid}"] = Count("id", filter=Q(**{f"reports__{key}": True}))
    rows = (
        Submission.objects.filter(survey=survey)
        .annotate(
            **{
                name: Subquery(
                    per_submission.filter(grouping_question=gid).values(
                        chosen=Coalesce("option_id", Value(_DECLINED))
                    )[:1]
                )
                for name, gid in names.items()
            }
        )
        .values(*names)
        .annotate(**aggregates)
        .order_by()
    )
    cells = []
    for row in rows:
        chosen = {
            gid: None if row[name] == _DECLINED else row[name]
            for name, gid in names.items()
            if row[name] is not None
        }
        if not chosen:
            continue  # no grouping answer: in no cell
        key = group_cell_key(chosen)
        cells.extend(
            GroupCell(
                question_id=qid,
                key=key,
                report_count=row[f"n_{qid}"],
                yes_count=row[f"yes_{qid}"],
            )
            for qid in question_ids
            if row[f"n_{qid}"]
        )
    GroupCell.objects.bulk_create(cells)


# --- simulated respondents (demos, tests, benchmarks) --------------------------------------


def _simulated_truths(question, share, n, rng):
    """True answers of ``n`` simulated respondents to a choice or numeric question."""
    if question.kind == Question.Kind.CHOICE:
        shares = np.asarray(share, dtype=float)
        if shares.shape != (len(question.options),) or not np.isclose(shares.sum(), 1):
            raise ValidationError(
                {"shares": [f"Expected {len(question.options)} option shares summing to 1."]}
            )
        return rng.choice(len(question.options), size=n, p=shares)
    lo, hi = question.min_value, question.max_value
    if not lo <= share <= hi:
        raise ValidationError({"shares": [f"Expected a true mean from {lo} to {hi}."]})
    # Binomial on the range: a bounded population whose mean is exactly ``share``.
    return lo + rng.binomial(hi - lo, (share - lo) / (hi - lo), size=n)


def simulated_reports_draw(*, survey, shares, n, rng) -> np.ndarray:
    """An n × questions array of randomized reports, as respondents' browsers would have sent
    them, each question through its own mechanism: column j from a population described by
    ``shares[j]``: a yes/no question's true share of "yes" (dpengine's ``simulate_reports``
    with the question's design), a multiple-choice question's k option shares, or a numeric
    question's true mean (answers binomial on the range). Boolean when every question is
    yes/no, integers otherwise (yes/no as 0/1, an option's index, a noisy number)."""
    questions = list(survey.questions.all())
    if len(shares) != len(questions):
        raise ValidationError({"shares": [f"Expected {len(questions)} values, one per question."]})
    columns = []
    for question, share in zip(questions, shares, strict=True):
        mechanism = selectors.question_mechanism(question, survey=survey)
        if question.kind == Question.Kind.TEXT:
            raise ValidationError({"shares": ["Text answers cannot be simulated."]})
        if mechanism is None:
            # Asked directly: the report is the true answer.
            if question.kind == Question.Kind.YES_NO:
                columns.append(rng.random(n) < share)
            else:
                columns.append(_simulated_truths(question, share, n, rng))
            continue
        if question.kind == Question.Kind.CHOICE:
            truths = _simulated_truths(question, share, n, rng)
            columns.append(simulate_choice_reports(truths, mechanism, rng))
        elif question.kind == Question.Kind.NUMERIC:
            truths = _simulated_truths(question, share, n, rng)
            columns.append(simulate_numeric_reports(truths, mechanism, rng))
        else:
            columns.append(simulate_reports(share, n, mechanism, rng))
    return np.column_stack(columns) if columns else np.zeros((n, 0), dtype=bool)


def simulated_tallies(questions, reports, total) -> dict:
    """The tally vector of each question's column of simulated reports (``report_tally``
    summed over the rows)."""
    tallies = {}
    for question, column in zip(questions, reports.T, strict=True):
        values = column.astype(np.int64)
        if question.kind == Question.Kind.CHOICE:
            counts = np.bincount(values, minlength=len(question.options))
            tallies[question.pk] = [total, *map(int, counts)]
        elif question.kind == Question.Kind.NUMERIC:
            tallies[question.pk] = [total, int(values.sum()), int((values * values).sum())]
        else:
            tallies[question.pk] = [total, int(values.sum())]
    return tallies


def _check_simulated_reports(questions, reports):
    for index, (question, column) in enumerate(zip(questions, reports.T, strict=True)):
        kind, low, high = (
            ("yes_no", 0, 1)
            if question.kind == Question.Kind.YES_NO
            else selectors.report_range(question)
        )
        if column.size and (column.min() < low or column.max() > high):
            raise ValidationError(
                {"reports": [f"Column {index} ({kind}) must hold values from {low} to {high}."]}
            )


def _check_simulated_options(*, grouping, options, total):
    if grouping and (len(options) != total or any(len(row) != len(grouping) for row in options)):
        raise ValidationError(
            {"options": [f"Expected {total} rows of {len(grouping)} option ids."]}
        )
    if options and not grouping:
        raise ValidationError({"options": ["This survey has no grouping questions."]})
    allowed = [{option.pk for option in gq.options.all()} for gq in grouping]
    for row in options:
        for valid, option_id in zip(allowed, row, strict=True):
            if option_id not in valid:
                raise ValidationError({"options": [f"{option_id!r} is not an option here."]})


@transaction.atomic
def simulated_submissions_record(
    *, survey, reports, options=None, received_on=None, batch_size=5000
) -> int:
    """Bulk-store simulated submissions: randomized reports, plus grouping answers if any.

    ``reports`` is an n × questions array whose rows already went through each question's
    mechanism (``simulated_reports_draw``: booleans or 0/1 for yes/no, an option's index, a
    noisy number), so they are stored exactly as a browser would have sent them. ``options``
    (n × grouping questions option ids) is required when the survey has
    grouping questions. For demos, tests and benchmarks; tallies are updated once at the end.
    """
    questions = list(survey.questions.all())
    grouping = list(survey.grouping_questions.prefetch_related("options"))
    if reports.ndim != 2 or reports.shape[1] != len(questions):
        raise ValidationError(
            {"reports": [f"Expected an n × {len(questions)} array, got shape {reports.shape}."]}
        )
    total = int(reports.shape[0])
    _check_simulated_reports(questions, reports)
    options = [] if options is None else [list(row) for row in options]
    _check_simulated_options(grouping=grouping, options=options, total=total)
    received_on = received_on or timezone.now().date()
    keys = [question_key(question.pk) for question in questions]
    # As submission_receive stores them: a boolean for yes/no, an integer otherwise.
    typed = [bool if question.kind == Question.Kind.YES_NO else int for question in questions]
    for start in range(0, total, batch_size):
        chunk = reports[start : start + batch_size]
        submissions = Submission.objects.bulk_create(
            Submission(
                survey=survey,
                submission_id=uuid.uuid4(),
                received_on=received_on,
                reports={
                    key: kind(value) for key, kind, value in zip(keys, typed, row, strict=True)
                },
            )
            for row in chunk
        )
        if grouping:
            GroupAnswer.objects.bulk_create(
                (
                    GroupAnswer(submission=submission, grouping_question=gq, option_id=int(option))
                    for submission, row in zip(
                        submissions, options[start : start + batch_size], strict=True
                    )
                    for gq, option in zip(grouping, row, strict=True)
                ),
                batch_size=batch_size,
            )
    tally_add(survey.pk, responses=total, reports=simulated_tallies(questions, reports, total))
    if grouping:
        group_tallies_rebuild(survey=survey)
    return total
