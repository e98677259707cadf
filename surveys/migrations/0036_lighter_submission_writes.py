"""Less for each submission to write.

Its submission and grouping answer rows lose the index of their survey and submission key:
the unique (survey, submission id) and (submission, grouping question) indexes serve the same
lookups, and each row added an entry to both.

The tally tables every submission updates keep room on each page (PostgreSQL's
``fillfactor``), so that an update writes the row's new version on its own page (a HOT
update: no index entry, and the version chain pruned in place) instead of a full page sending
it elsewhere with a new entry in every index. With full pages, walking the versions of a few
hot rows and their index entries took a large share of a grouped submission's database time
(docs/benchmarks.md, "Submission throughput"). The rows are few (a survey's shards, days,
values and options), so the tables stay small. Applies to pages written from now on; SQLite
has no such setting.
"""

import django.db.models.deletion
from django.db import migrations, models

# Percent of each page filled by inserts; the rest is left for updated versions.
FILLFACTOR = 20
TABLES = (
    "surveys_tallyshard",
    "surveys_daytally",
    "surveys_numerictally",
    "surveys_grouptally",
    "surveys_groupingtally",
    "surveys_groupcell",
)


def _set(schema_editor, value):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {value})")


def leave_room(apps, schema_editor):
    _set(schema_editor, FILLFACTOR)


def fill_pages(apps, schema_editor):
    _set(schema_editor, 100)


class Migration(migrations.Migration):
    dependencies = [("surveys", "0035_tally_shards")]

    operations = [
        migrations.AlterField(
            model_name="groupanswer",
            name="submission",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="group_answers",
                to="surveys.submission",
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="survey",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="submissions",
                to="surveys.survey",
            ),
        ),
        migrations.RunPython(leave_room, fill_pages),
    ]
