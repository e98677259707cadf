"""The submission contract, held against its oracle: on random surveys (every question type
and yes/no design, optional questions, grouping questions required or not, pilots, closed and
scheduled surveys) and random submissions (valid, skipped optional answers, "Prefer not to
say", bad inputs of every kind, replays), the database's path (PostgreSQL: the one statement,
surveys/services/submissions/postgres.py; SQLite: surveys/services/submissions/sqlite.py)
and the ORM transaction (surveys/services/submissions/oracle.py, ``SUBMISSION_STATEMENT``
off) give the same outcome (created, a replay, or the refusal's status and fields) and leave
the same rows and tallies (numeric histograms and day tallies included) after every
submission.

Seeded (``SEED``): the same cases at every run, so a failure repeats; the case is printed.
"""

import json
import random
import uuid
from collections import Counter

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404

from surveys import selectors, services
from surveys.models import (
    PREFER_NOT_TO_SAY,
    DayTally,
    GroupAnswer,
    GroupCell,
    GroupingTally,
    GroupTally,
    NumericTally,
    Question,
    Submission,
    Survey,
    group_cell_key,
)
from surveys.services import grouping
from surveys.services.answers import text_answer_encode

SEED = 20251129
SURVEYS = 50
STEPS = 12  # submissions per survey: 600 cases in all

pytestmark = pytest.mark.django_db


class _Rollback(Exception):
    pass


def random_survey(rng, make_survey, index):
    questions = []
    for position in range(rng.randint(1, 4)):
        spec = {"text": f"Question {position}?", "required": rng.random() < 0.6}
        kind = rng.choice(
            ["yes_no", "warner", "choice", "numeric", "direct", "text", "cheating", "compared"]
        )
        if kind == "compared":
            # Compared with asking directly: its report a code 0 to 3 (issue 27 item 2).
            spec["compare_direct"] = True
            if rng.random() < 0.5:
                spec["design"] = {"kind": "warner", "p": 0.75}
        elif kind == "direct":
            # Asked directly: each type, no design or ε.
            kind = rng.choice(["yes_no", "choice", "numeric"])
            spec["randomized"] = False
            if kind == "choice":
                spec |= {"type": "choice", "options": ["A", "B", "C"]}
            elif kind == "numeric":
                spec |= {"type": "numeric", "min": -5, "max": rng.randint(0, 40)}
        elif kind == "text":
            spec |= {"type": "text", "randomized": False}
        elif kind == "warner":
            spec["design"] = {"kind": "warner", "p": 0.75}
        elif kind == "cheating":
            # CDM or SLD: a code 0-3 (2 × (group - 1) + bit) on a yes/no question.
            spec["design"] = {"kind": rng.choice(["cdm", "sld"]), "p": [0.25, 0.75]}
        elif kind == "choice":
            spec |= {"type": "choice", "options": [f"O{n}" for n in range(rng.randint(2, 5))]}
        elif kind == "numeric":
            low = rng.randint(-40, 40)
            spec |= {
                "type": "numeric",
                "min": low,
                "max": low + rng.randint(1, 60),
                "epsilon": rng.choice([1.0, 2.0]),
            }
        questions.append(spec)
    survey = make_survey(
        status="draft",
        questions=questions,
        title=f"Survey {index}",
        control_share=rng.choice([0.0, 0.25, 0.5]),
    )
    for number in range(rng.choice([0, 0, 1, 2])):
        grouping.grouping_question_add(
            survey=survey,
            text=f"Group {number}?",
            options=[f"G{number}-{n}" for n in range(rng.randint(2, 4))],
            required=rng.random() < 0.5,
        )
    if rng.random() < 0.2:
        return services.survey_pilot_start(survey=survey)
    return services.survey_open(survey=survey)


# Text answers: every script, JSON's and PostgreSQL array literals' escapes, the longest.
TEXTS = [
    "",
    "fine",
    "직장 내 괴롭힘은 없었다",
    '说 "quoted" \\ back',
    "x" * 300,
    "가" * 100,
    "{a,b}",
]


def _bit(question):
    return selectors.reports_a_bit(question) or (
        question.kind == Question.Kind.YES_NO and not question.randomized
    )


def _good(rng, question, bounds):
    if question.compare_direct:
        return rng.randint(0, 3)
    if _bit(question):
        return rng.random() < 0.5
    if question.kind == Question.Kind.TEXT:
        return text_answer_encode(rng.choice(TEXTS))
    low, high = bounds
    return rng.choice([low, high, rng.randint(low, high)])


def _bad(rng, question, bounds):
    """A report its question does not take: out of range by one, or of another type."""
    if question.compare_direct:
        # A code, never a bare boolean: true/false would not say which arm it came from.
        return rng.choice([-1, 4, True, False, "2", 1.0, None])
    if _bit(question):
        return rng.choice([1, 0, "true", None, 0.5, text_answer_encode("yes")])
    if question.kind == Question.Kind.TEXT:
        encoded = text_answer_encode("abc")
        return rng.choice(
            [
                "abc",  # not encoded
                encoded[:-4],  # short of the fixed length
                encoded + "AAAA",  # too long: 303 bytes
                encoded[:-1] + "=",  # outside the alphabet
                text_answer_encode("a\0b"),  # a NUL inside
                "_" * len(encoded),  # not UTF-8
                7,
                True,
                None,
            ]
        )
    low, high = bounds
    return rng.choice([low - 1, high + 1, True, False, str(low), float(low), None, 2**63])


def _key(rng, pk):
    return pk if rng.random() < 0.3 else str(pk)


def valid_body(rng, info):
    """A body the survey takes as it is (optional answers sometimes left out)."""
    answers = {
        _key(rng, q.pk): _good(rng, q, info["bounds"].get(q.pk))
        for q in info["questions"]
        if q.required or rng.random() < 0.6
    }
    groups = {}
    for gq, options in info["groupings"]:
        if gq.required or rng.random() < 0.7:
            option = rng.choice([*options, PREFER_NOT_TO_SAY])
            groups[_key(rng, gq.pk)] = str(option) if rng.random() < 0.2 else option
    return {
        "submission_id": str(uuid.uuid4()),
        "answers": answers,
        "groups": groups if groups or rng.random() < 0.5 else None,
        "design_fingerprint": rng.choice([None, info["fingerprint"]]),
        # The order shown: every question once, in some order; or none sent.
        "order": None
        if rng.random() < 0.2
        else rng.sample([q.pk for q in info["questions"]], len(info["questions"])),
    }


def _answers(body):
    if not isinstance(body["answers"], dict):
        body["answers"] = {}
    return body["answers"]


def _defects(info):
    """Ways to spoil a valid body, each a function of (rng, body) that changes it."""
    questions, bounds, groupings, foreign = (
        info["questions"],
        info["bounds"],
        info["groupings"],
        info["foreign"],
    )

    def bad_report(rng, body):
        question = rng.choice(questions)
        _answers(body)[str(question.pk)] = _bad(rng, question, bounds.get(question.pk))

    def required_left_out(rng, body):
        required = [q.pk for q in questions if q.required]
        for pk in required[: rng.randint(0, len(required))] or required[:1]:
            _answers(body).pop(pk, None)
            _answers(body).pop(str(pk), None)

    def unknown_question(rng, body):
        unknown = rng.choice([foreign["question"], max(q.pk for q in questions) + 10_000])
        _answers(body)[str(unknown)] = True

    def bad_key(rng, body):
        pk = rng.choice(questions).pk
        _answers(body)[rng.choice([f" {pk}", f"{pk}.0", f"+{pk}", "abc", f"0{pk}"])] = True

    def answers_not_an_object(rng, body):
        body["answers"] = rng.choice([[True], "yes", None, 7])

    def bad_option(rng, body):
        if not groupings:
            body["groups"] = {str(foreign["grouping"]): foreign["option"]}
            return
        gq, options = rng.choice(groupings)
        others = [o for g, opts in groupings if g != gq for o in opts]
        body["groups"] = dict(body["groups"] if isinstance(body["groups"], dict) else {})
        body["groups"][str(gq.pk)] = rng.choice(
            [foreign["option"], max(options) + 1000, "red", True, None, -1, *others[:1]]
        )

    def grouping_left_out(rng, body):
        groups = body["groups"] if isinstance(body["groups"], dict) else {}
        body["groups"] = {k: v for k, v in groups.items() if rng.random() < 0.3} or rng.choice(
            [{}, None]
        )

    def unknown_grouping(rng, body):
        groups = body["groups"] if isinstance(body["groups"], dict) else {}
        body["groups"] = {**groups, str(foreign["grouping"]): foreign["option"]}

    def groups_not_an_object(rng, body):
        body["groups"] = rng.choice([[1], "a", 3])

    def other_design(rng, body):
        body["design_fingerprint"] = rng.choice(["0" * 32, 7, "x" * 65, ""])

    def bad_submission_id(rng, body):
        body["submission_id"] = rng.choice(["not-a-uuid", 12, None, ""])

    def bad_order(rng, body):
        ids = [q.pk for q in questions]
        body["order"] = rng.choice(
            [
                ids[:-1],  # one left out
                [*ids, ids[0]],  # one twice
                [*ids[:-1], foreign["question"]],  # another survey's
                [*ids[:-1], ids[0]],  # a permutation's length, not a permutation
                [str(pk) for pk in ids],
                [True] * len(ids),
                ",".join(map(str, ids)),
                {str(pk): 1 for pk in ids},
            ]
        )

    return [
        bad_report,
        bad_report,
        bad_report,
        required_left_out,
        unknown_question,
        bad_key,
        answers_not_an_object,
        bad_option,
        bad_option,
        grouping_left_out,
        unknown_grouping,
        groups_not_an_object,
        other_design,
        bad_submission_id,
        bad_order,
    ]


def random_body(rng, info, sent):
    """A valid body, a replay of an earlier id, or a body spoiled in one way (sometimes two)."""
    body = valid_body(rng, info)
    if sent and rng.random() < 0.15:
        body["submission_id"] = rng.choice(sent)  # a replay, with this body or another
    defects = _defects(info)
    for _defect in range(rng.choice([0, 0, 1, 1, 1, 2])):
        rng.choice(defects)(rng, body)
    return body


def random_change(rng, survey):
    """Sometimes the survey stops (or starts again) taking responses before a submission."""
    from datetime import timedelta

    from django.utils import timezone

    roll, now = rng.random(), timezone.now()
    changes = None
    if roll < 0.04:
        changes = {"status": Survey.Status.CLOSED}
    elif roll < 0.07:
        changes = {"status": Survey.Status.DRAFT}
    elif roll < 0.10:
        changes = {"opens_at": now + timedelta(days=1), "closes_at": None}
    elif roll < 0.13:
        changes = {"opens_at": None, "closes_at": now - timedelta(days=1)}
    elif roll < 0.25:
        changes = {"status": survey.status, "opens_at": None, "closes_at": None}
    return changes


def outcome(call):
    try:
        result = call()
    except ValidationError as error:
        return ("400", tuple(sorted(error.message_dict)))
    except services.SurveyConflict as error:
        return ("409", str(error.reason), error.field)
    except Http404:
        return ("404",)
    return ("201", result.created, result.questions_answered)


def stored(survey):
    subs = Submission.objects.filter(survey=survey)
    tallies = selectors.survey_tallies(survey=survey)
    return {
        "submissions": sorted(
            (str(sid), json.dumps(reports, sort_keys=True), str(day))
            for sid, reports, day in subs.values_list("submission_id", "reports", "received_on")
        ),
        "positions": sorted(
            (str(sid), json.dumps(positions, sort_keys=True))
            for sid, positions in subs.values_list("submission_id", "positions")
        ),
        "answers": sorted(
            GroupAnswer.objects.filter(submission__survey=survey).values_list(
                "submission__submission_id", "grouping_question_id", "option_id"
            ),
            key=repr,
        ),
        "tallies": (tallies.responses, sorted(tallies.reports.items())),
        "group_tallies": sorted(
            GroupTally.objects.filter(option__grouping_question__survey=survey).totals()
        ),
        "group_cells": sorted(GroupCell.objects.filter(question__survey=survey).totals()),
        "groupings": sorted(
            GroupingTally.objects.filter(grouping_question__survey=survey).totals(), key=repr
        ),
        "histograms": sorted(NumericTally.objects.filter(question__survey=survey).totals()),
        "days": day_totals(survey),
    }


def day_totals(survey):
    """The day tallies (what a public release counts), each day's shards summed, zeros left
    out: the writers may spread a day over different shards."""
    totals = {}
    for day, counts in DayTally.objects.filter(survey=survey).values_list("day", "counts"):
        for key, n in counts.items():
            totals[str(day), key] = totals.get((str(day), key), 0) + n
    return sorted((day, key, n) for (day, key), n in totals.items() if n)


def histograms_of(submissions, question_ids):
    """The histograms the stored submissions make: ``(question id, report, count)`` sorted."""
    counts = Counter(
        (qid, reports[f"q{qid}"])
        for _sid, stored_reports, _day in submissions
        for reports in [json.loads(stored_reports)]
        for qid in question_ids
        if f"q{qid}" in reports
    )
    return sorted((qid, report, count) for (qid, report), count in counts.items())


def cells_recounted(survey):
    """The regression's cells counted from the stored rows, in Python: each submission with
    grouping answers adds each of its yes/no reports to (question, its answers' key). None
    in a survey of fewer than two grouping questions (its regression reads the tallies)."""
    if survey.grouping_questions.count() < 2:
        return []
    yes_no = {q.pk for q in survey.questions.all() if _bit(q)}
    chosen = {}
    for sub, gid, oid in GroupAnswer.objects.filter(submission__survey=survey).values_list(
        "submission_id", "grouping_question_id", "option_id"
    ):
        chosen.setdefault(sub, {})[gid] = oid
    cells = {}
    for sub, reports in Submission.objects.filter(survey=survey).values_list("id", "reports"):
        if sub not in chosen:
            continue
        for qid in yes_no:
            if f"q{qid}" in reports:
                n, yes = cells.get((qid, group_cell_key(chosen[sub])), (0, 0))
                cells[qid, group_cell_key(chosen[sub])] = (n + 1, yes + reports[f"q{qid}"])
    return sorted((qid, key, n, yes) for (qid, key), (n, yes) in cells.items())


def run(settings, survey, steps, *, statement):
    """Every step's outcome and what is stored after it, rolled back afterwards."""
    settings.SUBMISSION_STATEMENT = statement
    seen = []
    try:
        with transaction.atomic():
            for changes, slug, body in steps:
                if changes:
                    Survey.objects.filter(pk=survey.pk).update(**changes)
                result = outcome(lambda: services.submission_receive(slug=slug, **body))  # noqa: B023
                seen.append((result, stored(survey)))
                # The cells kept at write time are what the stored rows say.
                assert seen[-1][1]["group_cells"] == cells_recounted(survey), slug
            raise _Rollback
    except _Rollback:
        pass
    return seen


@pytest.mark.slow
def test_the_database_path_agrees_with_the_orm_oracle(make_survey, settings):
    rng = random.Random(SEED)
    foreign_survey = make_survey(title="Foreign", status="draft")
    foreign_group = grouping.grouping_question_add(
        survey=foreign_survey, text="Elsewhere?", options=["A", "B"]
    )
    foreign = {
        "question": foreign_survey.questions.first().pk,
        "grouping": foreign_group.pk,
        "option": foreign_group.options.first().pk,
    }
    cases, kinds, texts_stored, histogram_rows, cell_keys = 0, set(), set(), 0, set()
    cheating_codes, compared_codes = set(), set()
    for index in range(SURVEYS):
        survey = random_survey(rng, make_survey, index)
        questions = list(survey.questions.all())
        cheating_keys = {f"q{q.pk}" for q in questions if selectors.is_cheating_detection(q)}
        info = {
            "questions": questions,
            "bounds": {q.pk: selectors.report_range(q)[1:] for q in questions if not _bit(q)},
            "groupings": [
                (gq, list(gq.options.values_list("id", flat=True)))
                for gq in survey.grouping_questions.all()
            ],
            "fingerprint": survey.design_fingerprint,
            "foreign": foreign,
        }
        compared = {f"q{q.pk}" for q in questions if q.compare_direct}
        steps, sent = [], []
        for _step in range(STEPS):
            body = random_body(rng, info, sent)
            if isinstance(body["submission_id"], str) and len(body["submission_id"]) == 36:
                sent.append(body["submission_id"])
            slug = survey.slug if rng.random() > 0.02 else "NoSuchSurvey1234"
            steps.append((random_change(rng, survey), slug, body))
        by_path = run(settings, survey, steps, statement=True)
        by_oracle = run(settings, survey, steps, statement=False)
        # Randomized numeric questions keep a histogram; direct ones do not.
        histogram_questions = [q.pk for q in questions if q.kind == "numeric" and q.randomized]
        for number, (step, ours, theirs) in enumerate(zip(steps, by_path, by_oracle, strict=True)):
            assert ours == theirs, f"survey {index}, step {number}: {step}"
            assert ours[1]["histograms"] == histograms_of(
                ours[1]["submissions"], histogram_questions
            ), f"survey {index}, step {number}: {step}"
            histogram_rows += len(ours[1]["histograms"])
            result = ours[0]
            kinds.add(result[:2] if result[0] == "201" else (result[0], _field_kind(result)))
            cases += 1
            cell_keys.update(key for _qid, key, _n, _yes in ours[1]["group_cells"])
            for _sid, reports, _day in ours[1]["submissions"]:
                stored = json.loads(reports)
                texts_stored.update(v for v in stored.values() if isinstance(v, str))
                cheating_codes.update(v for k, v in stored.items() if k in cheating_keys)
                compared_codes.update(v for k, v in stored.items() if k in compared)
    assert cases >= 500
    assert histogram_rows > 0  # numeric reports were stored and counted
    # Cells of one and of several grouping questions were met, "Prefer not to say" among them.
    assert any("," in key for key in cell_keys) and any("," not in key for key in cell_keys)
    assert any(":-" in key for key in cell_keys)
    # Text answers were stored as written, Korean and the escapes included.
    assert {"직장 내 괴롭힘은 없었다", '说 "quoted" \\ back', "가" * 100} <= texts_stored
    # Cheating-detection and compared questions stored every code as sent, each an integer
    # (never a bare boolean).
    for codes in (cheating_codes, compared_codes):
        assert codes == {0, 1, 2, 3} and not any(isinstance(c, bool) for c in codes)
    # Every kind of outcome was met: stored, replayed, each field refused, 409s and 404.
    assert {
        ("201", True),
        ("201", False),
        ("400", "answers"),
        ("400", "answers.<id>"),
        ("400", "groups"),
        ("400", "groups.<id>"),
        ("400", "submission_id"),
        ("400", "design_fingerprint"),
        ("409", "not_accepting"),
        ("409", "design_changed"),
        ("404", None),
    } <= kinds, kinds


def _field_kind(result):
    if result[0] == "400":
        field = result[1][0]
        return field.split(".")[0] + ".<id>" if "." in field else field
    if result[0] == "409":
        return result[1]
    return None
