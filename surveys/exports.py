"""CSV exports shared by the researcher pages and the API, streamed row by row."""

import csv
from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse
from django.utils import timezone

from . import __version__
from .models import question_key
from .selectors import SurveyEstimates, survey_report_rows

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
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def _number(value):
    # Numbers are written in full precision; NaN (no data) is an empty cell.
    if value is None or value != value:
        return None
    return value


def estimate_csv_rows(estimates: SurveyEstimates) -> Iterator[list]:
    survey = estimates.survey
    design = estimates.design
    provenance = [
        ("survey", survey.title),
        ("survey_slug", survey.slug),
        ("design", "forced response"),
        ("p_truth", design.p_truth),
        ("p_forced_yes", design.p_forced_yes),
        ("p_yes_given_yes", design.p_yes_given_yes),
        ("p_yes_given_no", design.p_yes_given_no),
        ("epsilon_per_answer", design.epsilon),
        ("ci_method", estimates.method),
        ("confidence", estimates.confidence),
        ("minimum_n", survey.min_n),
        ("software", f"rrsurvey {__version__}"),
        ("generated_at", estimates.generated_at.isoformat(timespec="seconds")),
    ]
    if survey.is_pilot:
        provenance.append(("pilot", "test responses only, discarded when the study opens"))
    for key, value in provenance:
        yield ["#", key, value]
    yield [
        "question_id",
        "position",
        "question",
        "n",
        "reported_yes",
        "yes_rate",
        "estimate",
        "clamped",
        "std_error",
        "ci_low",
        "ci_high",
        "suppressed",
    ]
    for row in estimates.rows:
        est = row.estimate
        hidden = row.suppressed
        yield [
            row.question_id,
            row.position + 1,
            row.text,
            est.n,
            est.yes,
            None if hidden else _number(est.yes_rate),
            None if hidden else _number(est.estimate),
            None if hidden else _number(est.clamped),
            None if hidden else _number(est.std_error),
            None if hidden else _number(est.ci_low),
            None if hidden else _number(est.ci_high),
            hidden,
        ]


def estimates_csv_response(estimates: SurveyEstimates) -> StreamingHttpResponse:
    stamp = timezone.now().strftime("%Y%m%d")
    return stream_csv(
        estimate_csv_rows(estimates),
        filename=f"rrsurvey-{estimates.survey.slug}-{_pilot(estimates.survey)}estimates-{stamp}.csv",
    )


def report_csv_rows(survey) -> Iterator[list]:
    question_ids = list(survey.questions.values_list("id", flat=True))
    yield ["submission_id", "received_on", *map(question_key, question_ids)]
    for row in survey_report_rows(survey=survey):
        yield [str(row.submission_id), row.received_on.isoformat(), *row.bits]


def reports_csv_response(survey) -> StreamingHttpResponse:
    stamp = timezone.now().strftime("%Y%m%d")
    return stream_csv(
        report_csv_rows(survey),
        filename=f"rrsurvey-{survey.slug}-{_pilot(survey)}reports-{stamp}.csv",
    )


def _pilot(survey):
    # A pilot's files say so in their name: its responses are tests, never the study's data.
    return "pilot-" if survey.is_pilot else ""
