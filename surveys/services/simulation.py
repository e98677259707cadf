"""Simulated respondents (demos, tests, benchmarks): reports drawn through each question's
mechanism, then stored and counted in bulk as submissions would be (``simulation_bulk``)."""

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
from ..models import Question
from .simulation_bulk import Chunk, chunk_record, report_kind
from .tallies import group_tallies_ensure


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


def _check_simulated_reports(questions, reports):
    for index, (question, column) in enumerate(zip(questions, reports.T, strict=True)):
        kind, low, high = (
            ("yes_no", 0, 1) if report_kind(question) is bool else selectors.report_range(question)
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


def simulated_submissions_record(
    *, survey, reports, options=None, received_on=None, chunk_size=100_000
) -> int:
    """Bulk-store simulated submissions: randomized reports, plus grouping answers if any.

    ``reports`` is an n × questions array whose rows already went through each question's
    mechanism (``simulated_reports_draw``: booleans or 0/1 for yes/no, an option's index, a
    noisy number), so they are stored exactly as a browser would have sent them. ``options``
    (n × grouping questions option ids) is required when the survey has grouping questions.
    For demos, tests and benchmarks: ``chunk_size`` rows per transaction, each stored and
    counted as one-by-one submissions would have been (``simulation_bulk``).
    """
    questions = list(survey.questions.all())
    grouping = list(survey.grouping_questions.prefetch_related("options"))
    if reports.ndim != 2 or reports.shape[1] != len(questions):
        raise ValidationError(
            {"reports": [f"Expected an n × {len(questions)} array, got shape {reports.shape}."]}
        )
    total = int(reports.shape[0])
    _check_simulated_reports(questions, reports)
    # Checked: every report is a bit, an index or a whole number, so one integer array holds
    # them all, whatever array the caller built (booleans, or objects mixing the kinds).
    reports = np.asarray(reports, dtype=np.int64)
    options = [] if options is None else [list(row) for row in options]
    _check_simulated_options(grouping=grouping, options=options, total=total)
    chosen = np.asarray(options, dtype=np.int64).reshape(total, len(grouping))
    received_on = received_on or timezone.now().date()
    if grouping:
        # As at opening: the tally row of every (yes/no question, option), counted from zero.
        group_tallies_ensure(survey=survey)
    for start in range(0, total, chunk_size):
        with transaction.atomic():
            chunk_record(
                Chunk(
                    survey_id=survey.pk,
                    questions=questions,
                    grouping=grouping,
                    reports=reports[start : start + chunk_size],
                    options=chosen[start : start + chunk_size],
                    received_on=received_on,
                )
            )
    return total
