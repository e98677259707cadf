"""Day tallies (``DayTally``): what a public release counts, per survey and day, kept as
submissions arrive. Back-filled here from the released submissions stored so far (one pass
over them), as ``services.tallies.day_counts`` counts each."""

from collections import defaultdict

import django.db.models.deletion
from django.db import migrations, models


def day_tallies_fill(apps, schema_editor):
    Submission = apps.get_model("surveys", "Submission")
    GroupAnswer = apps.get_model("surveys", "GroupAnswer")
    DayTally = apps.get_model("surveys", "DayTally")
    options = defaultdict(list)
    for submission_id, option_id in (
        GroupAnswer.objects.filter(submission__held=False, option_id__isnull=False)
        .values_list("submission_id", "option_id")
        .iterator(chunk_size=10000)
    ):
        options[submission_id].append(option_id)
    days = defaultdict(lambda: defaultdict(int))
    for pk, survey_id, day, reports in (
        Submission.objects.filter(held=False)
        .values_list("pk", "survey_id", "received_on", "reports")
        .iterator(chunk_size=10000)
    ):
        counts = days[survey_id, day]
        counts["respondents"] += 1
        for key, report in reports.items():
            if isinstance(report, bool):
                counts[key] += int(report)
                counts[f"n{key}"] += 1
        for option_id in options.get(pk, ()):
            counts[f"o{option_id}"] += 1
    DayTally.objects.bulk_create(
        (
            DayTally(survey_id=survey_id, day=day, shard=0, counts=dict(counts))
            for (survey_id, day), counts in days.items()
        ),
        batch_size=1000,
    )


class Migration(migrations.Migration):

    dependencies = [
        ('surveys', '0033_member_invitation'),
    ]

    operations = [
        migrations.CreateModel(
            name='DayTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('shard', models.PositiveSmallIntegerField()),
                ('counts', models.JSONField(default=dict)),
                ('survey', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='day_tallies', to='surveys.survey')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('survey', 'day', 'shard'), name='day_tally_unique')],
            },
        ),
        migrations.RunPython(day_tallies_fill, migrations.RunPython.noop),
    ]
