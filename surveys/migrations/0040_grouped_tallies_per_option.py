"""The per-(question, grouping option) tallies become one row per (option, shard) holding every
question's counts (``{"q<question id>": [reports, yes reports]}``, as ``TallyShard`` holds the
survey's): a grouped submission then updates one row per option chosen instead of one per
question and option, which was most of what a grouping answer cost the database
(docs/benchmarks.md, "Submission throughput").

The counts move across unchanged: each (option, shard) row sums nothing, it gathers the rows
of its questions; back, each question's entry becomes its row again (an entry of a question
removed since has no row to go back to). The new table is made under another name and takes
the old one's once that is gone, so that no index name of the two meets; it leaves room on its
pages as the old one did (0036_lighter_submission_writes), before its rows are written.
"""

import django.db.models.deletion
from django.db import migrations, models

FILLFACTOR = 20  # as 0036_lighter_submission_writes
_BATCH = 2000


def _leave_room(schema_editor, table):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {FILLFACTOR})")


def per_option(apps, schema_editor):
    PerQuestion = apps.get_model("surveys", "GroupTally")
    GroupTally = apps.get_model("surveys", "GroupTallyPerOption")
    _leave_room(schema_editor, GroupTally._meta.db_table)
    rows = {}
    for qid, oid, shard, n, yes in PerQuestion.objects.values_list(
        "question_id", "option_id", "shard", "report_count", "yes_count"
    ).order_by("option_id", "shard", "question_id"):
        rows.setdefault((oid, shard), {})[f"q{qid}"] = [n, yes]
    GroupTally.objects.bulk_create(
        (
            GroupTally(option_id=oid, shard=shard, reports=reports)
            for (oid, shard), reports in rows.items()
        ),
        batch_size=_BATCH,
    )


def per_question(apps, schema_editor):
    PerQuestion = apps.get_model("surveys", "GroupTally")
    GroupTally = apps.get_model("surveys", "GroupTallyPerOption")
    Question = apps.get_model("surveys", "Question")
    _leave_room(schema_editor, PerQuestion._meta.db_table)
    questions = set(Question._base_manager.values_list("id", flat=True))
    PerQuestion.objects.bulk_create(
        (
            PerQuestion(
                question_id=int(key[1:]),
                option_id=oid,
                shard=shard,
                report_count=n,
                yes_count=yes,
            )
            for oid, shard, reports in GroupTally.objects.values_list(
                "option_id", "shard", "reports"
            ).order_by("option_id", "shard")
            for key, (n, yes) in sorted(reports.items())
            if int(key[1:]) in questions
        ),
        batch_size=_BATCH,
    )


# What PostgreSQL named after the table the rows were made in, and their names after the
# table the model has (as a table made under that name would have them).
_NAMES = (
    ("INDEX", "surveys_grouptallyperoption_pkey", "surveys_grouptally_pkey"),
    ("SEQUENCE", "surveys_grouptallyperoption_id_seq", "surveys_grouptally_id_seq"),
)


def _rename(schema_editor, *, forward):
    if schema_editor.connection.vendor != "postgresql":
        return
    for kind, made, final in _NAMES:
        old, new = (made, final) if forward else (final, made)
        schema_editor.execute(f"ALTER {kind} {old} RENAME TO {new}")


def names_of_the_table(apps, schema_editor):
    _rename(schema_editor, forward=True)


def names_it_was_made_with(apps, schema_editor):
    _rename(schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("surveys", "0039_invite_reshuffle_index")]

    operations = [
        migrations.CreateModel(
            name="GroupTallyPerOption",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("shard", models.PositiveSmallIntegerField(default=0)),
                ("reports", models.JSONField(default=dict)),
                (
                    "option",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="group_tallies",
                        to="surveys.groupingoption",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("option", "shard"), name="group_tally_option_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(per_option, per_question),
        migrations.DeleteModel("GroupTally"),
        migrations.RenameModel("GroupTallyPerOption", "GroupTally"),
        migrations.RunPython(names_of_the_table, names_it_was_made_with),
    ]
