"""The counts a submission adds to: tally shards (responses and reports per question), the
histograms of randomized numeric reports, the per-(question, grouping option) tallies and the
option counts; and simulated respondents, stored and counted in bulk.

Reports read these counts instead of scanning submissions; ``group_tallies_rebuild``
recounts them from the stored rows whenever rows were missing.
"""

import random
import uuid

import numpy as np
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Case, Count, F, Q, Value, When
from django.utils import timezone

from dpengine import (
    assign_groups,
    randomize_in_group,
    simulate_choice_reports,
    simulate_numeric_reports,
    simulate_reports,
    tally_sum,
)

from .. import selectors
from ..models import (
    TALLY_SHARDS,
    GroupAnswer,
    GroupingOption,
    GroupingQuestion,
    GroupTally,
    NumericTally,
    Question,
    Submission,
    Survey,
    TallyShard,
    question_key,
    random_key,
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


def numeric_tallies_add(counts):
    """Add ``counts`` (``{(question id, report): reports}``) to the questions' histograms
    (``NumericTally``) inside the caller's transaction, creating the missing rows (ignoring a
    concurrent creation). In (question, report) order, as the submission statement, so
    concurrent writers take the rows' locks in one order."""
    keys = sorted(counts)
    NumericTally.objects.bulk_create(
        [NumericTally(question_id=qid, report=report, count=0) for qid, report in keys],
        ignore_conflicts=True,
    )
    for qid, report in keys:
        if not NumericTally.objects.filter(question_id=qid, report=report).update(
            count=F("count") + counts[qid, report]
        ):
            # Its random key met another row's (about n²/2⁶⁴): nothing stored, as a replay.
            raise IntegrityError(f"no histogram row for question {qid}, report {report}")


def numeric_tallies_bulk_add(counts, *, batch_size=2000):
    """``numeric_tallies_add`` for many values at once (simulated respondents): one upsert
    per batch that adds to the stored counts, in the database."""
    table = NumericTally._meta.db_table
    keys = sorted(counts)
    with connection.cursor() as cursor:
        for start in range(0, len(keys), batch_size):
            batch = keys[start : start + batch_size]
            cursor.execute(
                f"INSERT INTO {table} AS h (id, question_id, report, count)"
                f" VALUES {', '.join(['(%s, %s, %s, %s)'] * len(batch))}"
                " ON CONFLICT (question_id, report) DO UPDATE SET count = h.count + excluded.count",
                [
                    value
                    for qid, report in batch
                    for value in (random_key(), qid, report, counts[qid, report])
                ],
            )


def group_answers_record(*, survey_id, submission, answers, chosen):
    """Store the chosen options and add the submission to the per-(question, option) tallies.

    A "Prefer not to say" (option None) is stored and counted on its grouping question, and
    is in no option's tallies: it is missing for breakdowns, not a group of its own."""
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
    updated = GroupTally.objects.filter(question_id__in=answers, option_id__in=options).update(
        report_count=F("report_count") + 1,
        yes_count=F("yes_count")
        + Case(When(question_id__in=yes_ids, then=Value(1)), default=Value(0)),
    )
    if updated != len(answers) * len(options):
        # Rows missing (created when the survey opens, so: a survey opened before they were,
        # or rows removed): recount from the stored rows, this submission included.
        group_tallies_rebuild(survey=Survey.objects.get(pk=survey_id))


def _bit_question_ids(survey):
    """The yes/no questions whose report is a bit (a cheating-detection one, and one compared
    with asking directly, send a code); the comprehension check's hidden ones too, as the
    submission's statement counts them."""
    return [
        question.pk
        for question in Question.all_objects.filter(
            survey=survey, kind=Question.Kind.YES_NO, compare_direct=False
        )
        if not selectors.is_cheating_detection(question)
    ]


def group_tallies_ensure(*, survey):
    """Create the zero tally row of every (yes/no question, grouping option) pair that lacks
    one (breakdowns by group cover the yes/no questions)."""
    question_ids = _bit_question_ids(survey)
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
    question_ids = _bit_question_ids(survey)
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


def _simulated_codes(design, share, n, rng):
    """Codes 2 × (group - 1) + bit of ``n`` compliant respondents to a cheating-detection
    question whose true share of "yes" is ``share`` (dpengine's samplers, as the browser)."""
    groups = assign_groups(design=design, size=n, rng=rng)
    truths = rng.random(n) < share
    bits = randomize_in_group(truths, group=groups, design=design, rng=rng)
    return 2 * (groups - 1) + np.asarray(bits, dtype=np.int64)


def simulated_reports_draw(*, survey, shares, n, rng) -> np.ndarray:
    """An n × questions array of randomized reports, as respondents' browsers would have sent
    them, each question through its own mechanism: column j from a population described by
    ``shares[j]``: a yes/no question's true share of "yes" (dpengine's ``simulate_reports``
    with the question's design), a multiple-choice question's k option shares, or a numeric
    question's true mean (answers binomial on the range). Boolean when every question is
    yes/no, integers otherwise (yes/no as 0/1, an option's index, a noisy number).

    A question compared with asking directly (``compare_direct``) gets codes: each row is in
    the direct arm with the survey's ``control_share`` (one draw per row, as one browser asks
    every compared question in its arm) and sends 2 + its true answer, else 0/1 its
    randomized report. Its ``shares[j]`` may be a pair ``(true share, share saying yes when
    asked directly)``, to simulate under-reporting in the direct arm."""
    questions = list(survey.questions.all())
    if len(shares) != len(questions):
        raise ValidationError({"shares": [f"Expected {len(questions)} values, one per question."]})
    columns = []
    # Drawn only when a question is compared, so other surveys' seeded draws stay the same.
    direct_arm = (
        rng.random(n) < survey.control_share
        if any(question.compare_direct for question in questions)
        else None
    )
    for question, share in zip(questions, shares, strict=True):
        mechanism = selectors.question_mechanism(question, survey=survey)
        if question.compare_direct:
            truth, told = share if isinstance(share, tuple | list) else (share, share)
            randomized = simulate_reports(truth, n, mechanism, rng).astype(np.int64)
            told_yes = (rng.random(n) < told).astype(np.int64)
            columns.append(np.where(direct_arm, 2 + told_yes, randomized))
            continue
        if question.kind == Question.Kind.TEXT:
            raise ValidationError({"shares": ["Text answers cannot be simulated."]})
        if mechanism is None:
            # Asked directly: the report is the true answer.
            if question.kind == Question.Kind.YES_NO:
                columns.append(rng.random(n) < share)
            else:
                columns.append(_simulated_truths(question, share, n, rng))
            continue
        if selectors.is_cheating_detection(question):
            columns.append(_simulated_codes(mechanism, share, n, rng))
        elif question.kind == Question.Kind.CHOICE:
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
        if selectors.is_cheating_detection(question) or question.compare_direct:
            # A code, 0 to 3 (selectors.report_range): tallied as a four-option choice.
            counts = np.bincount(values, minlength=selectors.report_range(question)[2] + 1)
            tallies[question.pk] = [total, *map(int, counts)]
        elif question.kind == Question.Kind.CHOICE:
            counts = np.bincount(values, minlength=len(question.options))
            tallies[question.pk] = [total, *map(int, counts)]
        elif question.kind == Question.Kind.NUMERIC:
            tallies[question.pk] = [total, int(values.sum()), int((values * values).sum())]
        else:
            tallies[question.pk] = [total, int(values.sum())]
    return tallies


def simulated_histograms(questions, reports) -> dict:
    """``{(question id, report): reports}`` of each randomized numeric question's column."""
    counts = {}
    for question, column in zip(questions, reports.T, strict=True):
        if question.kind == Question.Kind.NUMERIC and question.randomized:
            values, numbers = np.unique(column.astype(np.int64), return_counts=True)
            for value, number in zip(values.tolist(), numbers.tolist(), strict=True):
                counts[question.pk, value] = number
    return counts


def _check_simulated_reports(questions, reports):
    for index, (question, column) in enumerate(zip(questions, reports.T, strict=True)):
        kind, low, high = (
            ("yes_no", 0, 1)
            if question.kind == Question.Kind.YES_NO
            and not question.compare_direct
            and not selectors.is_cheating_detection(question)
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
    typed = [
        bool
        if question.kind == Question.Kind.YES_NO
        and not question.compare_direct
        and not selectors.is_cheating_detection(question)
        else int
        for question in questions
    ]
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
    numeric_tallies_bulk_add(simulated_histograms(questions, reports))
    if grouping:
        group_tallies_rebuild(survey=survey)
    return total
