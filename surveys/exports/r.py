"""Export for R: randomized reports with grouping covariates, and the matching rr code.

The raw reports file (``exports.csv.report_rows``), under its own name: one CSV row per
submission, ``submission_id``, ``received_on``, one column ``Q1``…``Qn`` per question in
display order (the RANDOMIZED report: 0/1 for yes/no, an option's index from 0 for multiple
choice, an integer for a number; empty when skipped) and one column
``G1``…``Gm`` per grouping question (the chosen option's label, see ``r_label``;
``prefer_not_to_say`` for the built-in "Prefer not to say", which ``factor(..., levels = ...)``
turns into NA as the product counts it missing; empty when skipped).
``r_snippet`` writes the R code that fits the same model as the regression page with the
``rr`` package's forced-response design (Blair, Imai & Zhou 2015): ``rrreg(..., design =
"forced-known", p = P(truthful), p1 = P(forced yes), p0 = P(forced no))`` (unconditional
probabilities summing to 1, unlike our ``p_forced_yes``, which is conditional); a question
with another yes/no design is fitted with RRreg's ``RRlog`` and the model its design names
(``design.r_model``: Warner, UQTknown, Kuk, or FR for the private Mangat variant).
``r_estimates_script`` estimates every question: RRreg's ``RRuni`` for yes/no, and base R's
moment estimators for multiple choice and numbers (RRreg has no model for them).

The snippet reads every column as text with only an empty cell missing
(``colClasses = "character", na.strings = ""``): with ``read.csv``'s defaults an option
labelled "NA" would be read as missing and labels such as "01" or "2" as numbers, so
``factor(..., levels = ...)`` would not find them. Its levels are the options the regression
used (somebody with a report of the question and every grouping answer chose them), the
product's reference level first: an option nobody chose would be an empty level, and an
empty reference level makes the model matrix singular.
"""

from dataclasses import dataclass

from django.http import HttpResponse
from django.utils.http import content_disposition_header

from ..models import Question
from ..selectors import (
    design_name,
    is_cheating_detection,
    question_design,
    question_mechanism,
    survey_design,
)
from ..selectors.columns import grouping_column, question_column
from ..selectors.mechanisms import FORCED_RESPONSE
from .codebook import survey_codebook
from .csv import escape_label, export_filename, report_csv_rows

R_READ_OPTIONS = 'fileEncoding = "UTF-8", colClasses = "character", na.strings = ""'


def r_label(label: str) -> str:
    """An option label as the CSV for R holds it (``exports.csv.escape_label``): a leading ``'``
    when it starts like a formula or with ``'``, so the R code can undo it exactly."""
    return escape_label(label)


def r_export_rows(*, survey):
    """Header, then one row per submission, streamed: the raw reports file's rows."""
    return report_csv_rows(survey_codebook(survey=survey))


def r_export_filename(*, survey):
    return export_filename(survey, kind="for-r", extension="csv")


def _column_names(*, survey):
    """``({question id: "Q<n>"}, {grouping question id: "G<m>"})`` in display order."""
    questions = survey.questions.values_list("id", flat=True)
    grouping = survey.grouping_questions.values_list("id", flat=True)
    return (
        {qid: question_column(index) for index, qid in enumerate(questions)},
        {gid: grouping_column(index) for index, gid in enumerate(grouping)},
    )


@dataclass(frozen=True)
class RDesign:
    """The survey's design in rr's terms: ``p + p1 + p0 = 1``."""

    p: float  # probability of answering truthfully (our p_truth)
    p1: float  # probability of a forced "yes": (1 - p_truth) p_forced_yes (our b)
    p0: float  # probability of a forced "no": (1 - p_truth) (1 - p_forced_yes)


def r_design(*, survey, question=None) -> RDesign | None:
    """rr's forced-response parameters of ``question``'s design (the survey's coins when no
    question is given); None when the question uses another design (rr's ``rrreg`` then is
    not the model: ``r_snippet`` uses RRreg's ``RRlog``)."""
    design = survey_design(survey=survey)
    if question is not None:
        design = question_design(question, survey=survey)
        if design.kind != FORCED_RESPONSE:
            return None
    a, b = design.exact_p_yes_given_yes, design.exact_p_yes_given_no
    truthful = a - b
    return RDesign(p=float(truthful), p1=float(b), p0=float(1 - truthful - b))


def r_vector(values) -> str:
    """Numbers as R code: one number, or ``c(...)`` of several (full precision)."""
    written = [repr(float(value)) for value in values]
    return written[0] if len(written) == 1 else f"c({', '.join(written)})"


def rrreg_model(*, survey, question) -> str:
    """RRreg's arguments for a yes/no question's design: ``model = "Warner", p = 0.75``
    (``design.r_model``: the model RRreg fits for exactly these P(yes | truth))."""
    model = question_design(question, survey=survey).r_model
    return f"model = {r_string(model.name)}, p = {r_vector(model.p)}"


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

    ``covariates`` are the regression's (``selectors.survey_regression``): each grouping
    question's levels are the options it used, the reference first, so R's reference level
    (a factor's first) is the product's. A grouping question with fewer than two such options
    adds no term (R refuses a one-level factor); its missing answers still drop the row, as
    in the product. See the module docstring for the read options.
    """
    design = r_design(survey=survey, question=question)
    question_names, grouping_names = _column_names(survey=survey)
    response = question_names[question.pk]
    package = "rr" if design is not None else "RRreg"
    lines = [
        f"install.packages({r_string(package)})  # once",
        f"library({package})",
        '# Every column as text and only an empty cell missing, so labels like "NA" or "01"',
        "# stay as they are.",
        f'd <- read.csv("{r_export_filename(survey=survey)}",',
        f"              {R_READ_OPTIONS})",
        f"d${response} <- as.integer(d${response})",
    ]
    if question.compare_direct:
        # Codes 0/1 are the randomized arm's reports, 2/3 the control group's direct answers.
        lines.append(f"d <- d[!is.na(d${response}) & d${response} <= 1, ]  # the randomized arm")
    columns, terms = [response], []
    for covariate in covariates:
        column = grouping_names[covariate.grouping_question_id]
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
    ]
    formula = f"{response} ~ {' + '.join(terms) or '1'}"
    if design is None:
        # Another yes/no design: RRreg's logistic regression with the matching model.
        lines += [
            f"fit <- RRlog({formula}, data = d,",
            f"             {rrreg_model(survey=survey, question=question)})",
            "summary(fit)",
        ]
        return "\n".join(lines)
    lines += [
        "# p: truthful answer; p1: forced yes; p0: forced no (unconditional, summing to 1)",
        "set.seed(1)  # rrreg starts its EM algorithm from random values",
        f"fit <- rrreg({formula}, data = d,",
        f"             p = {design.p!r}, p1 = {design.p1!r}, p0 = {design.p0!r},",
        '             design = "forced-known")',
        "summary(fit)",
    ]
    return "\n".join(lines)


def r_estimates_filename(*, survey):
    return export_filename(survey, kind="estimates", extension="R")


def r_estimates_response(*, survey) -> HttpResponse:
    """The estimates script as a download (``<title>-estimates-<date>.R``), never cached."""
    response = HttpResponse(
        r_estimates_script(survey=survey), content_type="text/plain; charset=utf-8"
    )
    response["Content-Disposition"] = content_disposition_header(
        True, r_estimates_filename(survey=survey)
    )
    response["Cache-Control"] = "no-store"
    return response


def _r_direct_lines(question, column) -> list[str]:
    """R lines for a question asked directly: its answers as given, summarised in base R."""
    if question.kind == Question.Kind.TEXT:
        return [f"# {column}: text asked directly (not randomized): the answers as written"]
    lines = [f"y <- d${column}[!is.na(d${column})]"]
    if question.kind == Question.Kind.NUMERIC:
        return [
            f"# {column}: number asked directly (not randomized)",
            *lines,
            f'add("{column}", "mean", mean(y))',
            f'add("{column}", "std_dev", sd(y))',
        ]
    if question.kind == Question.Kind.CHOICE:
        k = len(question.options)
        return [
            f"# {column}: multiple choice asked directly (not randomized), options from 0",
            *lines,
            f"counts <- table(factor(y, levels = 0:{k - 1}))",
            f"names(counts) <- c({', '.join(r_string(o) for o in question.options)})",
            "print(counts)",
            f'add("{column}", "share", as.vector(counts) / length(y), option = 0:{k - 1})',
        ]
    return [
        f"# {column}: yes/no asked directly (not randomized)",
        *lines,
        f'add("{column}", "share_yes", mean(y == 1))',
    ]


def _r_choice_lines(question, column) -> list[str]:
    k = len(question.options)
    eps = repr(float(question.epsilon))
    return [
        f"# {column}: multiple choice, k-ary randomized response (k = {k}, ε = {eps}),",
        "# options from 0",
        f"x <- factor(d${column}[!is.na(d${column})], levels = 0:{k - 1})",
        "n <- length(x); lambda <- as.vector(table(x)) / n",
        f"keep <- exp({eps}) / (exp({eps}) + {k - 1}); other <- 1 / (exp({eps}) + {k - 1})",
        "shares <- (lambda - other) / (keep - other)  # unbiased; may leave 0-1",
        f"names(shares) <- c({', '.join(r_string(o) for o in question.options)})",
        "print(shares)",
        f'add("{column}", "share", shares, sqrt(lambda * (1 - lambda) / n) / (keep - other),',
        f"    option = 0:{k - 1})",
        f'add("{column}", "consistent_share", simplex(shares), option = 0:{k - 1})',
    ]


def _r_numeric_lines(question, column, *, survey) -> list[str]:
    mechanism = question_mechanism(question, survey=survey)
    lo, hi = question.min_value, question.max_value
    return [
        f"# {column}: number on [{lo}, {hi}] plus discrete Laplace noise "
        f"(ε = {float(question.epsilon)!r})",
        f"y <- d${column}[!is.na(d${column})]",
        f"noise_variance <- {mechanism.noise_variance!r}  # 2 alpha / (1 - alpha)^2",
        "# The mean of the answers clamped to the range; the noise has mean 0 and adds",
        "# noise_variance, so the variance is never taken below it.",
        f'add("{column}", "mean", mean(y), sqrt(max(var(y), noise_variance) / length(y)))',
    ]


def _r_cheating_lines(question, column, *, survey) -> list[str]:
    model = question_design(question, survey=survey).r_model
    names = ("pi", "beta", "gamma") if model.name == "CDM" else ("pi", "t")
    return [
        f"# {column}: cheating detection ({model.name}), code = 2 × (group − 1) + report",
        f"y <- d${column}[!is.na(d${column})]",
        "fit <- RRuni(response = y %% 2, group = y %/% 2 + 1,",
        f"             {rrreg_model(survey=survey, question=question)})",
        "print(summary(fit))",
        "# At a bound of its range (gamma 0, t 1) RRuni gives no standard error (NaN); the",
        "# results page's interval is built for that case.",
        *(f'add("{column}", "{name}", fit${name}, fit${name}SE)' for name in names),
    ]


def _r_yes_no_lines(question, column, *, survey) -> list[str]:
    design = question_design(question, survey=survey)
    lines = [
        f"# {column}: yes/no, {design_name(question).replace('_', ' ')} "
        f"(a = {design.p_yes_given_yes!r}, b = {design.p_yes_given_no!r})",
        f"y <- d${column}[!is.na(d${column})]",
    ]
    if question.compare_direct:
        lines += [
            "# Compared with asking directly: codes 0/1 randomized, 2/3 the control group's",
            "# direct no/yes.",
            "direct <- y[y >= 2] - 2",
            "y <- y[y < 2]",
        ]
    lines += [
        f"fit <- RRuni(response = y, {rrreg_model(survey=survey, question=question)})",
        "print(summary(fit))",
        "# RRuni's FR model lists both answers' shares (\"yes\" last); its standard error",
        "# divides by n - 1 where the results page's divides by n.",
        "estimate <- tail(fit$pi, 1)",
        f'add("{column}", "share_yes", estimate, tail(fit$piSE, 1) * sqrt((fit$n - 1) / fit$n))',
    ]
    if question.compare_direct:
        lines += [
            f'add("{column}", "direct_share", mean(direct))',
            f'add("{column}", "difference", estimate - mean(direct))',
        ]
    return lines


R_SCRIPT_START = """\
if (!requireNamespace("RRreg", quietly = TRUE)) install.packages("RRreg")
library(RRreg)
# Every column as text with only an empty cell missing, then each question's codes as
# integers (a text question's answers stay text).
d <- read.csv({filename},
              {read_options})
codes <- c({codes})
d[codes] <- lapply(d[codes], as.integer)

# One row per number: the question's column, the statistic (as the API names it), the
# option (from 0) where there is one, the estimate and its standard error.
estimates <- data.frame(column = character(), statistic = character(), option = integer(),
                        estimate = numeric(), std_error = numeric())
add <- function(column, statistic, estimate, std_error = NA, option = NA) {{
  estimates <<- rbind(estimates, data.frame(column = column, statistic = statistic,
    option = option, estimate = estimate, std_error = std_error, row.names = NULL))
}}
# The Euclidean projection onto the probability simplex (Duchi et al. 2008): the shares
# closest to the unbiased ones that are not negative and sum to 1.
simplex <- function(v) {{
  u <- sort(v, decreasing = TRUE)
  rho <- max(which(u - (cumsum(u) - 1) / seq_along(u) > 0))
  x <- pmax(v - (sum(u[1:rho]) - 1) / rho, 0)
  x / sum(x)
}}
"""


def r_estimates_script(*, survey) -> str:
    """R code that estimates every question from the raw reports file, each by its type,
    and collects the numbers in a data frame ``estimates`` (column, statistic, option,
    estimate, std_error) named as the estimates API names them: a yes/no question with
    RRreg's ``RRuni`` and the model of its design (a compared question's randomized arm,
    and its control group's direct share); a cheating-detection question with RRuni's CDM
    or SLD; a multiple-choice question with the moment estimator of k-ary randomized
    response in base R (RRreg has no model for it) and its projection onto the simplex; a
    numeric question's mean in base R (the noise has mean 0); a direct question's shares or
    mean. Intervals are the results page's to give (its methods are not all in R)."""
    question_names, _grouping = _column_names(survey=survey)
    questions = list(survey.questions.all())
    codes = [question_names[q.pk] for q in questions if q.kind != Question.Kind.TEXT]
    lines = [
        R_SCRIPT_START.format(
            filename=r_string(r_export_filename(survey=survey)),
            read_options=R_READ_OPTIONS,
            codes=", ".join(r_string(code) for code in codes),
        )
    ]
    for question in questions:
        column = question_names[question.pk]
        if not question.randomized:
            lines += _r_direct_lines(question, column)
        elif question.kind == Question.Kind.CHOICE:
            lines += _r_choice_lines(question, column)
        elif question.kind == Question.Kind.NUMERIC:
            lines += _r_numeric_lines(question, column, survey=survey)
        elif is_cheating_detection(question):
            lines += _r_cheating_lines(question, column, survey=survey)
        else:
            lines += _r_yes_no_lines(question, column, survey=survey)
        lines.append("")
    lines.append("print(estimates)")
    return "\n".join(lines) + "\n"
