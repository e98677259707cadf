"""The rate limits' counters in a table of their own (surveys/rate_limits.py): one statement
per hit creates or adds to the window's counter and returns the count, where the database
cache took about ten round trips (an ``add`` that culls, reads and fails to insert, then an
``incr`` in a transaction of its own). The cache table stays: nothing reads it any more, and
a deployment that rolls back still finds it.

On PostgreSQL the table is UNLOGGED: a hit writes no WAL, so its commit waits for no flush to
disk (about 3 ms of waiting and two thirds of the backend's CPU per hit, measured). The price
is what a rate limit can pay: PostgreSQL empties the table after a crash (not after a clean
restart) and a standby does not have it, so a crash or a failover gives every client a fresh
window's budget once.
"""

from django.db import migrations, models


def unlogged_on_postgresql(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE surveys_ratecounter SET UNLOGGED")


def logged_on_postgresql(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE surveys_ratecounter SET LOGGED")


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0037_spent_token_held"),
    ]

    operations = [
        migrations.CreateModel(
            name="RateCounter",
            fields=[
                ("key", models.CharField(max_length=100, primary_key=True, serialize=False)),
                ("hits", models.PositiveIntegerField()),
                ("expires", models.DateTimeField(db_index=True)),
            ],
        ),
        migrations.RunPython(unlogged_on_postgresql, logged_on_postgresql),
    ]
