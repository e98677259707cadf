"""Export for R: randomized reports with grouping covariates, and the matching rr code.

One CSV row per submission: ``submission_id``, ``received_on``, one 0/1 column ``q<id>`` per
yes/no question (the RANDOMIZED report) and one column ``g<id>`` per grouping question (the
chosen option's label, as given). ``r_snippet`` writes the R code that fits the same model as
the regression page with the ``rr`` package's forced-response design (Blair, Imai & Zhou 2015):
``rrreg(..., design = "forced-known", p = P(truthful), p1 = P(forced yes), p0 = P(forced no))``
(unconditional probabilities summing to 1, unlike our ``p_forced_yes``, which is conditional).
"""

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from django.utils import timezone

from .exports import csv_safe, stream_csv
from .models import GroupAnswer, question_key
from .selectors import survey_design, survey_report_rows


def _grouping_column(grouping_id):
    return f"g{grouping_id}"


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
                labels[grouping_column[grouping_id]] = label
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


def _r_string(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def r_snippet(*, survey, question, grouping) -> str:
    """R code fitting ``question`` on the grouping questions with rr's ``rrreg``.

    Levels are listed in the builder's order so that R's reference level (the first) is the
    same as the regression page's; labels are written as the CSV holds them.
    """
    design = r_design(survey=survey)
    lines = [
        'install.packages("rr")  # once',
        "library(rr)",
        f'd <- read.csv("{r_export_filename(survey=survey)}", fileEncoding = "UTF-8")',
    ]
    terms = []
    for gq in grouping:
        column = _grouping_column(gq.pk)
        levels = ", ".join(_r_string(csv_safe(option.label)) for option in gq.options.all())
        lines.append(f"d${column} <- factor(d${column}, levels = c({levels}))")
        terms.append(column)
    lines += [
        "# p: truthful answer; p1: forced yes; p0: forced no (unconditional, summing to 1)",
        "set.seed(1)  # rrreg starts its EM algorithm from random values",
        f"fit <- rrreg({question_key(question.pk)} ~ {' + '.join(terms) or '1'}, data = d,",
        f"             p = {design.p!r}, p1 = {design.p1!r}, p0 = {design.p0!r},",
        '             design = "forced-known")',
        "summary(fit)",
    ]
    return "\n".join(lines)
