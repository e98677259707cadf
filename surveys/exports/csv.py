"""CSV exports shared by the researcher pages and the API, streamed row by row.

Columns are named as the interface names them (``surveys.exports.codebook``); the ZIP and Excel
downloads that bundle these files with their codebook are in ``surveys.exports.bundles``.
"""

import csv
from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.text import slugify

from ..models import PREFER_NOT_TO_SAY, Question
from ..selectors import SurveyEstimates, headline, survey_report_answer_rows
from .codebook import Codebook, codebook_rows
from .control_group import control_group_csv_rows

# A spreadsheet treats a cell starting with one of these as a formula (CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value):
    """Neutralise spreadsheet formulas: prefix a quote to text cells that start like one."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    text = str(value)
    if text.startswith(FORMULA_PREFIXES):
        return "'" + text
    return text


class _Echo:
    def write(self, value):
        return value


def stream_csv(rows: Iterable[Iterable], *, filename) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())
    response = StreamingHttpResponse(
        (writer.writerow([csv_safe(cell) for cell in row]) for row in rows),
        content_type="text/csv; charset=utf-8",
    )
    response["Content-Disposition"] = content_disposition_header(True, filename)
    response["Cache-Control"] = "no-store"
    return response


def _number(value):
    # Numbers are written in full precision; NaN (no data) is an empty cell.
    if value is None or value != value:
        return None
    return value


def escape_label(label: str) -> str:
    """An option label as the CSV files hold it: a leading ``'`` when it starts like a formula.

    Also when it starts with ``'`` itself, so that the escape can be undone exactly (remove one
    leading ``'``): "=x" is written "'=x" and "'=x" is written "''=x". The codebook lists the
    labels escaped the same way, so a data cell is found in the codebook as it is.
    """
    if label.startswith((*FORMULA_PREFIXES, "'")):
        return "'" + label
    return label


ESTIMATE_HEADER = [
    "column",
    "question_id",
    "position",
    "question",
    "type",
    "design",
    "statistic",
    "option_index",
    "option",
    "threshold",
    "n",
    "reported_yes",
    "option_reports",
    "yes_rate",
    "estimate",
    "clamped",
    "unbiased",
    "std_error",
    "ci_low",
    "ci_high",
    "suppressed",
    "ci_method",
    # The method asked for; ci_method is the one used (exact where it could not keep the level).
    "requested_ci_method",
    "confidence",
    "adjustment",
    "interval_confidence",
    "epsilon",
    "parameters",
    # A numeric question's manipulation check (dpengine.manipulation_check), on its rows.
    "extreme_reports",
    "extreme_expected_at_most",
    "manipulation_p_value",
    "manipulation_flagged",
]
# The interval of a numeric question's statistics: estimate ± z · standard error.
NORMAL_METHOD = "normal"


def _estimate_row(row, estimates, **cells):
    """One CSV row of ``row``: its identity and provenance, and ``cells`` by header name."""
    values = {
        "column": row.column,
        "question_id": row.question_id,
        "position": row.position + 1,
        "question": row.text,
        "type": row.kind,
        "design": row.design_name,
        "suppressed": row.suppressed,
        "ci_method": estimates.method,
        "requested_ci_method": estimates.method,
        "confidence": estimates.confidence,
        "interval_confidence": estimates.confidence,
        "epsilon": row.epsilon,
        "parameters": row.parameters_text,
        **cells,
    }
    return [values.get(name) for name in ESTIMATE_HEADER]


def _statistic_cells(value, hidden):
    """The estimate, clamped, unbiased, std_error, ci_low and ci_high cells of a result
    (empty when the row is suppressed). ``estimate`` and ``ci_low``/``ci_high`` are what the
    results page shows (``selectors.headline``: the estimate lies inside the interval);
    ``unbiased`` is the unbiased estimate, which may not."""
    shown = headline(value)
    cells = {
        "estimate": shown.estimate,
        "clamped": value.clamped,
        "unbiased": value.estimate,
        "std_error": value.std_error,
        "ci_low": shown.ci_low,
        "ci_high": shown.ci_high,
    }
    return {name: None if hidden else _number(cell) for name, cell in cells.items()}


def _direct_estimate_rows(row, estimates, *, label):
    """A direct question's rows (``design`` direct, no ε): one ``share`` per answer (yes/no:
    yes and no; choice: each option) with ordinary binomial intervals, or its ``mean``
    (normal interval); a text question one ``answers`` row with its count only."""
    hidden = row.suppressed
    if row.is_text:
        yield _estimate_row(row, estimates, statistic="answers", n=row.n)
        return
    if row.mean is not None:
        mean = row.mean
        yield _estimate_row(
            row,
            estimates,
            statistic="mean",
            n=row.n,
            ci_method=NORMAL_METHOD,
            **{
                name: None if hidden else _number(value)
                for name, value in (
                    ("estimate", mean.mean),
                    ("ci_low", mean.ci_low),
                    ("ci_high", mean.ci_high),
                )
            },
        )
        return
    for index, (answer, share) in enumerate(row.options):
        yield _estimate_row(
            row,
            estimates,
            statistic="share",
            option_index=index if row.type == "choice" else None,
            option=label(answer),
            n=row.n,
            option_reports=share.count,
            **{
                name: None if hidden else _number(value)
                for name, value in (
                    ("estimate", share.share),
                    ("ci_low", share.ci_low),
                    ("ci_high", share.ci_high),
                )
            },
        )


def _cheating_estimate_rows(row, estimates):
    """A cheating-detection question's rows: each group's counts (``group_1``, ``group_2``),
    then one row per parameter (CDM: ``pi``, ``beta``, ``gamma``; SLD: ``pi``, ``t``): the
    estimate on the parameter space inside its interval, ``unbiased`` RRreg's closed form."""
    hidden, est = row.suppressed, row.estimate
    for group, (n, yes) in enumerate(((est.n1, est.yes1), (est.n2, est.yes2)), start=1):
        yield _estimate_row(
            row,
            estimates,
            statistic=f"group_{group}",
            n=n,
            reported_yes=yes,
            yes_rate=None if hidden or not n else _number(yes / n),
        )
    for parameter in row.shown_parameters:
        cells = {
            "estimate": parameter.estimate,
            "clamped": parameter.estimate,
            "unbiased": parameter.closed_form,
            "std_error": parameter.std_error,
            "ci_low": parameter.ci_low,
            "ci_high": parameter.ci_high,
        }
        yield _estimate_row(
            row,
            estimates,
            statistic=parameter.name,
            n=est.n,
            reported_yes=est.yes,
            # exact_conservative where dpengine's rule replaced Wald's (small groups).
            ci_method=parameter.method,
            requested_ci_method="fieller" if parameter.name == "t" else "wald",
            **{name: None if hidden else _number(cell) for name, cell in cells.items()},
            # With why a parameter is not estimated (CDM/SLD under the device procedure).
            parameters=row.parameters_text_for(parameter.name),
        )


def _check_cells(check):
    """A numeric question's manipulation check cells (empty when suppressed)."""
    if check is None:
        return {}
    return {
        "extreme_reports": check.beyond,
        "extreme_expected_at_most": check.expected_at_most,
        "manipulation_p_value": check.p_value,
        "manipulation_flagged": check.flagged,
    }


def estimate_csv_rows(estimates: SurveyEstimates, *, label=escape_label) -> Iterator[list]:
    """The estimates file, header first, named as on the results page (``Q1``…). A yes/no
    question has one row (``statistic`` share_yes); a multiple-choice question one row per
    option (``share``, with Bonferroni-adjusted intervals, ``adjustment`` bonferroni and
    each interval's level in ``interval_confidence``); a numeric question a row for its
    ``mean`` and one for its ``share_above`` the ``threshold`` (normal intervals), both with
    its manipulation check (``extreme_reports`` ... ``manipulation_flagged``). Every row
    carries its type, design, ε and parameters; the rest of the provenance is in the codebook.
    Suppressed rows keep their counts and leave the statistics empty."""
    yield ESTIMATE_HEADER
    for row in estimates.rows:
        hidden = row.suppressed
        if row.kind == "choice":
            for option in row.options:
                yield _estimate_row(
                    row,
                    estimates,
                    statistic="share",
                    option_index=option.index,
                    option=label(option.label),
                    n=row.n,
                    option_reports=option.count,
                    yes_rate=None if hidden or not row.n else option.count / row.n,
                    adjustment="bonferroni",
                    interval_confidence=row.per_option_confidence,
                    ci_method=row.estimate.method,
                    requested_ci_method=row.estimate.requested_method,
                    **_statistic_cells(option, hidden),
                )
        elif row.kind == "numeric":
            for statistic, value, threshold in (
                ("mean", row.mean, None),
                ("share_above", row.share_above, row.threshold),
            ):
                yield _estimate_row(
                    row,
                    estimates,
                    statistic=statistic,
                    threshold=threshold,
                    n=row.n,
                    ci_method=NORMAL_METHOD,
                    requested_ci_method=NORMAL_METHOD,
                    **_statistic_cells(value, hidden),
                    **_check_cells(row.manipulation_check),
                )
        elif row.kind == "direct":
            yield from _direct_estimate_rows(row, estimates, label=label)
        elif row.kind == "cheating":
            yield from _cheating_estimate_rows(row, estimates)
        else:
            est = row.estimate
            yield _estimate_row(
                row,
                estimates,
                statistic="share_yes",
                n=est.n,
                reported_yes=est.yes,
                yes_rate=None if hidden else _number(est.yes_rate),
                ci_method=est.method,
                requested_ci_method=est.requested_method,
                **_statistic_cells(est, hidden),
            )


# Long enough to tell surveys apart in a folder, short enough for every file system.
TITLE_SLUG_MAX_LENGTH = 50


def title_slug(survey) -> str:
    """The start of every export's file name: the survey's title as a slug (its own script
    kept, so a Korean title stays readable), ``survey`` when nothing of it is left.

    Never the survey's ``slug``: that is the secret respondent-link code, and a file is
    emailed and shared far more freely than the link should be."""
    text = slugify(survey.title, allow_unicode=True)[:TITLE_SLUG_MAX_LENGTH].strip("-_")
    return text or "survey"


def export_filename(survey, *, kind, extension) -> str:
    stamp = timezone.localdate().isoformat()
    return f"{title_slug(survey)}-{_pilot(survey)}{kind}-{stamp}.{extension}"


def _csv_download(rows, *, survey, kind, codebook_url=None):
    response = stream_csv(rows, filename=export_filename(survey, kind=kind, extension="csv"))
    # Names the file that explains the columns, for a client that fetched the data alone.
    if codebook_url:
        response["Link"] = f'<{codebook_url}>; rel="describedby"; type="text/csv"'
    return response


def estimates_csv_response(estimates: SurveyEstimates, *, codebook_url=None):
    return _csv_download(
        estimate_csv_rows(estimates),
        survey=estimates.survey,
        kind="estimates",
        codebook_url=codebook_url,
    )


def report_rows(codebook: Codebook, *, label=escape_label, chunk_size=10000) -> Iterator[list]:
    """The raw reports file, header first, one row per submission, streamed.

    ``Q`` cells are the randomized bits (``True``/``False``), ``G`` cells the chosen option's
    label written by ``label``, or ``prefer_not_to_say`` when the respondent chose the built-in
    "Prefer not to say" (a label can never be that code: the builder refuses it); a question or
    grouping question a submission skipped is ``None`` (an empty cell), never 0.

    One server-side cursor over one query (``selectors.survey_report_answer_rows``: each
    submission joined to its grouping answers), so nothing is sorted twice or merged.
    """
    grouping_index = {gq.pk: index for index, gq in enumerate(codebook.grouping)}
    # "Prefer not to say" has no option: its own code, so that it stays apart from a skip (an
    # empty cell) as the database keeps them apart. Labels are escaped once per option.
    labels = {None: PREFER_NOT_TO_SAY}
    for gq in codebook.grouping:
        labels.update({option.pk: label(option.label) for option in gq.options.all()})
    yield codebook.columns
    rows = survey_report_answer_rows(
        survey=codebook.survey,
        chunk_size=chunk_size,
        with_answers=bool(grouping_index),
        comprehension=bool(codebook.comprehension),
    )
    for row in rows:
        cells = [None] * len(grouping_index)
        for grouping_id, option_id in row.answers:
            cells[grouping_index[grouping_id]] = labels[option_id]
        # A direct text answer is written as a label is: escaped when it starts like a formula.
        reports = [label(report) if isinstance(report, str) else report for report in row.bits]
        yield [str(row.submission_id), row.received_on, *reports, *cells, *row.positions]


# A report as the database writes it (``survey_report_answer_rows(as_text=True)``), as the CSV
# writes it: a yes/no report 1/0 (JSON true/false: PostgreSQL's text, SQLite's 1/0), a skipped
# one empty; numbers (an option's index, a noisy integer) as they are.
_REPORT_TEXT = {"true": "1", "false": "0", None: "", True: "1", False: "0"}


def report_csv_text_rows(codebook: Codebook, *, chunk_size=20000) -> Iterator[list]:
    """The raw reports file as ``report_csv_rows`` writes it, every cell already text that
    needs no formula escape (labels escaped once per option), with no JSON decoded in Python
    and nothing checked per cell: the SQLite path of ``exports.csv_blocks`` (on PostgreSQL the
    database writes the lines itself, ``exports.csv_postgres``)."""
    grouping_index = {gq.pk: index for index, gq in enumerate(codebook.grouping)}
    labels = {None: PREFER_NOT_TO_SAY}
    for gq in codebook.grouping:
        labels.update({option.pk: escape_label(option.label) for option in gq.options.all()})
    text = _REPORT_TEXT.get
    # A direct text answer is the respondent's own words: escaped like a label, never read as
    # a yes/no ("true" typed is text, not a report).
    typed = {
        index
        for index, question in enumerate(codebook.questions)
        if question.kind == Question.Kind.TEXT
    }
    yield codebook.columns
    rows = survey_report_answer_rows(
        survey=codebook.survey,
        chunk_size=chunk_size,
        with_answers=bool(grouping_index),
        as_text=True,
        comprehension=bool(codebook.comprehension),
    )
    empty = [""] * len(grouping_index)
    for row in rows:
        cells = empty.copy()
        for grouping_id, option_id in row.answers:
            cells[grouping_index[grouping_id]] = labels[option_id]
        bits = [
            ("" if bit is None else escape_label(bit)) if index in typed else str(text(bit, bit))
            for index, bit in enumerate(row.bits)
        ]
        positions = ["" if place is None else str(place) for place in row.positions]
        yield [str(row.submission_id), row.received_on.isoformat(), *bits, *cells, *positions]


def report_csv_rows(codebook: Codebook) -> Iterator[list]:
    rows = report_rows(codebook)
    yield next(rows)
    for row in rows:
        row[1] = row[1].isoformat()  # received_on: a date, written YYYY-MM-DD
        yield row


def control_group_csv_response(results, *, survey):
    return _csv_download(
        control_group_csv_rows(results, label=escape_label), survey=survey, kind="control-group"
    )


def codebook_csv_rows(codebook: Codebook) -> Iterator[list]:
    return codebook_rows(codebook, label=escape_label)


def codebook_csv_response(codebook: Codebook):
    return _csv_download(codebook_csv_rows(codebook), survey=codebook.survey, kind="codebook")


def _pilot(survey):
    # A pilot's files say so in their name: its responses are tests, never the study's data.
    return "pilot-" if survey.is_pilot else ""
