"""The contract's rules (``contract.Rule``) as SQL conditions, one part per rule (``rule_checks``),
over the survey row ``v``, its question rows ``q`` and its grouping questions ``g``: what the one
statement (``statement``) puts before its writes, so that it stores a submission only if every
rule holds.
"""

from psycopg import sql

import dpengine

from ... import limits
from ...models import (
    DayTally,
    GroupAnswer,
    GroupCell,
    GroupingOption,
    GroupingQuestion,
    GroupingTally,
    GroupTally,
    NumericTally,
    Question,
    SpentToken,
    Submission,
    Survey,
    TallyShard,
)
from ...selectors import mechanisms
from .contract import Rule

# Table names from the models, so a renamed table cannot leave the statement behind.
TABLES = {
    name: sql.Identifier(model._meta.db_table)
    for name, model in {
        "survey": Survey,
        "question": Question,
        "grouping": GroupingQuestion,
        "option": GroupingOption,
        "submission": Submission,
        "spent_token": SpentToken,
        "answer": GroupAnswer,
        "group_tally": GroupTally,
        "group_cell": GroupCell,
        "grouping_tally": GroupingTally,
        "tally": TallyShard,
        "day_tally": DayTally,
        "numeric_tally": NumericTally,
    }.items()
}
# yes_no, choice, numeric, text
KINDS = {kind.value: sql.Literal(kind.value) for kind in Question.Kind}

# A yes/no question q under a cheating-detection design (selectors.mechanisms
# .is_cheating_detection): its report is a code 0-3 (2 × (group - 1) + bit), checked and
# tallied as a four-option choice, never a bit.
CHEATING_SQL = sql.SQL(
    "(q.kind = {yes_no} AND q.randomized AND COALESCE(q.design ->> 'kind', '') IN ({kinds}))"
).format(**KINDS, kinds=sql.SQL(", ").join(sql.Literal(kind) for kind in mechanisms.CHEATING_KINDS))
# A yes/no question compared with asking directly (``q.compare_direct``) sends a code too: 0/1
# the randomized report, 2/3 the answer asked directly (selectors.mechanisms.COMPARE_CODES).
# Both kinds of code are checked and tallied alike: ``CODED_SQL``, fewer than ``CODES``.
CODED_SQL = sql.SQL("({} OR (q.kind = {} AND q.compare_direct))").format(
    CHEATING_SQL, KINDS["yes_no"]
)
if len(mechanisms.COMPARE_CODES) != mechanisms.CHEATING_CODES:
    raise ImportError("a compared question's codes and a cheating-detection one's must agree")
CODES = sql.Literal(mechanisms.CHEATING_CODES)

# A numeric question q's slack, dpengine.report_bounds in SQL: the same doubles in the same
# order (hi - lo, divided by ε, times REPORT_SCALES, rounded up), so the two agree to the unit.
NUMERIC_SLACK_SQL = (
    f"ceil({dpengine.REPORT_SCALES!r}::float8 * ((q.max_value - q.min_value)::float8 / q.epsilon))"
)


def rule_checks(*, typed, p):
    """One SQL condition per rule, over the survey row ``v``; the question rules over its
    question rows ``q`` (typed: left-joined with the answered reports ``a``); the grouping
    rules over its grouping questions ``g`` (joined with the answers ``c``)."""
    if typed:
        # A direct numeric answer lies within the range itself: no noise, no slack.
        fits = sql.SQL(
            "(q.kind = {yes_no} AND NOT {cheating}"
            " AND a.bit IS NOT NULL AND a.report IS NULL AND a.text IS NULL)"
            " OR ({cheating} AND a.bit IS NULL AND a.text IS NULL"
            " AND a.report >= 0 AND a.report < {codes})"
            " OR (q.kind = {choice} AND a.bit IS NULL AND a.text IS NULL"
            " AND a.report >= 0 AND a.report < jsonb_array_length(q.options))"
            " OR (q.kind = {numeric} AND a.bit IS NULL AND a.text IS NULL"
            " AND a.report >= q.min_value - {slack} AND a.report <= q.max_value + {slack})"
            " OR (q.kind = {text} AND a.bit IS NULL AND a.report IS NULL"
            " AND octet_length(a.text) <= {text_bytes})"
        ).format(
            **KINDS,
            cheating=CODED_SQL,
            codes=CODES,
            slack=sql.SQL("(CASE WHEN q.randomized THEN {} ELSE 0 END)").format(
                sql.SQL(NUMERIC_SLACK_SQL)
            ),
            text_bytes=sql.Literal(limits.DIRECT_TEXT_MAX_BYTES),
        )
        known = sql.SQL("a.question_id IS NOT NULL")
        unanswered = sql.SQL("a.question_id IS NULL")
    else:
        # Bits only: every answered question must be a yes/no one.
        fits = sql.SQL("q.kind = {yes_no} AND NOT {cheating}").format(**KINDS, cheating=CODED_SQL)
        known = sql.SQL("q.id = ANY({questions})").format(**p)
        unanswered = sql.SQL("q.id <> ALL({questions})").format(**p)
    return {
        Rule.ACCEPTING: sql.SQL(
            "(v.status = {pilot} OR (v.status = {open}"
            " AND (v.opens_at IS NULL OR v.opens_at <= {now})"
            " AND (v.closes_at IS NULL OR v.closes_at > {now})))"
        ).format(**p),
        Rule.KNOWN_QUESTIONS: known,
        Rule.REPORTS_FIT: sql.SQL("({})").format(fits),
        Rule.REQUIRED_QUESTIONS: sql.SQL("q.required AND {}").format(unanswered),
        # Every question the page shows once (not the hidden ones), or no order at all.
        Rule.ORDER: sql.SQL(
            "(cardinality({order}) = 0 OR (cardinality({order}) = ("
            "SELECT count(*) FROM {question} AS q WHERE q.survey_id = v.id AND q.role = {shown})"
            " AND cardinality({order}) = ("
            "SELECT count(DISTINCT o.id) FROM unnest({order}) AS o (id)"
            " JOIN {question} AS q ON q.id = o.id AND q.survey_id = v.id AND q.role = {shown})))"
        ).format(**TABLES, **p, shown=sql.Literal(Question.Role.QUESTION.value)),
        Rule.KNOWN_GROUPINGS: sql.SQL("g.id = c.grouping_id AND g.survey_id = v.id"),
        Rule.OPTIONS: sql.SQL(
            "c.option_id IS NULL OR EXISTS ("
            "SELECT FROM {option} AS o WHERE o.id = c.option_id AND o.grouping_question_id = g.id)"
        ).format(**TABLES),
        Rule.REQUIRED_GROUPINGS: sql.SQL("g.required AND g.id <> ALL({groupings})").format(**p),
        Rule.DESIGN: sql.SQL(
            "({fingerprint} IS NULL OR v.design_fingerprint = {fingerprint})"
        ).format(**p),
        # The token's signature is checked by the caller; the tokened form spends it
        # (``_SPENT``).
        Rule.ACCESS: sql.SQL("({tokened} OR v.access <> {invitation})").format(
            **p, invitation=sql.Literal(Survey.Access.INVITATION.value)
        ),
        Rule.ONCE: sql.SQL("ON CONFLICT (survey_id, submission_id) DO NOTHING"),
    }
