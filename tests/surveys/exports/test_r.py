"""The export for R: one row per submission with the grouping covariates, and the rr code."""

import csv
import html
import io
import re
from fractions import Fraction

import numpy as np
import pytest
from django.urls import reverse

from surveys import selectors, services
from surveys.exports import r as r_export
from surveys.services import grouping

pytestmark = pytest.mark.django_db


def rows_of(response):
    body = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(body)))


def test_one_row_per_submission_with_randomized_bits_and_chosen_options(
    grouped_survey, options, submit_grouped, owner_client
):
    sent = [([True, False], options[0]), ([False, False], options[2]), ([True, True], options[1])]
    for bits, option in sent:
        assert submit_grouped(grouped_survey, bits, [option]).status_code == 201
    response = owner_client.get(reverse("surveys:r-export", kwargs={"pk": grouped_survey.pk}))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    header, *rows = rows_of(response)
    # The raw reports file's columns: named as the interface names them.
    assert header == ["submission_id", "received_on", "Q1", "Q2", "G1", "P1", "P2"]
    # Rows by submission id (random), not in the order they arrived.
    assert [row[0] for row in rows] == sorted(row[0] for row in rows)
    assert sorted(row[2:] for row in rows) == sorted(
        [["1", "0", "Sales", "", ""], ["0", "0", "Support", "", ""], ["1", "1", "Research", "", ""]]
    )


# --- R, emulated: R is not installed, so the tests read the CSV as R's read.csv would -------


def read_csv_like_r(text, *, na_strings=("NA",), col_classes=None):
    """What ``read.csv(text, na.strings, colClasses)`` gives, as {column: values}.

    read.csv: ``sep = ","``, ``quote = "\\""`` with doubled quotes inside quoted fields,
    no comment character, no white-space stripping; a field (after unquoting) equal to one of
    ``na.strings`` is NA, also for character columns. Without ``colClasses``
    ``type.convert`` turns a column whose other values all read as integers into integers
    (so "01" becomes 1); with ``colClasses = "character"`` every column stays text.
    """
    header, *rows = csv.reader(io.StringIO(text))
    columns = {}
    for index, name in enumerate(header):
        values = [None if row[index] in na_strings else row[index] for row in rows]
        if col_classes is None and all(re.fullmatch(r"-?\d+", v) for v in values if v):
            values = [None if v is None or v == "" else int(v) for v in values]
        columns[name] = values
    return columns


R_STRING = r'"((?:[^"\\]|\\.)*)"'


def r_unquote(literal):
    return re.sub(
        r"\\(x[0-9a-f]{2}|.)",
        lambda m: (
            chr(int(m[1][1:], 16))
            if m[1].startswith("x")
            else {"n": "\n", "r": "\r", "t": "\t"}.get(m[1], m[1])
        ),
        literal,
    )


def run_snippet_like_r(code, csv_text):
    """The snippet's data steps on the CSV, as R would run them: read, unescape, factor,
    complete cases. Returns the formula's terms and {column: (levels, values of used rows)}."""
    read = re.search(r"read\.csv\(\"[^\"]+\",\s*(.*?)\)\n", code, re.S)[1]
    assert 'colClasses = "character"' in read and 'na.strings = ""' in read
    d = read_csv_like_r(csv_text, na_strings=("",), col_classes="character")
    for column in re.findall(r"d\$(\w+) <- as\.integer\(d\$\1\)", code):
        d[column] = [None if v is None else int(v) for v in d[column]]
    for column in re.findall(r"d\$(\w+) <- sub\(\"\^'\", \"\", d\$\1\)", code):
        d[column] = [None if v is None else v.removeprefix("'") for v in d[column]]
    levels = {}
    for column, listed in re.findall(r"d\$(\w+) <- factor\(d\$\1, levels = c\((.*)\)\)", code):
        levels[column] = [r_unquote(x) for x in re.findall(R_STRING, listed)]
        d[column] = [v if v in levels[column] else None for v in d[column]]
    kept = [
        r_unquote(x)
        for x in re.findall(R_STRING, re.search(r"complete\.cases\(d\[c\((.*)\)\]\)", code)[1])
    ]
    rows = [i for i in range(len(d[kept[0]])) if all(d[c][i] is not None for c in kept)]
    terms = re.search(r"rrreg\(\w+ ~ (.*?), data = d", code)[1].split(" + ")
    return terms, {c: (levels[c], [d[c][i] for i in rows]) for c in levels}


def regression_page_snippet(client, survey, question):
    url = reverse("surveys:regression", kwargs={"pk": survey.pk})
    page = client.get(url, {"question": question.pk}).content.decode()
    return html.unescape(re.search(r"class=\"code-block\"[^>]*><code>(.*?)</code>", page, re.S)[1])


def test_the_r_code_reads_the_csv_it_pairs_with_for_every_label_the_product_accepts(
    make_survey, simulate, owner_client
):
    survey = make_survey(status="draft", min_n=5)
    first = grouping.grouping_question_add(
        survey=survey, text="Team?", options=["Nobody chose this", "NA", "01", "1", "Unused"]
    )
    second = grouping.grouping_question_add(
        survey=survey, text="Code?", options=["=x", "'=x", 'Say "no"', "a\\b"]
    )
    survey = services.survey_open(survey=survey)
    a = list(first.options.values_list("id", flat=True))
    b = list(second.options.values_list("id", flat=True))
    rows = [[a[1 + i % 3], b[i % 4]] for i in range(48)]  # "NA", "01", "1"; every b option
    rng = np.random.default_rng(3)
    simulate(survey, rng.random((48, 2)) < 0.5, rows)
    question = survey.questions.first()

    csv_text = b"".join(
        owner_client.get(reverse("surveys:r-export", kwargs={"pk": survey.pk})).streaming_content
    ).decode()
    code = regression_page_snippet(owner_client, survey, question)
    terms, factors = run_snippet_like_r(code, csv_text)
    regression = selectors.survey_regression(survey=survey, question=question)

    assert terms == ["G1", "G2"]
    for index, covariate in enumerate(regression.covariates, start=1):
        listed, values = factors[f"G{index}"]
        used = [level for level in covariate.levels if level.role != "dropped"]
        # R's reference level (the first) is the product's; only chosen options are levels,
        # each with the product's count, and no row the product uses is lost.
        assert listed[0] == covariate.reference.label
        assert listed == [level.label for level in used]
        assert [values.count(label) for label in listed] == [level.respondents for level in used]
        assert len(values) == regression.n == 48
    assert factors["G1"][0] == ["NA", "01", "1"]
    assert factors["G2"][0] == ["=x", "'=x", 'Say "no"', "a\\b"]

    # With read.csv's defaults the same CSV loses "NA" (missing) and "01" (the number 1).
    default = read_csv_like_r(csv_text)["G1"]
    assert None in default and "01" not in default and 1 in default


def test_a_grouping_question_with_one_chosen_option_adds_no_term_but_filters_rows(
    grouped_survey, options, simulate
):
    simulate(grouped_survey, [[True, False]] * 6, [[options[1]]] * 6)
    question = grouped_survey.questions.first()
    regression = selectors.survey_regression(survey=grouped_survey, question=question)
    code = r_export.r_snippet(
        survey=grouped_survey, question=question, covariates=regression.covariates
    )
    assert 'd$G1 <- factor(d$G1, levels = c("Research"))' in code
    assert 'd <- d[complete.cases(d[c("Q1", "G1")]), ]' in code
    assert "fit <- rrreg(Q1 ~ 1, data = d," in code


def test_labels_that_look_like_formulas_are_escaped_in_the_csv_and_unescaped_in_r(
    make_survey, simulate, owner_api
):
    survey = make_survey(status="draft", min_n=5)
    gq = grouping.grouping_question_add(
        survey=survey, text="Income?", options=["=HYPERLINK(1)", "'=HYPERLINK(1)", "-1"]
    )
    survey = services.survey_open(survey=survey)
    ids = list(gq.options.values_list("id", flat=True))
    simulate(survey, [[True, False]] * 3, [[i] for i in ids])
    response = owner_api.get(f"/api/v1/surveys/{survey.pk}/for-r.csv")
    assert response.status_code == 200
    header, *rows = rows_of(response)
    assert header[-3:] == ["G1", "P1", "P2"]
    # Injective: the two first labels stay apart, and no cell starts like a formula.
    assert sorted(row[-3] for row in rows) == sorted(["'=HYPERLINK(1)", "''=HYPERLINK(1)", "'-1"])
    code = r_export.r_snippet(
        survey=survey,
        question=survey.questions.first(),
        covariates=selectors.survey_regression(
            survey=survey, question=survey.questions.first()
        ).covariates,
    )
    assert 'd$G1 <- sub("^\'", "", d$G1)' in code
    assert 'd$G1 <- factor(d$G1, levels = c("=HYPERLINK(1)", "\'=HYPERLINK(1)", "-1"))' in code


def test_r_strings_escape_quotes_backslashes_and_control_characters():
    assert r_export.r_string('a"b\\c\td\x01') == '"a\\"b\\\\c\\td\\x01"'
    assert r_unquote(r_export.r_string('a"b\\c\td\x01')[1:-1]) == 'a"b\\c\td\x01'


def test_the_r_code_uses_rrs_unconditional_probabilities(make_survey):
    # p_truth 0.6, p_forced_yes 0.3: p = 0.6, p1 = 0.4 * 0.3 = 0.12, p0 = 0.4 * 0.7 = 0.28.
    survey = make_survey(status="draft", p_truth=0.6, p_forced_yes=0.3)
    design = r_export.r_design(survey=survey)
    assert (design.p, design.p1, design.p0) == (0.6, 0.12, 0.28)
    assert Fraction(str(design.p)) + Fraction(str(design.p1)) + Fraction(str(design.p0)) == 1
    code = r_export.r_snippet(survey=survey, question=survey.questions.first(), covariates=[])
    assert "fit <- rrreg(Q1 ~ 1, data = d," in code
    assert "p = 0.6, p1 = 0.12, p0 = 0.28" in code
    assert 'design = "forced-known")' in code
