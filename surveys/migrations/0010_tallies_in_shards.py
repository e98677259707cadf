"""A survey's running tallies move from its own row to tally shards summed on read.

Every submission locked and rewrote the survey's row for its counts, so one survey's
throughput was capped by that one row's lock. ``TallyShard`` holds the same counts
(``responses`` and ``reports``: ``{"q<id>": [reports, yes reports]}``) in up to 16 rows per
survey, each submission adding to one chosen at random. Existing counts go to shard 0; back,
the shards are summed into the survey's row.
"""

import django.db.models.deletion
from django.db import migrations, models


def tallies_to_shards(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    TallyShard = apps.get_model("surveys", "TallyShard")
    TallyShard.objects.bulk_create(
        TallyShard(survey_id=survey_id, shard=0, responses=responses, reports=reports)
        for survey_id, responses, reports in Survey.objects.values_list(
            "id", "response_count", "report_tallies"
        ).iterator()
        if responses or reports
    )


def tallies_to_surveys(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    TallyShard = apps.get_model("surveys", "TallyShard")
    totals = {}
    for survey_id, responses, reports in TallyShard.objects.values_list(
        "survey_id", "responses", "reports"
    ).iterator():
        have_responses, have_reports = totals.setdefault(survey_id, [0, {}])
        totals[survey_id][0] = have_responses + responses
        for key, (n, yes) in reports.items():
            have_n, have_yes = have_reports.get(key, (0, 0))
            have_reports[key] = [have_n + n, have_yes + yes]
    for survey_id, (responses, reports) in totals.items():
        Survey.objects.filter(pk=survey_id).update(
            response_count=responses, report_tallies=reports
        )


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0009_survey_trash"),
    ]

    operations = [
        migrations.CreateModel(
            name="TallyShard",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("shard", models.PositiveSmallIntegerField()),
                ("responses", models.PositiveIntegerField(default=0)),
                ("reports", models.JSONField(default=dict)),
                (
                    "survey",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tally_shards",
                        to="surveys.survey",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("survey", "shard"), name="tally_shard_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(tallies_to_shards, tallies_to_surveys),
        migrations.RemoveField(
            model_name="survey",
            name="report_tallies",
        ),
        migrations.RemoveField(
            model_name="survey",
            name="response_count",
        ),
    ]
