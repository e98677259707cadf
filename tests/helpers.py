"""Plain helpers shared by tests in several folders: constants, functions and classes, no
fixtures (fixtures live in the conftest.py next to the tests that use them).

Import them from here (``from tests.helpers import PASSWORD``), never from a conftest module:
pytest loads conftest files itself, and importing one as a module runs it a second time.
"""

import contextlib
import html.parser
import json
import re
import sqlite3
import time
import traceback
from unittest import mock

import numpy as np
import pytest
from django.conf import settings
from django.core.mail.backends import locmem
from django.db.models.sql.compiler import SQLCompiler
from rest_framework.test import APIClient

from surveys import selectors, services
from surveys.models import NumericTally, Submission
from surveys.selectors import languages
from surveys.services import tokens

# The cast (tests/conftest.py): every researcher's password.
PASSWORD = "correct-horse-battery-42"

SENSITIVE_QUESTIONS = (
    "Have you ever taken office supplies home for private use?",
    "Have you used drugs at work in the past year?",
)

# A survey of every question type, across the layers' tests: yes/no on the survey's coins,
# yes/no under Warner's design, multiple choice and numeric.
MIXED_QUESTIONS = (
    {"text": "Have you taken office supplies home?"},
    {"text": "Have you lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
    {"text": "Which did you do most?", "type": "choice", "options": ["None", "Pens", "Paper"]},
    {"text": "Drinks in a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
)
# The true population behind simulate_responses for MIXED_QUESTIONS: each yes/no question's
# share of "yes", the choice question's option shares, the numeric question's true value.
MIXED_SHARES = (0.3, 0.4, [0.5, 0.3, 0.2], 8)

# The options of the grouping question of tests/surveys/conftest.py's ``grouped_draft``.
DEPARTMENTS = ("Sales", "Research", "Support")


def stored_row_counts():
    """Rows per model table (and the session table), to see that a request stored nothing; not
    the rate limits' counters, which every limited request adds to (surveys/rate_limits.py: a
    key per window and client, nothing of the request)."""
    from django.apps import apps

    from surveys.models import RateCounter

    return {
        model._meta.db_table: model.objects.count()
        for model in apps.get_models()
        if model is not RateCounter
    }


def survey_statements(captured_queries):
    """The SQL a request sent for the survey itself: every statement on a ``surveys_`` table
    or run by name (``EXECUTE``), leaving out the rate limit's counter (surveys/rate_limits.py,
    one statement per request whatever the survey), the test's savepoints and the ``PREPARE``
    a connection sends once."""
    return [
        q["sql"]
        for q in captured_queries
        if ("surveys_" in q["sql"] or q["sql"].startswith("EXECUTE"))
        and not q["sql"].startswith("PREPARE")
        and "surveys_ratecounter" not in q["sql"]
    ]


def question_tallies(survey):
    """``(reports, yes reports)`` of each of the survey's questions in order, as stored now."""
    tallies = selectors.survey_tallies(survey=survey)
    return [tallies.of(pk) for pk in survey.questions.values_list("id", flat=True)]


def stored_numeric_reports(survey, question_id):
    """Every stored report of one numeric question, read from the submissions themselves (the
    estimates read the histogram kept at write time; tests hold it against these)."""
    key = f"q{question_id}"
    return [
        reports[key]
        for reports in Submission.objects.filter(survey=survey).values_list("reports", flat=True)
        if key in reports
    ]


def numeric_histogram_counts(question_id):
    """``{report: count}`` of one question's stored histogram (``models.NumericTally``)."""
    return {
        report: n
        for _question_id, report, n in NumericTally.objects.filter(question_id=question_id).totals()
    }


def simulate_responses(survey, *, n, seed, shares=MIXED_SHARES, options=None):
    """``n`` simulated respondents stored in ``survey``, each question randomized with its own
    mechanism (``services.simulated_reports_draw``, seeded); ``options``: grouping option ids
    the respondents choose in turn. Returns the survey read again."""
    reports = services.simulated_reports_draw(
        survey=survey, shares=list(shares), n=n, rng=np.random.default_rng(seed)
    )
    chosen = None if options is None else [[options[i % len(options)]] for i in range(n)]
    services.simulated_submissions_record(survey=survey, reports=reports, options=chosen)
    survey.refresh_from_db()
    return survey


def translation_texts(survey, *, into=("ko", "zh-hans"), mark=None):
    """The Translations form's data translating every text of ``survey`` into ``into``: each
    text followed by `` [<code>]`` (or ``mark(code)``), so a test can tell the languages apart."""
    table = languages.survey_translation_table(survey=survey)
    return {
        f"{code}-{text.key}": f"{text.source} {mark(code) if mark else f'[{code}]'}"
        for code in into
        for text in table.texts
    }


def answers_for(survey, bits):
    """``{question id: bit}`` for the survey's questions in order."""
    ids = list(survey.questions.values_list("id", flat=True))
    return dict(zip(ids, bits, strict=True))


def token_client(user):
    """An API client authenticated by a fresh token of ``user``, as a script would be."""
    client = APIClient()
    key = tokens.token_issue(user=user, name="tests").key
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


# On a live server's database (tests/live.py): what the production checks read and write.

CREATE_LIVE_SURVEY = """
import json
from django.contrib.auth import get_user_model
from surveys import services
from surveys.services import tokens
owner, _ = get_user_model().objects.get_or_create(username="live-owner")
survey = services.survey_create(
    owner=owner, title="Live survey", questions=[f"Question {{i}}?" for i in range({questions})]
)
survey = services.survey_open(survey=survey)
key = tokens.token_issue(user=owner, name="live tests").key
print(json.dumps({{
    "id": survey.pk,
    "slug": survey.slug,
    "question_ids": list(survey.questions.values_list("id", flat=True)),
    "token": key,
}}))
"""


def live_survey(server, *, questions=3):
    """An open survey on ``server``'s database: id, slug, question_ids and its owner's token."""
    out = server.manage("shell", "-c", CREATE_LIVE_SURVEY.format(questions=questions))
    return json.loads(out.strip().splitlines()[-1])


def database_dump(server):
    """Every row of every table of ``server``'s database, as text (SQLite: ``iterdump``)."""
    url = server.env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            return "\n".join(conn.iterdump())
    import psycopg

    lines = []
    with psycopg.connect(url) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name"
        ).fetchall()
        for (table,) in tables:
            rows = conn.execute(f'SELECT t::text FROM "{table}" t').fetchall()
            lines.extend(f"{table} {row}" for (row,) in rows)
    return "\n".join(lines)


def database_rows(server, sql, params=()):
    """Rows of one query on ``server``'s database (``%s`` placeholders, portable SQL)."""
    url = server.env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            return conn.execute(sql.replace("%s", "?"), params).fetchall()
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


# --- the respondent page in a browser (tests/e2e) --------------------------------------------

RESPONSES_PATH = "/responses/"

# Replaces crypto.getRandomValues for 32-bit words (every coin and draw, the memo's secrets
# included) with a fixed xorshift stream, so two browser contexts draw exactly the same
# reports; byte arrays (the submission id) stay truly random. For context.add_init_script.
DETERMINISTIC_COINS = """
(() => {
  const real = crypto.getRandomValues.bind(crypto);
  let state = 2463534242;
  crypto.getRandomValues = (array) => {
    if (!(array instanceof Uint32Array)) return real(array);
    for (let i = 0; i < array.length; i += 1) {
      state ^= state << 13; state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5; state >>>= 0;
      array[i] = state;
    }
    return array;
  };
})();
"""


# The reports a memo's secrets fix for the given true answers ({question id: answer}), derived
# in the page with its own modules (coins.js derivedReport, designs.js questionRandomizer of the
# embedded definition), exactly as the send button derives them.
_DERIVED_REPORTS = """
async ([secrets, truths]) => {
  const { derivedReport } = await import("/static/js/coins.js");
  const { questionRandomizer } = await import("/static/js/designs.js");
  const { survey } = JSON.parse(document.getElementById("respond-definition").textContent);
  const coins = { p_truth: survey.p_truth, p_forced_yes: survey.p_forced_yes };
  const questions = Object.fromEntries(survey.questions.map((q) => [String(q.id), q]));
  return Object.fromEntries(
    Object.entries(truths).map(([id, truth]) => {
      const randomizer = questionRandomizer(questions[id], coins);
      const index = randomizer.indexOf(truth);
      return [id, derivedReport({ randomizer, questionId: id, secret: secrets[id], index })];
    }),
  );
}
"""


def derived_reports(page, *, secrets, truths):
    """{question id: report} that ``secrets`` (a memo's) fix for ``truths``, on the survey
    page open in ``page``."""
    return page.evaluate(_DERIVED_REPORTS, [secrets, {str(k): v for k, v in truths.items()}])


def submit_answers(page):
    """Press the respondent page's send button; the JSON body of the POST it made, once the
    server stored it (201) and the thank-you is shown."""
    with page.expect_response(
        lambda r: RESPONSES_PATH in r.url and r.request.method == "POST"
    ) as reply:
        page.get_by_role("button", name="Randomize and send my answers").click()
    assert reply.value.status == 201, reply.value.text()
    page.locator("#respond-done").wait_for(state="visible")
    return json.loads(reply.value.request.post_data)


def add_member(*, survey, user, role, by=None):
    """``user`` joins ``survey`` as ``role`` the only way there is: invited by username by the
    owner (or ``by``), then accepting."""
    from surveys.services import members

    invitation = members.member_invite(
        survey=survey, by=by or survey.owner, user=user.get_username(), role=role
    )
    return members.invitation_accept(invitation=invitation, user=user)


class SlowMailBackend(locmem.EmailBackend):
    """Django's locmem backend behind the delay of a remote SMTP server (the issue measured
    260-580 ms for a reset mail): mail sent inside the request would show in the answer's
    time, which the timing tests must be able to catch. Mail still lands in
    ``django.core.mail.outbox``."""

    DELAY = 0.25  # seconds a send takes: the SMTP conversation, not a test waiting

    def send_messages(self, messages):
        time.sleep(self.DELAY)
        return super().send_messages(messages)


@contextlib.contextmanager
def lock_recorder():
    """Yield a list that collects each row-locking query (``select_for_update``) compiled
    while its connection is in autocommit, i.e. outside any transaction: the table and the
    line of surveys/ that ran it. Meaningful only outside a test transaction (live servers,
    ``django_db(transaction=True)``), where a missing ``transaction.atomic`` shows; it sees the
    query before PostgreSQL's own refusal and on SQLite, which has no such locks to refuse."""
    outside = []
    original = SQLCompiler.as_sql

    def as_sql(compiler, *args, **kwargs):
        if compiler.query.select_for_update and compiler.connection.get_autocommit():
            callers = [
                f"{frame.filename.split('/surveys/', 1)[-1]}:{frame.lineno}"
                for frame in traceback.extract_stack()
                if "/surveys/" in frame.filename and "/tests/" not in frame.filename
            ]
            table = compiler.query.get_meta().db_table
            outside.append(f"{table} from surveys/{callers[-1] if callers else '?'}")
        return original(compiler, *args, **kwargs)

    with mock.patch.object(SQLCompiler, "as_sql", as_sql):
        yield outside


# --- reading the numbers of Markdown tables (tests/test_readme.py and the coverage sweeps) ----


def table_under(text, heading):
    """The rows (lists of cells) of the first Markdown table after ``heading``."""
    start = text.index(heading)
    rows, seen_table = [], False
    for line in text[start:].splitlines()[1:]:
        if line.startswith("|"):
            seen_table = True
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif seen_table:
            break
    return rows[1:]  # without the header


def shown(cell):
    """The numbers a cell shows, each with the precision it is shown at."""
    return [
        (float(number), 0.5 * 10 ** -len(number.partition(".")[2]))
        for number in re.findall(r"(?<![\w.])\d+(?:\.\d+)?", cell)
    ]


def agrees(cell, *values):
    numbers = shown(cell)
    assert len(numbers) == len(values), (cell, values)
    pairs = zip(numbers, values, strict=True)
    return all(abs(number - value) <= half_unit for (number, half_unit), value in pairs)


# --- How much a respondent reads before the first question (issue 27 item 7) -------------------

# Elements whose text is the researcher's own (title, intro, consent text), not ours.
RESEARCHERS_TEXT_CLASSES = {"respond-intro", "consent-text"}
# Elements whose start or end breaks a sentence even without a full stop (a heading, a label).
BLOCK_TAGS = {
    "p", "h1", "h2", "h3", "h4", "li", "div", "label", "button", "summary", "dt", "dd",
    "legend", "section", "header", "fieldset", "details",
}  # fmt: skip
VOID_TAGS = {"input", "br", "img", "meta", "link", "hr", "source", "wbr", "col", "area"}
# Hidden in the server's HTML but shown by respond.js as the page loads: the "try it" control.
# The practice rounds of a comprehension check are revealed on load too: their heading and
# note count; the first round's fieldset (a question, if a practice one) ends the first screen.
REVEALED_BY_SCRIPT = {"try-coins", "respond-practice"}
SKIPPED_TAGS = {"script", "noscript", "template", "svg", "style", "h1"}  # h1: the survey's title


class FirstScreenText(html.parser.HTMLParser):
    """The text a respondent sees in the page's content (``<div class="respond">``) before the
    first question's fieldset, as the server renders it: nothing that is ``hidden`` (but what
    respond.js reveals on load, ``REVEALED_BY_SCRIPT``), nothing
    in a ``<noscript>``, nothing inside a closed ``<details>`` but its ``<summary>`` (one click
    away), and not the researcher's own title, intro and consent text. ``blocks`` holds one
    string per block of text, so headings and labels count as sentences of their own."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, text shown, children shown)
        self.started = self.done = False
        self.blocks = [""]

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        if not self.started:
            self.started = tag == "div" and "respond" in classes
            if self.started:
                self.stack.append((tag, True, True))
            return
        if self.done or (tag == "fieldset" and "question" in classes):
            self.done = True
            return
        _tag, parent_shown, children_shown = self.stack[-1] if self.stack else ("", False, False)
        shown = children_shown
        if tag == "summary" and _tag == "details" and "open" not in attributes:
            shown = parent_shown  # the summary of a closed <details> shows; the rest does not
        hidden = "hidden" in attributes and attributes.get("id") not in REVEALED_BY_SCRIPT
        if hidden or tag in SKIPPED_TAGS or classes & RESEARCHERS_TEXT_CLASSES:
            shown = False
        inner = shown and not (tag == "details" and "open" not in attributes)
        if tag in BLOCK_TAGS:
            self.blocks.append("")
        if tag not in VOID_TAGS:
            self.stack.append((tag, shown, inner))

    def handle_endtag(self, tag):
        if not self.started or self.done:
            return
        if tag in BLOCK_TAGS:
            self.blocks.append("")
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self.started and not self.done and self.stack and self.stack[-1][1]:
            self.blocks[-1] += data


def first_screen_blocks(page_html):
    parser = FirstScreenText()
    parser.feed(page_html)
    assert parser.done, "no question on the page"
    return [" ".join(block.split()) for block in parser.blocks if block.strip()]


# Chinese and Japanese characters (no spaces between words); Hangul is written with spaces.
HAN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def word_count(text):
    """Words as a reader counts them. A run of letters or digits between spaces is one word
    (so Korean counts its space-separated eojeol, as Korean word counts do); Chinese has no
    spaces, so each Han character counts half a word (most Chinese words are one or two
    characters long, and two-character words are the most common), plus one for any other
    letters in the same run. Punctuation alone ("·", "—") is no word."""
    total = 0.0
    for token in text.split():
        han = len(HAN.findall(token))
        rest = HAN.sub("", token)
        total += han / 2 + (1 if re.search(r"\w", rest) else 0)
    return total


def syllables(word):
    """An approximate English syllable count: groups of vowels (y included), less a silent
    final "e" (but not "-le", as in "people"), at least one. It is right for the common words
    of the respondent page and off by one for some (e.g. "being", "create" count 1 too few),
    which moves a Flesch score of a 50-word text by a few points at most."""
    letters = re.sub(r"[^a-z]", "", word.lower())
    if not letters:
        return 0
    count = len(re.findall(r"[aeiouy]+", letters))
    if letters.endswith("e") and not letters.endswith("le") and count > 1:
        count -= 1
    return max(count, 1)


def flesch_reading_ease(blocks):
    """Flesch (1948) reading ease, 206.835 - 1.015 words/sentence - 84.6 syllables/word, over
    blocks of text: each block ends a sentence, as does every ".", "!" or "?" in it. 60-70
    is "plain English", read easily by 13- to 15-year-olds; higher is easier."""
    sentences = [
        part for block in blocks for part in re.split(r"(?<=[.!?])\s+", block) if part.strip()
    ]
    words = [word for word in " ".join(sentences).split() if re.search(r"[A-Za-z0-9]", word)]
    syllable_total = sum(syllables(word) for word in words)
    return 206.835 - 1.015 * len(words) / len(sentences) - 84.6 * syllable_total / len(words)


# What the builder says of a survey whose questions and coins can no longer change.
FROZEN_WHY = "questions and coins are frozen"


def with_responses(survey, bits):
    """Store randomized reports (a respondents × questions 0/1 array) as a browser would."""
    services.simulated_submissions_record(survey=survey, reports=np.array(bits, dtype=bool))
    survey.refresh_from_db()
    return survey


class Markup(html.parser.HTMLParser):
    """Collects what the CSP and accessibility rules forbid or require in a page."""

    def __init__(self):
        super().__init__()
        self.style_attributes = 0
        self.inline_handlers = 0
        self.inline_scripts = 0
        self.ids = []
        self.labels_for = set()
        self.inputs = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.style_attributes += "style" in attrs or tag == "style"
        self.inline_handlers += any(name.startswith("on") for name in attrs)
        if tag == "script" and "src" not in attrs and attrs.get("type") != "application/json":
            self.inline_scripts += 1
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "label" and "for" in attrs:
            self.labels_for.add(attrs["for"])
        if tag in {"input", "select", "textarea"} and attrs.get("type") not in {"hidden"}:
            self.inputs.append(attrs)


def markup(response):
    parser = Markup()
    parser.feed(response.content.decode())
    return parser


def new_survey_form(**overrides):
    """The new-survey form's fields (the builder's settings too); ``overrides`` replace some."""
    return {
        "title": "Exam honesty",
        "intro": "Two questions about exams.",
        "language": "en",
        "preset": "classic",
        "p_truth": "0.5",
        "p_forced_yes": "0.5",
        "ci_method": "wilson",
        "confidence": "0.95",
        "min_n": "30",
        **overrides,
    }


# A survey of every kind a page names (surveys/selectors/left_out.py): yes/no on the coins,
# under Warner's design, compared with asking directly (with a control_share), cheating
# detection, multiple choice, numeric, yes/no asked directly and text.
EVERY_KIND_QUESTIONS = (
    {"text": "Have you taken office supplies home?"},
    {"text": "Have you lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
    {"text": "Have you left work early?", "compare_direct": True},
    {"text": "Have you faked a sick day?", "design": {"kind": "cdm", "p": [0.25, 0.75]}},
    {"text": "Your age band?", "type": "choice", "options": ["Under 30", "30-49", "50+"]},
    {"text": "Drinks in a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
    {"text": "Do you work in an office?", "randomized": False},
    {"text": "Anything else?", "type": "text", "randomized": False, "required": False},
)
EVERY_KIND_SETTINGS = {"control_share": 0.3, "comprehension_check": True}


# A survey whose questions send codes, answered by hand per group (tests/surveys/conftest.py's
# coded_survey): the breakdown of compared and cheating-detection questions (issue 33).
CODED_QUESTIONS = [
    {"text": "Have you faked a sick day?", "design": {"kind": "cdm", "p": [0.25, 0.75]}},
    {"text": "Have you left work early?", "compare_direct": True},
    {"text": "Have you taken office supplies home?"},
    {"text": "Did you lie on a form?", "design": {"kind": "sld", "p": [0.3, 0.8]}},
]

# Per group: how many respondents sent each (CDM code, compared code, bit, SLD code). A
# cheating-detection code is 2 × (coin group - 1) + the report, a compared one 0/1 the
# randomized report, 2/3 the direct answer.
CODED_ROWS = {
    "Sales": [
        ((0, 0, False, 0), 4),
        ((1, 1, True, 1), 2),
        ((2, 2, False, 3), 2),
        ((3, 3, True, 3), 4),
        ((3, 1, True, 2), 0),
    ],
    "Office": [
        ((0, 1, True, 1), 3),
        ((1, 0, False, 0), 2),
        ((2, 3, True, 2), 1),
        ((3, 2, False, 3), 4),
        ((3, 1, True, 3), 3),
    ],
}


def postgresql_outside_a_transaction(reason, *, reset_sequences=False):
    """The marks of a module whose tests run on PostgreSQL only, outside a test transaction
    (concurrent writers, or what PostgreSQL keeps at rest: xmin, ctid). ``reset_sequences``:
    every table's ids start at 1 in each test, whatever tests ran before on the worker."""
    return [
        pytest.mark.django_db(transaction=True, reset_sequences=reset_sequences),
        pytest.mark.skipif(
            not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), reason=reason
        ),
    ]
