"""Export for R: randomized reports with grouping covariates, and the matching rr code.

One CSV row per submission: ``submission_id``, ``received_on``, one 0/1 column ``q<id>`` per
yes/no question (the RANDOMIZED report; empty when the question was skipped) and one column
``g<id>`` per grouping question (the chosen option's label, see ``r_label``; empty when it was
skipped or answered "Prefer not to say", both missing for the model). ``r_snippet`` writes
the R code that fits the same model as the regression page with the ``rr`` package's
forced-response design (Blair, Imai & Zhou 2015): ``rrreg(..., design = "forced-known",
p = P(truthful), p1 = P(forced yes), p0 = P(forced no))`` (unconditional probabilities summing
to 1, unlike our ``p_forced_yes``, which is conditional).

The snippet reads every column as text with only an empty cell missing
(``colClasses = "character", na.strings = ""``): with ``read.csv``'s defaults an option
labelled "NA" would be read as missing and labels such as "01" or "2" as numbers, so
``factor(..., levels = ...)`` would not find them. Its levels are the options the regression
used (somebody with a report of the question and every grouping answer chose them), the
product's reference level first: an option nobody chose would be an empty level, and an
empty reference level makes the model matrix singular.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from django.utils import timezone

from .exports import FORMULA_PREFIXES, stream_csv
from .models import GroupAnswer, question_key
from .selectors import survey_design, survey_report_rows

R_READ_OPTIONS = 'fileEncoding = "UTF-8", colClasses = "character", na.strings = ""'


def _grouping_column(grouping_id):
    return f"g{grouping_id}"


def r_label(label: str) -> str:
    """An option label as the CSV for R holds it: a leading ``'`` when it starts like a formula.

    Also when it starts with ``'`` itself, so that the escape can be undone exactly (the R
    code removes one leading ``'``): "=x" is written "'=x" and "'=x" is written "''=x".
    """
    if label.startswith((*FORMULA_PREFIXES, "'")):
        return "'" + label
    return label


def r_export_rows(*, survey, grouping, chunk_size=10000) -> Iterator[list]:
    """Header, then one row per submission, streamed (reports and group answers, merged)."""
    question_ids = list(survey.questions.values_list("id", flat=True))
    grouping_column = {gq.pk: index for index, gq in enumerate(grouping)}
    yield [
        "submission_id",
        "received_on",
        *(question_key(qid) for qid in question_ids),
        *(_grouping_column(gq.pk) for gq in grouping),
    ]
    # Both streams in the same order (the respondent-drawn submission id, never arrival).
    answers = groupby(
        GroupAnswer.objects.filter(submission__survey=survey)
        .order_by("submission__submission_id", "grouping_question_id")
        .values_list("submission__submission_id", "grouping_question_id", "option__label")
        .iterator(chunk_size=chunk_size),
        key=itemgetter(0),
    )
    pending = next(answers, None)
    for row in survey_report_rows(survey=survey, chunk_size=chunk_size):
        labels = [None] * len(grouping)
        while pending is not None and pending[0] < row.submission_id:
            pending = next(answers, None)
        if pending is not None and pending[0] == row.submission_id:
            for _pk, grouping_id, label in pending[1]:
                # "Prefer not to say" (no option) is missing for the model, as skipping is.
                if label is not None:
                    labels[grouping_column[grouping_id]] = r_label(label)
            pending = next(answers, None)
        yield [str(row.submission_id), row.received_on.isoformat(), *row.bits, *labels]


def r_export_response(*, survey, grouping):
    stamp = timezone.now().strftime("%Y%m%d")
    return stream_csv(
        r_export_rows(survey=survey, grouping=grouping),
        filename=r_export_filename(survey=survey, stamp=stamp),
    )


def r_export_filename(*, survey, stamp=None):
    stamp = stamp or timezone.now().strftime("%Y%m%d")
    return f"rrsurvey-{survey.slug}-for-r-{stamp}.csv"


@dataclass(frozen=True)
class RDesign:
    """The survey's design in rr's terms: ``p + p1 + p0 = 1``."""

    p: float  # probability of answering truthfully (our p_truth)
    p1: float  # probability of a forced "yes": (1 - p_truth) p_forced_yes (our b)
    p0: float  # probability of a forced "no": (1 - p_truth) (1 - p_forced_yes)


def r_design(*, survey) -> RDesign:
    design = survey_design(survey=survey)
    a, b = design.exact_p_yes_given_yes, design.exact_p_yes_given_no
    truthful = a - b
    return RDesign(p=float(truthful), p1=float(b), p0=float(1 - truthful - b))


_R_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def r_string(text: str) -> str:
    """``text`` as an R string literal: quotes, backslashes and control characters escaped."""
    escaped = "".join(
        _R_ESCAPES.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x20 or ch == "\x7f" else ch)
        for ch in text
    )
    return f'"{escaped}"'


def r_snippet(*, survey, question, covariates) -> str:
    """R code fitting ``question`` on the grouping questions with rr's ``rrreg``.

    ``covariates`` are the regression's (``analysis.survey_regression``): each grouping
    question's levels are the options it used, the reference first, so R's reference level
    (a factor's first) is the product's. A grouping question with fewer than two such options
    adds no term (R refuses a one-level factor); its missing answers still drop the row, as
    in the product. See the module docstring for the read options.
    """
    design = r_design(survey=survey)
    response = question_key(question.pk)
    lines = [
        'install.packages("rr")  # once',
        "library(rr)",
        '# Every column as text and only an empty cell missing, so labels like "NA" or "01"',
        "# stay as they are.",
        f'd <- read.csv("{r_export_filename(survey=survey)}",',
        f"              {R_READ_OPTIONS})",
        f"d${response} <- as.integer(d${response})",
    ]
    columns, terms = [response], []
    for covariate in covariates:
        column = _grouping_column(covariate.grouping_question_id)
        used = [level for level in covariate.levels if level.role != "dropped"]
        used.sort(key=lambda level: level.role != "reference")  # stable: builder order
        if any(r_label(level.label) != level.label for level in covariate.levels):
            lines.append(f'd${column} <- sub("^\'", "", d${column})  # undo the CSV\'s \' escape')
        levels = ", ".join(r_string(level.label) for level in used)
        lines.append(f"d${column} <- factor(d${column}, levels = c({levels}))")
        columns.append(column)
        if len(used) >= 2:
            terms.append(column)
    names = ", ".join(r_string(column) for column in columns)
    lines += [
        "# The rows the regression page uses: a report of the question and every group answer.",
        f"d <- d[complete.cases(d[c({names})]), ]",
        "# p: truthful answer; p1: forced yes; p0: forced no (unconditional, summing to 1)",
        "set.seed(1)  # rrreg starts its EM algorithm from random values",
        f"fit <- rrreg({response} ~ {' + '.join(terms) or '1'}, data = d,",
        f"             p = {design.p!r}, p1 = {design.p1!r}, p0 = {design.p0!r},",
        '             design = "forced-known")',
        "summary(fit)",
    ]
    return "\n".join(lines)
