"""Every submission's randomized reports, streamed in random (submission id) order: what the
raw exports write, one row per respondent.

Reads only.
"""

import uuid
from collections.abc import Iterator
from datetime import date
from typing import NamedTuple

from django.db.models.fields.json import KT

from ..models import Question, Submission, question_key


class SubmissionReports(NamedTuple):
    submission_id: uuid.UUID
    received_on: date
    bits: list  # reported bit per yes/no question, in position order (None if missing)


def survey_report_rows(*, survey, chunk_size=10000) -> Iterator[SubmissionReports]:
    """Every submission's randomized reports, ordered by submission id, streamed.

    By submission id, which the respondent's browser drew at random, so the order says
    nothing about when anyone answered (arrival order could be matched with other records).
    Reads straight from the database in chunks (the unique index on (survey, submission id)
    serves the order), so a million-row export needs memory for one chunk, not the whole
    survey.
    """
    keys = [question_key(qid) for qid in survey.questions.values_list("id", flat=True)]
    rows = (
        Submission.objects.filter(survey=survey)
        .order_by("submission_id")
        .values_list("submission_id", "received_on", "reports")
        .iterator(chunk_size=chunk_size)
    )
    for submission_uuid, received_on, reports in rows:
        yield SubmissionReports(submission_uuid, received_on, [reports.get(k) for k in keys])


class SubmissionAnswers(NamedTuple):
    submission_id: uuid.UUID
    received_on: date
    bits: list  # as SubmissionReports.bits
    answers: list  # [(grouping question id, option id or None for "Prefer not to say")]
    # where the page showed each question, from 1, in position order (None: not recorded)
    positions: list = []


def survey_report_answer_rows(
    *, survey, chunk_size=10000, with_answers=True, as_text=False, comprehension=False
) -> Iterator[SubmissionAnswers]:
    """``survey_report_rows`` with each submission's grouping answers, from one query.

    Each submission is left-joined to its grouping answers and read through one server-side
    cursor in submission-id order (the same random order as ``survey_report_rows``): a
    submission with several answers comes as adjacent rows, gathered here. Reading the answers
    through a second cursor sorted on its own made PostgreSQL sort them on disk at a million
    submissions (issue 28). ``with_answers=False`` (a survey without grouping questions)
    skips the join.

    ``as_text=True`` has the database take each report out of the JSON (``reports ->> 'q1'``)
    instead of Python decoding every row's JSON, for the CSV's speed: a report then comes as
    the database writes it, ``'true'``/``'false'`` or digits on PostgreSQL, 1/0 or an integer
    on SQLite, None when skipped (``exports.csv.report_csv_text_rows`` writes them).

    ``comprehension=True``: the comprehension check's hidden answers follow the questions'
    in ``bits``, in the order of its practice rounds. ``positions`` holds where the page
    showed each question (``Submission.positions``; as text with ``as_text``).
    """
    keys = [question_key(qid) for qid in survey.questions.values_list("id", flat=True)]
    shown = list(keys)
    if comprehension:
        hidden = Question.all_objects.filter(survey=survey, role=Question.Role.COMPREHENSION)
        keys += [question_key(qid) for qid in hidden.values_list("id", flat=True)]
    submissions = Submission.objects.filter(survey=survey).order_by("submission_id")
    if as_text:
        names = [f"report_{index}" for index in range(len(keys))]
        places = [f"position_{index}" for index in range(len(shown))]
        submissions = submissions.annotate(
            **{name: KT(f"reports__{key}") for name, key in zip(names, keys, strict=True)},
            **{name: KT(f"positions__{key}") for name, key in zip(places, shown, strict=True)},
        )
        fields = ["submission_id", "received_on", *names, *places]
    else:
        fields = ["submission_id", "received_on", "reports", "positions"]
    if with_answers:
        fields += ["group_answers__grouping_question_id", "group_answers__option_id"]
    rows = submissions.values_list(*fields).iterator(chunk_size=chunk_size)
    width = len(keys) if as_text else 1

    def bits_of(row):
        return list(row[2 : 2 + width]) if as_text else [row[2].get(k) for k in keys]

    def positions_of(row):
        if as_text:
            return list(row[2 + width : 2 + width + len(shown)])
        return [row[3].get(k) for k in shown]

    if not with_answers:
        for row in rows:
            yield SubmissionAnswers(row[0], row[1], bits_of(row), [], positions_of(row))
        return
    current = None
    for row in rows:
        if current is None or current.submission_id != row[0]:
            if current is not None:
                yield current
            current = SubmissionAnswers(row[0], row[1], bits_of(row), [], positions_of(row))
        if row[-2] is not None:
            current.answers.append((row[-2], row[-1]))
    if current is not None:
        yield current
