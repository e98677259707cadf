"""The constants and golden vectors the browser shares with Python are generated, not pasted.

tools/constants.py computes tests/vectors/constants.json and static/js/constants.js from
dpengine, surveys/limits.py and surveys/models/; the node tests (tests/js/) hold the
browser's formulas and samplers to the JSON. This test holds the committed files to what the
generator writes now, so a formula, sampler or bound changed in Python without
``make constants`` fails here, and one changed in JavaScript only fails under ``node --test``.
"""

import json

from tools import constants


def test_committed_constants_are_what_the_generator_writes():
    stale = [str(path.relative_to(constants.ROOT)) for path in constants.stale_files()]
    assert not stale, f"{', '.join(stale)} differ from dpengine's values now: run `make constants`"


def test_the_vectors_cover_every_design_preset_and_question_type():
    # What the node tests iterate over: a kind, preset or type missing here goes untested there.
    from dpengine import DESIGNS, PRESETS
    from surveys.models import Question

    vectors = json.loads(constants.JSON_PATH.read_text(encoding="utf-8"))
    designs = vectors["designs"]
    assert designs["kinds"] == list(DESIGNS)
    assert {case["design"]["kind"] for case in designs["defaults"]} == set(DESIGNS)
    assert set(designs["presets"]) == set(PRESETS)
    accepted = {c["design"]["kind"] for c in designs["edge_cases"] if "refused" not in c}
    refused = {c["design"]["kind"] for c in designs["edge_cases"] if "refused" in c}
    assert accepted == refused == set(DESIGNS)
    assert vectors["codes"]["question_types"] == list(Question.Kind.values)
