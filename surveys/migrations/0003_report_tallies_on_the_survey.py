"""Per-question report tallies move from the question rows to one JSON object on the survey.

A submission then writes one tally row (the survey's, already written for its response
count) instead of one per question. Existing tallies are carried over both ways; a question's
key is "q<id>" (``models.question_key``).
"""

from django.db import migrations, models


def tallies_to_survey(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    tallies = {}
    for survey_id, question_id, reports, yes in Question.objects.values_list(
        "survey_id", "id", "report_count", "yes_count"
    ):
        tallies.setdefault(survey_id, {})[f"q{question_id}"] = [reports, yes]
    for survey_id, survey_tallies in tallies.items():
        Survey.objects.filter(pk=survey_id).update(report_tallies=survey_tallies)


def tallies_to_questions(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    for survey_tallies in Survey.objects.values_list("report_tallies", flat=True):
        for key, (reports, yes) in survey_tallies.items():
            Question.objects.filter(pk=int(key.removeprefix("q"))).update(
                report_count=reports, yes_count=yes
            )


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0002_grouping_and_public_results"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="report_tallies",
            field=models.JSONField(default=dict, editable=False),
        ),
        migrations.RunPython(tallies_to_survey, tallies_to_questions),
        migrations.RemoveConstraint(
            model_name="question",
            name="question_yes_le_n",
        ),
        migrations.RemoveField(
            model_name="question",
            name="report_count",
        ),
        migrations.RemoveField(
            model_name="question",
            name="yes_count",
        ),
    ]
