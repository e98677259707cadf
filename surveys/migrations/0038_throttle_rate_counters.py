"""The rate limits' counters in a table of their own (surveys/rate_limits.py): one statement
per hit creates or adds to the window's counter and returns the count, where the database
cache took about ten round trips (an ``add`` that culls, reads and fails to insert, then an
``incr`` in a transaction of its own). The cache table stays: nothing reads it any more, and
a deployment that rolls back still finds it."""

from django.db import migrations, models


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
    ]
