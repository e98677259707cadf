"""The design table (surveys/designs.py): every yes/no design declared once, and read by the
whole stack.

The acceptance test of issue 35 item 2 adds a throwaway yes/no design, its dpengine class in a
temporary module and its row appended to the table, in a fresh Python process (so that what
any module builds at import, a form's choices or the API's schema, is built with it), and
shows the API, the builder's form, the public definition, the browser's constants and the
practice texts all take it, with no other file edited: a copy of the designs written by hand
anywhere in that path fails it.
"""

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import fields
from pathlib import Path

import pytest
from django.utils import translation

import dpengine
from surveys import designs

ROOT = Path(__file__).resolve().parents[2]


def test_each_row_names_a_registered_design_and_exactly_its_parameters():
    kinds = [row.kind for row in designs.DESIGN_TABLE]
    assert len(set(kinds)) == len(kinds)
    for row in designs.DESIGN_TABLE:
        assert dpengine.DESIGNS[row.kind] is row.engine
        assert list(row.parameters) == [field.name for field in fields(row.engine)], row.kind
        assert list(row.defaults()) == list(row.parameters)
        for label in (row.name, row.short, row.choice):
            assert str(label)
        for parameter in row.parameters.values():
            assert str(parameter.label) and parameter.about.startswith(f"{row.kind}")


def test_the_readers_are_the_tables():
    from surveys.selectors import DESIGN_LABELS
    from surveys.services.comprehension import PRACTISED_KINDS
    from surveys.services.question_types import DESIGN_KINDS

    assert designs.practised_kinds() == PRACTISED_KINDS
    assert DESIGN_KINDS[: len(designs.DESIGN_TABLE)] == designs.design_kinds()
    for row in designs.DESIGN_TABLE:
        assert DESIGN_LABELS[row.kind].name == row.name
    assert designs.parameter_symbols() == {"pi": "π", "theta1": "θ₁", "theta2": "θ₂"}


def test_the_cheating_designs_are_the_tables_sibling_rows():
    from surveys.forms.question_types import parameter_label
    from surveys.selectors import DESIGN_LABELS
    from surveys.services.comprehension import RESPONDENT_ONLY_KINDS

    assert designs.cheating_kinds() == tuple(dpengine.CHEATING_DESIGNS) == RESPONDENT_ONLY_KINDS
    for row in designs.CHEATING_TABLE:
        assert dpengine.CHEATING_DESIGNS[row.kind] is row.engine
        assert designs.cheating_row(row.kind) is row
        assert list(row.parameters) == ["p1", "p2", "group_share"]
        assert DESIGN_LABELS[row.kind].name == row.name
        for name, parameter in row.parameters.items():
            assert parameter_label(row.kind, name) == parameter.label
        # The outcomes static/js/procedure.js names (cdm: pressYes; sld: truthful).
        assert set(row.instructions) == {"yes", "truth"}
        assert all("%(group)s" in text for text in row.instructions.values())


def test_a_design_kind_is_taken_once():
    from dataclasses import dataclass

    with pytest.raises(TypeError, match="already Warner"):

        @dataclass(frozen=True)
        class AnotherWarner(dpengine.YesNoDesign):
            kind = "warner"

    assert dpengine.DESIGNS["warner"] is dpengine.Warner


# The throwaway design: "yes" is kept with q, "no" turned into "yes" with 1 - q (Warner's
# probabilities under another name), written as a new design's module would be.
THROWAWAY_MODULE = """
from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction
from dpengine.designs.base import RModel, YesNoDesign
from surveys.designs import DesignRow, Parameter, Practice


@dataclass(frozen=True)
class Throwaway(YesNoDesign):
    q: float | Fraction = 0.8

    kind = "throwaway"

    def __post_init__(self) -> None:
        self._store_unit_parameters("q")
        self._check_private_and_informative(field="q")

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        return as_fraction(self.q)

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        return 1 - as_fraction(self.q)

    @property
    def description(self) -> str:
        return "a throwaway"

    @property
    def r_model(self) -> RModel:
        return RModel("Warner", (float(self.q),))


ROW = DesignRow(
    engine=Throwaway,
    name="Throwaway design",
    short="throwaway",
    choice="Throwaway: a design made up for a test",
    parameters={"q": Parameter("q: the throwaway coin", "throwaway: the coin", symbol="ϙ")},
    explanation="A throwaway coin keeps your answer with a %(q)s chance, else (%(not_q)s) "
    "turns a no into yes; yes is sent %(yes_if_yes)s of the time.",
    icon="decks",
    practice=Practice(
        question="Throwaway practice: your answer is %(truth)s; what is sent?",
        why="The throwaway coin sent %(sent)s.",
    ),
    instructions={"keep": "Throwaway: answer truly.", "flip": "Throwaway: say %(answer)s."},
)
"""

# Run in a fresh process: the temporary row is appended before Django (and so any module that
# reads the table) is loaded; then a throwaway in-memory database, and the stack asked.
THROWAWAY_SCRIPT = """
import json, os, sys

sys.path[:0] = [sys.argv[1], sys.argv[2]]
import surveys.designs as table
import throwaway_design

table.DESIGN_TABLE = (*table.DESIGN_TABLE, throwaway_design.ROW)

import django

django.setup()
from django.db import connection
from django.test.utils import setup_test_environment

setup_test_environment()
connection.creation.create_test_db(verbosity=0)

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

import dpengine
from surveys.forms.question_types import QuestionTypeForm
from surveys.models import Survey
from tools import constants

seen = {"dpengine": "throwaway" in dpengine.DESIGNS}
user = get_user_model().objects.create_user("owner", password="x-long-password-1")
api = APIClient()
api.force_authenticate(user)
body = {
    "title": "Throwaway",
    "p_truth": 0.5,
    "p_forced_yes": 0.5,
    "comprehension_check": True,
    "questions": [{"text": "Q?", "design": {"kind": "throwaway", "q": 0.875}}],
}
created = api.post("/api/v1/surveys/", body, format="json")
seen["api_status"] = created.status_code
seen["api_design"] = created.json()["questions"][0]["design"]
refused = api.post(
    "/api/v1/surveys/",
    {**body, "questions": [{"text": "Q?", "design": {"kind": "throwaway", "q": 0.5}}]},
    format="json",
)
seen["api_refused"] = [refused.status_code, json.dumps(refused.json())]
survey = Survey.objects.get(pk=created.json()["id"])

schema = SchemaGenerator().get_schema(request=None, public=True)


def enums(node):
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield node["enum"]
        for value in node.values():
            yield from enums(value)
    elif isinstance(node, list):
        for value in node:
            yield from enums(value)


design_enums = [values for values in enums(schema) if "warner" in values]
seen["schema_enums"] = [len(design_enums), all("throwaway" in v for v in design_enums)]

form = QuestionTypeForm()
seen["form_choice"] = dict(form.fields["design"].choices).get("throwaway")
seen["form_field"] = str(form.fields["throwaway_q"].label) if "throwaway_q" in form.fields else None
browser = Client()
browser.force_login(user)
page = browser.get(reverse("surveys:builder", kwargs={"pk": survey.pk})).content.decode()
seen["builder_page"] = 'name="throwaway_q"' in page and "Throwaway: a design made up" in page
added = browser.post(
    reverse("surveys:question-add", kwargs={"pk": survey.pk}),
    {"text": "Another?", "question_type": "yes_no", "design": "throwaway", "throwaway_q": "0.75"},
)
seen["builder_added"] = [added.status_code, survey.questions.last().design]

opened = api.post(f"/api/v1/surveys/{survey.pk}/open/", {}, format="json")
seen["opened"] = opened.status_code
public = APIClient().get(f"/api/v1/public/surveys/{survey.slug}/").json()
seen["public_designs"] = [question.get("design") for question in public["questions"]]
seen["practice"] = [
    [entry["design"]["kind"], entry.get("practice")] for entry in public["comprehension"]
]

# The respondent page: the row's sentence with the question's chances, and its picture; a
# question under the respondent procedure shows its instruction's place.
survey.questions.create(
    text="Followed?", position=9, design={"kind": "throwaway", "q": 0.75}, procedure="respondent"
)
page = Client().get(reverse("surveys:respond", kwargs={"slug": survey.slug})).content.decode()
seen["respond_sentence"] = page.count(
    "A throwaway coin keeps your answer with a 87.5% chance, else (12.5%) turns a no into yes"
)
seen["respond_decks"] = page.count('<path d="M15 18l4 6-4 6-4-6z"')
seen["respond_instruction"] = 'data-procedure="respondent"' in page

generated = constants.render(constants.build())
module = generated[constants.MODULE_PATH]
vectors = json.loads(generated[constants.JSON_PATH])
seen["js_kinds"] = [line for line in module.splitlines() if "_KINDS = " in line]
seen["js_instructions"] = module[module.index("  throwaway: ") :].split("}),")[0]
seen["vectors"] = {
    "kinds": "throwaway" in vectors["designs"]["kinds"],
    "edge_cases": sorted(
        {"refused" in case for case in vectors["designs"]["edge_cases"]
         if case["design"]["kind"] == "throwaway"}
    ),
    "practice": vectors["design_table"]["practice"].get("throwaway"),
    "instructions": vectors["design_table"]["instructions"].get("throwaway"),
}
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_a_throwaway_design_in_a_temporary_row_and_module_reaches_the_whole_stack(tmp_path):
    (tmp_path / "throwaway_design.py").write_text(textwrap.dedent(THROWAWAY_MODULE))
    script = tmp_path / "run.py"
    script.write_text(THROWAWAY_SCRIPT)
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])

    assert seen["dpengine"]
    # The API takes it, checked by its dpengine class, and refuses what that class refuses.
    assert seen["api_status"] == 201
    assert seen["api_design"] == {"kind": "throwaway", "q": 0.875}
    assert seen["api_refused"][0] == 400
    assert "questions.0.design.q" in seen["api_refused"][1]
    # Its kind in every list of design kinds in the API's schema (the question's design, the
    # public definition's).
    assert seen["schema_enums"][0] >= 2
    assert seen["schema_enums"][1], "a list of design kinds in the schema lacks the new one"
    # The builder offers it, with its parameter's field and label, and stores what it posts.
    assert seen["form_choice"] == "Throwaway: a design made up for a test"
    assert seen["form_field"] == "q: the throwaway coin"
    assert seen["builder_page"]
    assert seen["builder_added"] == [302, {"kind": "throwaway", "q": 0.75}]
    # The public definition names it, and its practice round carries the row's texts.
    assert seen["opened"] == 200
    assert {"kind": "throwaway", "q": 0.875} in seen["public_designs"]
    practice = {
        "question": "Throwaway practice: your answer is %(truth)s; what is sent?",
        "why": "The throwaway coin sent %(sent)s.",
    }
    assert ["throwaway", practice] in seen["practice"]
    # The browser's constants: a kind a question may name, with a practice round, and the
    # vectors the node tests hold designs.js to (so its randomizer must exist and agree).
    assert all('"throwaway"' in line for line in seen["js_kinds"] if "YES_NO" in line)
    assert any('"throwaway"' in line for line in seen["js_kinds"] if "PRACTICE" in line)
    instructions = {"keep": "Throwaway: answer truly.", "flip": "Throwaway: say %(answer)s."}
    assert seen["vectors"] == {
        "kinds": True,
        "edge_cases": [False, True],
        "practice": practice,
        "instructions": instructions,
    }
    # The respondent procedure's instructions, in the run-time module inside gettext (so the
    # page's catalog translates them; procedure.js reads INSTRUCTIONS[kind][outcome]).
    assert seen["js_instructions"].split("\n")[1:3] == [
        '    keep: gettext("Throwaway: answer truly."),',
        '    flip: gettext("Throwaway: say %(answer)s."),',
    ]
    # The respondent page words the question at q = 0.875 with the row's sentence and its
    # chances (the one at 0.75 with its own; the respondent procedure's says to follow the
    # instruction instead), draws the row's picture beside all three, and places the
    # instruction.
    assert seen["respond_sentence"] == 1
    assert seen["respond_decks"] == 3
    assert seen["respond_instruction"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "The card dealt from the deck for “%(truth)s” is %(colour)s"),
        # locale/ko/LC_MESSAGES/django.po: the same words, in Korean.
        ("ko", "“%(truth)s”"),
    ],
)
def test_the_definition_carries_the_rows_practice_texts_in_the_surveys_language(
    make_survey, client, language, question
):
    survey = make_survey(
        questions=[{"text": "Q?", "design": {"kind": "kuk"}}],
        comprehension_check=True,
        language=language,
    )
    definition = client.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    rounds = {entry["design"]["kind"]: entry for entry in definition["comprehension"]}
    practice = rounds["kuk"]["practice"]
    assert question in practice["question"]
    kuk = designs.design_row("kuk").practice
    with translation.override(language):
        assert practice == {"question": str(kuk.question), "why": str(kuk.why)}
    with translation.override(None):
        english = str(kuk.question)
    assert (practice["question"] == english) == (language == "en")  # ko: translated
