"""Every tally a submission adds to, sharded as ``TallyShard`` is, so that two submissions to
one survey never wait for one another's row lock: the per-(question, option) tallies, the
regression's cells and the numeric histograms take a ``shard`` column (unique with it), and
the option and "Prefer not to say" counts move from their grouping option and grouping
question into ``GroupingTally``. The existing counts are kept in shard 0; the zero rows of the
other shards of every (question, option) tally and grouping answer are created, as opening a
survey creates them.
"""

import django.db.models.deletion
from django.db import migrations, models

SHARDS = 16  # models.TALLY_SHARDS when written


def counts_keep(apps, schema_editor):
    GroupingOption = apps.get_model("surveys", "GroupingOption")
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    GroupingTally = apps.get_model("surveys", "GroupingTally")
    GroupTally = apps.get_model("surveys", "GroupTally")
    answers = [
        *(
            (gid, oid, n)
            for oid, gid, n in GroupingOption.objects.values_list(
                "id", "grouping_question_id", "respondent_count"
            )
        ),
        *((gid, None, n) for gid, n in GroupingQuestion.objects.values_list("id", "declined_count")),
    ]
    GroupingTally.objects.bulk_create(
        (
            GroupingTally(
                grouping_question_id=gid, option_id=oid, shard=shard, count=n if shard == 0 else 0
            )
            for gid, oid, n in answers
            for shard in range(SHARDS)
        ),
        batch_size=2000,
    )
    pairs = list(GroupTally.objects.values_list("question_id", "option_id"))
    GroupTally.objects.bulk_create(
        (
            GroupTally(question_id=qid, option_id=oid, shard=shard)
            for qid, oid in pairs
            for shard in range(1, SHARDS)
        ),
        batch_size=2000,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0034_day_tallies"),
    ]

    operations = [
        migrations.CreateModel(
            name="GroupingTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("shard", models.PositiveSmallIntegerField()),
                ("count", models.PositiveIntegerField(default=0)),
                (
                    "grouping_question",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="answer_tallies",
                        to="surveys.groupingquestion",
                    ),
                ),
                (
                    "option",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="respondent_tallies",
                        to="surveys.groupingoption",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("option__isnull", False)),
                        fields=("option", "shard"),
                        name="grouping_tally_option_unique",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("option__isnull", True)),
                        fields=("grouping_question", "shard"),
                        name="grouping_tally_declined_unique",
                    ),
                ],
            },
        ),
        migrations.RemoveConstraint(model_name="groupcell", name="group_cell_unique"),
        migrations.RemoveConstraint(model_name="grouptally", name="group_tally_unique"),
        migrations.RemoveConstraint(model_name="numerictally", name="numeric_tally_unique"),
        migrations.AddField(
            model_name="groupcell",
            name="shard",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="grouptally",
            name="shard",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="numerictally",
            name="shard",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddConstraint(
            model_name="groupcell",
            constraint=models.UniqueConstraint(
                fields=("question", "key", "shard"), name="group_cell_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="grouptally",
            constraint=models.UniqueConstraint(
                fields=("question", "option", "shard"), name="group_tally_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="numerictally",
            constraint=models.UniqueConstraint(
                fields=("question", "report", "shard"), name="numeric_tally_unique"
            ),
        ),
        migrations.RunPython(counts_keep, migrations.RunPython.noop),
        migrations.RemoveField(model_name="groupingoption", name="respondent_count"),
        migrations.RemoveField(model_name="groupingquestion", name="declined_count"),
    ]
