"""The one statement's writes (surveys/services/submissions/statement.py) on its tally shard:
the stored vectors, whatever their length, added to as ``dpengine.tally_sum`` adds. The whole
statement is held against the ORM oracle by tests/surveys/services/test_submissions_contract.py.
"""

import functools
import uuid

import pytest

from dpengine import report_tally, tally_sum
from surveys import services
from surveys.models import NumericTally, TallyShard
from tests.helpers import MIXED_QUESTIONS

pytestmark = pytest.mark.django_db

# (choice report, numeric report) per submission. The choice reports take each way a stored
# vector is added to: the first report (no vector yet), an option past the vector's end (it is
# padded), an option within it, and so on; the numeric ones negative, zero and positive.
REPORTS = [(0, 41), (2, -3), (1, 0), (2, 30), (0, -3)]


def test_a_typed_submission_adds_its_vectors_to_the_shard_as_tally_sum_does(
    make_survey, monkeypatch
):
    # Every submission in shard 0 (the SQLite path writes shard 0 only), so that each adds to
    # the vectors the one before stored.
    monkeypatch.setattr("surveys.services.submissions.postgres.tally_shard_pick", lambda: 0)
    survey = make_survey(questions=MIXED_QUESTIONS)
    plain, warner, choice, numeric = survey.questions.order_by("id").values_list("id", flat=True)
    for number, (option, number_reported) in enumerate(REPORTS):
        outcome = services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={
                str(plain): number % 2 == 0,
                str(warner): True,
                str(choice): option,
                str(numeric): number_reported,
            },
        )
        assert outcome.created
        stored = TallyShard.objects.get(survey=survey, shard=0)
        sent = REPORTS[: number + 1]
        assert stored.responses == number + 1
        assert stored.reports[f"q{choice}"] == functools.reduce(
            tally_sum, (report_tally("choice", o) for o, _n in sent)
        )
        assert stored.reports[f"q{numeric}"] == functools.reduce(
            tally_sum, (report_tally("numeric", n) for _o, n in sent)
        )
        assert stored.reports[f"q{warner}"] == [number + 1, number + 1]
    # Padded once (the report of option 2 after option 0's), then added to in place.
    assert stored.reports[f"q{choice}"] == [5, 2, 1, 2]
    histogram = dict(
        NumericTally.objects.filter(question_id=numeric).values_list("report", "count")
    )
    assert histogram == {41: 1, -3: 2, 0: 1, 30: 1}
