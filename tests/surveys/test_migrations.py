"""Migrations that move stored data carry it over both ways."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("surveys", "0002_grouping_and_public_results")]
AFTER = [("surveys", "0003_report_tallies_on_the_survey")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_question_tallies_move_to_the_survey_and_back(owner):
    apps = migrate(BEFORE)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    answered = Survey.objects.create(owner_id=owner.pk, title="Answered", response_count=9)
    first = Question.objects.create(
        survey=answered, position=0, text="A?", report_count=9, yes_count=4
    )
    second = Question.objects.create(
        survey=answered, position=1, text="B?", report_count=8, yes_count=0
    )
    draft = Survey.objects.create(owner_id=owner.pk, title="Draft")
    unanswered = Question.objects.create(survey=draft, position=0, text="C?")

    apps = migrate(AFTER)
    Survey = apps.get_model("surveys", "Survey")
    assert Survey.objects.get(pk=answered.pk).report_tallies == {
        str(first.pk): [9, 4],
        str(second.pk): [8, 0],
    }
    assert Survey.objects.get(pk=draft.pk).report_tallies == {str(unanswered.pk): [0, 0]}

    apps = migrate(BEFORE)
    Question = apps.get_model("surveys", "Question")
    assert sorted(Question.objects.values_list("id", "report_count", "yes_count")) == [
        (first.pk, 9, 4),
        (second.pk, 8, 0),
        (unanswered.pk, 0, 0),
    ]
    migrate(AFTER)
