"""Migration 0012 (optional answers): existing questions, yes/no and grouping, stay required;
new grouping questions are optional by default."""

import pytest

from surveys.models import Survey as LiveSurvey
from surveys.services import grouping
from tests.surveys.services.test_migrations import SHARDED, latest, migrate

OPTIONAL = [("surveys", "0012_optional_answers")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_questions_that_existed_keep_being_required(owner):
    apps = migrate(SHARDED)
    Survey = apps.get_model("surveys", "Survey")
    survey = Survey.objects.create(owner_id=owner.pk, title="Collecting", status="open")
    question = apps.get_model("surveys", "Question").objects.create(
        survey=survey, position=0, text="Yes or no?"
    )
    old = apps.get_model("surveys", "GroupingQuestion").objects.create(
        survey=survey, position=0, text="Team?"
    )

    apps = migrate(OPTIONAL)
    assert apps.get_model("surveys", "Question").objects.get(pk=question.pk).required
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    assert GroupingQuestion.objects.values_list("required", "declined_count").get(pk=old.pk) == (
        True,
        0,
    )
    migrate(latest())
    draft = LiveSurvey.objects.create(owner=owner, title="New")
    added = grouping.grouping_question_add(survey=draft, text="Age?", options=["Young", "Old"])
    assert not added.required
