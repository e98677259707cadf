"""The one PostgreSQL statement that checks and stores a submission, as text, composed from
named parts (psycopg's ``sql.SQL(...).format(...)``): one condition per rule of the contract
(``rules.rule_checks``, keyed by ``contract.Rule``; ``CHECKS`` fails at import if a rule has
no part),
then the writes: the submission, its grouping answers and their tallies, the histograms of
its numeric reports, the tally shard.
``postgres`` prepares and runs it.
"""

from psycopg import sql

from ...limits import RELEASE_BATCH_INVITATION
from ...models import GROUP_CELLS_MIN_GROUPINGS, Survey
from ...selectors.public_results import RESPONDENTS
from .contract import Rule
from .rules import CODED_SQL, KINDS, TABLES, rule_checks

# What the statement takes, in order: (name, PostgreSQL type); arrays as array literals
# (``_array``: the driver's adaptation of lists costs more than the rest of the call).
# Aligned: ``questions`` and ``bits``; ``groupings``, ``options`` (NULL: "Prefer not to say")
# and ``answer_keys``.
PARAMETERS = (
    ("slug", "text"),
    ("open", "text"),
    ("pilot", "text"),
    ("now", "timestamptz"),
    ("submission_id", "uuid"),
    ("received_on", "date"),
    ("questions", "bigint[]"),
    ("bits", "boolean[]"),
    ("groupings", "bigint[]"),
    ("options", "bigint[]"),
    ("fingerprint", "text"),
    ("shard", "smallint"),
    ("key", "bigint"),
    ("answer_keys", "bigint[]"),
    ("tokened", "boolean"),
    ("order", "bigint[]"),
    # The token's digest and its row's random key (the tokened form only; NULL otherwise).
    ("digest", "bytea"),
    ("token_key", "bigint"),
)
# The typed form (a submission with multiple-choice, numeric or text reports) takes three more
# arrays, aligned with ``questions``: the integer report of each choice or numeric question,
# and the answer of each text question (of ``bits``, ``reports`` and ``texts`` exactly one
# entry per question is not NULL); and ``tally_keys``, a random key (``models.random_key``)
# for each integer report, the key of its histogram row should it be the first of its value.
TYPED_PARAMETERS = (
    *PARAMETERS,
    ("reports", "bigint[]"),
    ("texts", "text[]"),
    ("tally_keys", "bigint[]"),
)


# - ``survey`` finds the survey by slug, only if every rule holds; otherwise no row, and
#   every later part does nothing.
_SURVEY = """WITH survey AS (
    SELECT v.id FROM {survey} AS v
    WHERE v.slug = {slug}
        AND {accepting}
        AND {design}
        AND {access}
        AND {order_shown}
        AND {batching}
        AND (
            SELECT count({answered}) FILTER (WHERE {known_questions} AND {reports_fit})
                    = cardinality({questions})
                AND NOT COALESCE(bool_or({required_questions}), false)
            FROM {question_rows}
        )
        AND NOT EXISTS (
            SELECT FROM {grouping} AS g WHERE g.survey_id = v.id AND {required_groupings}
        )
        AND (
            SELECT count(*) FROM {grouping} AS g
            JOIN unnest({groupings}, {options}) AS c (grouping_id, option_id)
                ON {known_groupings}
            WHERE {options_rule}
        ) = cardinality({groupings})
)"""
# - ``batching``: the survey's submissions are held for batches (services/batches.py: its
#   ``Survey.batch_size`` is above 1 and it is not a pilot) in the held form, and are not in the
#   others. So a form that does not fit the survey stores nothing, and the caller need not read
#   the survey before the statement to choose the form: ``submission_receive`` takes a survey
#   this process has not seen for one that is not batched, and reads it only when that stored
#   nothing (a first response to a link survey is then one statement, as every other).
_BATCHED = """(v.status <> {pilot} AND COALESCE(
            v.release_batch, CASE WHEN v.access = {link} THEN 1 ELSE {invitation_batch} END
        ) > 1)"""
# - ``a``: the answered reports, with the key they are stored under and (typed) each one's
#   tally vector, ``added`` (dpengine.report_tally in SQL: yes/no [1, yes], choice
#   [1, 0, ..., 1], numeric [1, report, report²]).
_BITS = """, a AS (
    SELECT question_id, 'q' || question_id AS key, bit
    FROM unnest({questions}, {bits}) AS a (question_id, bit)
)"""
# The typed form reads each question's report by its position in ``questions``
# (``array_position``) from the survey's question rows, found by their survey's index, where
# the check (``_SURVEY``) and ``a`` both need them: joining the reports, unnested, with the
# questions planned a hash join for each (its table built at every call) and looked the
# questions up in the whole table. ``n`` is NULL for a question not answered.
_TYPED_ANSWERS = """LATERAL (
        SELECT CASE WHEN p.n IS NOT NULL THEN q.id END AS question_id, ({bits})[p.n] AS bit,
            ({reports})[p.n] AS report, ({texts})[p.n] AS text,
            ({tally_keys})[p.n] AS tally_key
        FROM (SELECT array_position({questions}, q.id) AS n) AS p
    ) AS a"""
# A choice report's vector is built by ``array_fill`` ([1], ``report`` zeros, a 1), not by a
# set-returning subquery, which the executor would build at each call.
_TYPED_REPORTS = """, a AS (
    SELECT a.question_id, 'q' || a.question_id AS key, a.bit, a.report, a.text, a.tally_key,
        CASE WHEN {cheating} THEN {choice} ELSE q.kind END AS kind, q.randomized,
        CASE
            WHEN q.kind = {numeric}
                THEN jsonb_build_array(1, a.report, a.report::numeric * a.report)
            WHEN q.kind = {choice} OR {cheating}
                THEN '[1]'::jsonb || to_jsonb(array_fill(0, ARRAY[a.report::int]) || 1)
            WHEN q.kind = {text} THEN jsonb_build_array(1)
            ELSE jsonb_build_array(1, a.bit::int)
        END AS added
    FROM survey JOIN {question} AS q ON q.survey_id = survey.id, {answers}
    WHERE a.question_id IS NOT NULL
)"""
# - ``s`` inserts the submission with its reports unless this id is stored for the survey
#   already (``Rule.ONCE``: then no row, and nothing else happens). Its key (``key``) and its
#   grouping answers' (``answer_keys``) are drawn at random by the caller
#   (``models.random_key``): a counted key would record the order in which submissions came.
_SUBMISSION = """, s AS (
    INSERT INTO {submission} (id, survey_id, submission_id, received_on, reports, positions, held)
    SELECT {key}, survey.id, {submission_id}, {received_on},
        COALESCE((SELECT jsonb_object_agg(key, {stored}) FROM a), '{{}}'),
        COALESCE((SELECT jsonb_object_agg('q' || o.id, o.n)
            FROM unnest({order}) WITH ORDINALITY AS o (id, n)), '{{}}'),
        {held}
    FROM survey
    {once}
    RETURNING id, survey_id
)"""
# - ``spent`` (the tokened form: a submission to an invitation survey) spends its token, held
#   with the submission when it is, only when the submission was inserted. No ON CONFLICT: a
#   token spent before fails the whole statement (``spent_token_once``), so neither is kept
#   without the other; a replay (nothing inserted) spends nothing.
_SPENT = """, spent AS (
    INSERT INTO {spent_token} (id, survey_id, digest, held)
    SELECT {token_key}, s.survey_id, {digest}, {held} FROM s
)"""
# - ``chosen`` stores the grouping answers, ``counted`` counts the respondent on each chosen
#   option, ``declined`` on each grouping question answered "Prefer not to say"
#   (``models.GroupingTally``), and ``grouped`` adds the yes/no reports to the chosen
#   options' tallies (``models.GroupTally``: one row per option, each question's counts in
#   it, summed as the tally shard's; a declined answer is in none), creating a row that is
#   missing (``created``: the caller then has the tallies recounted); ``cells`` adds them to
#   the regression's cell of the whole combination of grouping answers
#   (``models.group_cell_key`` in SQL), creating it if it is the first, in a survey that keeps
#   cells (``models.group_cells_kept``: one of several grouping questions; with one, the
#   regression reads the per-(question, option) tallies, the same counts, and a grouped
#   submission writes ten rows fewer). Each in the shard
#   ``shard``, as the tally shard: two submissions to one survey wait for each other's locks
#   only when they drew the same shard.
#   A submission without grouping answers runs the statement without
#   these parts: opening their tables for nothing was a tenth of its database time. A held
#   submission (the held form, below) stores its answers (``_GROUPING_ANSWERS``) and counts
#   nothing.
_GROUPING_ANSWERS = """, chosen AS (
    INSERT INTO {answer} (id, submission_id, grouping_question_id, option_id)
    SELECT c.answer_key, s.id, c.grouping_id, c.option_id
    FROM s, unnest({groupings}, {options}, {answer_keys}) AS c (grouping_id, option_id, answer_key)
    RETURNING grouping_question_id, option_id
)"""
_GROUPING_WRITES = """, counted AS (
    INSERT INTO {grouping_tally} AS t (grouping_question_id, option_id, shard, count)
    SELECT chosen.grouping_question_id, chosen.option_id, {shard}, 1
    FROM chosen WHERE chosen.option_id IS NOT NULL
    ON CONFLICT (option_id, shard) WHERE option_id IS NOT NULL
    DO UPDATE SET count = t.count + 1
), declined AS (
    INSERT INTO {grouping_tally} AS t (grouping_question_id, option_id, shard, count)
    SELECT chosen.grouping_question_id, NULL, {shard}, 1
    FROM chosen WHERE chosen.option_id IS NULL
    ON CONFLICT (grouping_question_id, shard) WHERE option_id IS NULL
    DO UPDATE SET count = t.count + 1
), grouped AS (
    INSERT INTO {group_tally} AS t (option_id, shard, reports)
    SELECT chosen.option_id, {shard}, b.added
    FROM chosen, (
        SELECT jsonb_object_agg(a.key, jsonb_build_array(1, a.bit::int)) AS added
        FROM a WHERE true{yes_no_only}
    ) AS b
    WHERE chosen.option_id IS NOT NULL AND b.added IS NOT NULL
    ORDER BY chosen.option_id
    ON CONFLICT (option_id, shard) DO UPDATE SET reports = t.reports || (
        SELECT jsonb_object_agg(a.key, {summed}) FROM a WHERE true{yes_no_only}
    )
    RETURNING xmax = 0 AS created
), cells AS (
    INSERT INTO {group_cell} AS t (question_id, key, shard, report_count, yes_count)
    SELECT a.question_id, k.key, {shard}, 1, a.bit::int
    FROM a, (
        SELECT string_agg(
            grouping_question_id || ':' || COALESCE(option_id::text, '-'), ','
            ORDER BY grouping_question_id
        ) AS key
        FROM chosen
    ) AS k
    WHERE k.key IS NOT NULL{yes_no_only}
        AND (
            SELECT count(*) FROM {grouping} AS g, survey WHERE g.survey_id = survey.id
        ) >= {cells_from}
    ON CONFLICT (question_id, key, shard) DO UPDATE
        SET report_count = t.report_count + 1, yes_count = t.yes_count + excluded.yes_count
)"""
# - ``numeric_tallied`` (typed only) adds each randomized numeric report to its question's
#   histogram (``models.NumericTally``) in the shard ``shard``, creating the row of a value
#   not reported before in it. Read
#   by nothing, so it runs to completion after the final INSERT: every submission locks its
#   tally shard first, then its histogram rows in question order, so two submissions never
#   wait for each other in a cycle.
_NUMERIC_TALLIES = """, numeric_tallied AS (
    INSERT INTO {numeric_tally} AS h (id, question_id, report, shard, count)
    SELECT a.tally_key, a.question_id, a.report, {shard}, 1
    FROM s, a
    WHERE a.kind = {numeric} AND a.randomized
    ORDER BY a.question_id
    ON CONFLICT (question_id, report, shard) DO UPDATE SET count = h.count + 1
)"""
# - ``day_tallied`` adds the submission to its day's tally (``models.DayTally``, what a public
#   release counts): one respondent, each yes/no report (its question's yes count and report
#   count) and each chosen option, in the shard numbered as its tally shard
#   (``services.tallies.day_counts`` in SQL). Read by nothing, so it runs after the final
#   INSERT and the histograms: every submission locks its rows in that one order.
_DAY_TALLY = """, day_tallied AS (
    INSERT INTO {day_tally} AS t (survey_id, day, shard, counts)
    SELECT s.survey_id, {received_on}, {shard}, jsonb_build_object({respondents}, 1) || COALESCE((
        SELECT jsonb_object_agg(d.key, d.n) FROM (
            SELECT a.key, a.bit::int AS n FROM a WHERE a.bit IS NOT NULL
            UNION ALL SELECT 'n' || a.key, 1 FROM a WHERE a.bit IS NOT NULL
            UNION ALL SELECT 'o' || c.option_id, 1
                FROM unnest({options}) AS c (option_id) WHERE c.option_id IS NOT NULL
        ) AS d
    ), '{{}}')
    FROM s
    ON CONFLICT (survey_id, day, shard) DO UPDATE
    SET counts = t.counts || (
        SELECT jsonb_object_agg(e.key, COALESCE((t.counts ->> e.key)::bigint, 0) + e.value::bigint)
        FROM jsonb_each_text(excluded.counts) AS e
    )
)"""
# - the final INSERT counts the response and adds each report's tally vector to the survey's
#   tally shard ``shard`` (``models.TallyShard``), creating it if missing. It runs only when
#   the submission was inserted and returns a row only then, so "no row" means "nothing
#   stored or counted". Under concurrent submissions each tally row is updated from its
#   latest version, as ``x = x + 1`` is; the shard, chosen at random per submission, spreads
#   them over several rows, so they rarely wait for one another's lock.
_TALLY = """
INSERT INTO {tally} AS t (survey_id, shard, responses, reports)
SELECT s.survey_id, {shard}, 1, COALESCE((SELECT jsonb_object_agg(a.key, {added}) FROM a), '{{}}')
FROM s
ON CONFLICT (survey_id, shard) DO UPDATE
SET responses = t.responses + 1, reports = t.reports || COALESCE((
    SELECT jsonb_object_agg(a.key, {summed}) FROM a
), '{{}}')
RETURNING t.survey_id, {created}"""
# - the held form's final SELECT (a submission to a batched survey, services/batches.py): the
#   submission is stored held and counted nowhere yet, so no tally row is written, nor locked:
#   its batch's release adds the batch to the tallies at once. A row only when it was stored.
_HELD = """
SELECT s.survey_id, 0 FROM s"""
# dpengine.tally_sum in SQL. Yes/no only: two elements, added in bigint.
_SUM_BITS = """jsonb_build_array(
        COALESCE((t.reports -> a.key ->> 0)::bigint, 0) + 1,
        COALESCE((t.reports -> a.key ->> 1)::bigint, 0) + a.bit::int
    )"""
# The typed form's sums, dpengine.tally_sum in SQL for each kind's vector (the stored one,
# ``t.reports -> a.key``, is NULL before the question's first report), element by element: a
# set-returning subquery and an aggregate per question, to add any two vectors, cost more than
# these few additions, even unused (the executor builds every subquery of the statement at
# each call). In numeric: a sum of squares can outgrow bigint. Yes/no: ``_SUM_BITS``.
# Numeric: [reports, sum, sum of squares]. Choice (and a coded yes/no question's): the
# reports, and the option's count, the vector padded with zeros up to it first (a vector is as
# long as its highest option reported). Text: [reports].
_SUM_TYPED = """CASE a.kind
        WHEN {yes_no} THEN {bits}
        WHEN {numeric} THEN jsonb_build_array(
            COALESCE((t.reports -> a.key ->> 0)::numeric, 0) + 1,
            COALESCE((t.reports -> a.key ->> 1)::numeric, 0) + a.report,
            COALESCE((t.reports -> a.key ->> 2)::numeric, 0) + a.report::numeric * a.report
        )
        WHEN {choice} THEN CASE
            WHEN t.reports -> a.key IS NULL THEN a.added
            WHEN jsonb_array_length(t.reports -> a.key) > a.report + 1 THEN jsonb_set(
                {counted},
                ARRAY[(a.report + 1)::text],
                to_jsonb((t.reports -> a.key ->> (a.report + 1)::int)::numeric + 1)
            )
            ELSE {counted} || to_jsonb(
                array_fill(0, ARRAY[(a.report + 1 - jsonb_array_length(t.reports -> a.key))::int])
            ) || '[1]'
        END
        ELSE jsonb_build_array(COALESCE((t.reports -> a.key ->> 0)::numeric, 0) + 1)
    END"""
# A stored vector with its number of reports counted.
_COUNTED = """jsonb_set(
                    t.reports -> a.key, '{{0}}', to_jsonb((t.reports -> a.key ->> 0)::numeric + 1)
                )"""


def statement_text(*, typed, grouped, p, held=False, tokened=False):
    """The statement's text, with ``p`` mapping each parameter name to its placeholder.
    ``held``: the form for a batched survey, which stores the submission held
    (``Submission.held``) and writes no tally. ``tokened``: the form that spends the body's
    token with it (``_SPENT``)."""
    rules = rule_checks(typed=typed, p=p)
    if typed:
        answers = sql.SQL(_TYPED_ANSWERS).format(**p)
        question_rows = sql.SQL("{question} AS q, {answers} WHERE q.survey_id = v.id").format(
            **TABLES, answers=answers
        )
    else:
        question_rows = sql.SQL("{question} AS q WHERE q.survey_id = v.id").format(**TABLES)
    parts = [
        sql.SQL(_SURVEY).format(
            **TABLES,
            **p,
            accepting=rules[Rule.ACCEPTING],
            design=rules[Rule.DESIGN],
            access=rules[Rule.ACCESS],
            order_shown=rules[Rule.ORDER],
            batching=sql.SQL(_BATCHED if held else "NOT " + _BATCHED).format(
                **p,
                link=sql.Literal(Survey.Access.LINK.value),
                invitation_batch=sql.Literal(RELEASE_BATCH_INVITATION),
            ),
            answered=sql.SQL("a.question_id" if typed else "*"),
            known_questions=rules[Rule.KNOWN_QUESTIONS],
            reports_fit=rules[Rule.REPORTS_FIT],
            required_questions=rules[Rule.REQUIRED_QUESTIONS],
            question_rows=question_rows,
            required_groupings=rules[Rule.REQUIRED_GROUPINGS],
            known_groupings=rules[Rule.KNOWN_GROUPINGS],
            options_rule=rules[Rule.OPTIONS],
        ),
        sql.SQL(_TYPED_REPORTS).format(**TABLES, **KINDS, cheating=CODED_SQL, answers=answers)
        if typed
        else sql.SQL(_BITS).format(**p),
        sql.SQL(_SUBMISSION).format(
            **TABLES,
            **p,
            stored=sql.SQL(
                "COALESCE(to_jsonb(bit), to_jsonb(report), to_jsonb(text))" if typed else "bit"
            ),
            once=rules[Rule.ONCE],
            held=sql.Literal(held),
        ),
    ]
    if tokened:
        parts.append(sql.SQL(_SPENT).format(**TABLES, **p, held=sql.Literal(held)))
    if grouped:
        parts.append(sql.SQL(_GROUPING_ANSWERS).format(**TABLES, **p))
    if held:
        parts.append(sql.SQL(_HELD))
        return sql.Composed(parts).as_string()
    if grouped:
        yes_no_only = sql.SQL(" AND a.kind = {yes_no}").format(**KINDS) if typed else sql.SQL("")
        parts.append(
            sql.SQL(_GROUPING_WRITES).format(
                **TABLES,
                **p,
                yes_no_only=yes_no_only,
                summed=sql.SQL(_SUM_BITS),
                cells_from=sql.Literal(GROUP_CELLS_MIN_GROUPINGS),
            )
        )
    if typed:
        parts.append(sql.SQL(_NUMERIC_TALLIES).format(**TABLES, **KINDS, **p))
    parts.append(sql.SQL(_DAY_TALLY).format(**TABLES, **p, respondents=sql.Literal(RESPONDENTS)))
    parts.append(
        sql.SQL(_TALLY).format(
            **TABLES,
            **p,
            added=sql.SQL("a.added" if typed else "jsonb_build_array(1, a.bit::int)"),
            summed=sql.SQL(_SUM_TYPED if typed else _SUM_BITS).format(
                **KINDS, bits=sql.SQL(_SUM_BITS), counted=sql.SQL(_COUNTED).format()
            ),
            created=sql.SQL("(SELECT count(*) FROM grouped WHERE created)" if grouped else "0"),
        )
    )
    return sql.Composed(parts).as_string()


CHECKS = frozenset(rule_checks(typed=False, p={name: sql.SQL("") for name, _ in TYPED_PARAMETERS}))
if frozenset(Rule) != CHECKS:
    raise ImportError(f"rules without their SQL part: {sorted(frozenset(Rule) - CHECKS)}")
