"""Simulated respondents (demos, tests, benchmarks): reports drawn through each question's
mechanism, then stored and counted in bulk as submissions would be (``tallies``)."""

import uuid

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from dpengine import (
    assign_groups,
    randomize_in_group,
    simulate_choice_reports,
    simulate_numeric_reports,
    simulate_reports,
)

from .. import selectors
from ..models import (
    GroupAnswer,
    Question,
    Submission,
    question_key,
)
from ..selectors.public_results import RESPONDENTS, option_key, reports_key
from .tallies import day_tally_add, group_tallies_rebuild, numeric_tallies_bulk_add, tally_add


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


def _simulated_day_counts(questions, typed, reports, grouping, options, total) -> dict:
    """``tallies.day_counts`` summed over the simulated respondents, in bulk."""
    counts = {RESPONDENTS: total}
    for column, (question, kind) in enumerate(zip(questions, typed, strict=True)):
        if kind is bool:
            counts[question_key(question.pk)] = int(np.count_nonzero(reports[:, column]))
            counts[reports_key(question.pk)] = total
    if grouping:
        chosen = np.asarray(options, dtype=np.int64).reshape(total, len(grouping))
        values, numbers = np.unique(chosen, return_counts=True)
        for option, number in zip(values, numbers, strict=True):
            counts[option_key(int(option))] = int(number)
    return counts


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
    # As the submission writers store them: a boolean for yes/no, an integer otherwise.
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
    day_tally_add(
        survey.pk,
        day=received_on,
        counts=_simulated_day_counts(questions, typed, reports, grouping, options, total),
    )
    numeric_tallies_bulk_add(simulated_histograms(questions, reports))
    if grouping:
        group_tallies_rebuild(survey=survey)
    return total
