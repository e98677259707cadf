"""Submissions and grouping answers keyed at random instead of counted (issue 24).

An identity column numbers rows in the order they arrive, so ``ORDER BY id`` gave back the
order in which people answered. The keys stored so far are replaced with random ones too
(the grouping answers follow their submission's new key), or the rows already stored would
keep that order.
"""

import secrets

from django.db import migrations

import surveys.models


def _fresh_keys(count, *, taken):
    """``count`` random keys, distinct and none of them in ``taken``: an UPDATE that moved a
    row onto a key another row still holds would break the primary key on the way."""
    keys = set()
    while len(keys) < count:
        key = secrets.randbits(63)
        if key not in taken:
            keys.add(key)
    return list(keys)


def _rekey(schema_editor, *, table, references=()):
    """Give every row of ``table`` a random ``id``, and the columns in ``references``
    (``[(table, column), ...]``) that point at it the same new key."""
    connection = schema_editor.connection
    quote = schema_editor.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {quote(table)}")
        old = [row[0] for row in cursor.fetchall()]
        if not old:
            return
        new = _fresh_keys(len(old), taken=set(old))
        cursor.execute("CREATE TEMPORARY TABLE rrsurvey_rekey (old bigint PRIMARY KEY, new bigint)")
        try:
            cursor.executemany(
                "INSERT INTO rrsurvey_rekey (old, new) VALUES (%s, %s)", list(zip(old, new))
            )
            for referencing, column in references:
                cursor.execute(
                    f"UPDATE {quote(referencing)} SET {quote(column)} = (SELECT new FROM"
                    f" rrsurvey_rekey WHERE old = {quote(referencing)}.{quote(column)})"
                )
            cursor.execute(
                f"UPDATE {quote(table)} SET id = (SELECT new FROM rrsurvey_rekey"
                f" WHERE old = {quote(table)}.id)"
            )
        finally:
            cursor.execute("DROP TABLE rrsurvey_rekey")


def rekey_stored_rows(apps, schema_editor):
    Submission = apps.get_model("surveys", "Submission")
    GroupAnswer = apps.get_model("surveys", "GroupAnswer")
    _rekey(
        schema_editor,
        table=Submission._meta.db_table,
        references=[(GroupAnswer._meta.db_table, GroupAnswer._meta.get_field("submission").column)],
    )
    _rekey(schema_editor, table=GroupAnswer._meta.db_table)


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0016_question_types"),
    ]

    operations = [
        migrations.AlterField(
            model_name="groupanswer",
            name="id",
            field=surveys.models.RandomKeyField(
                default=surveys.models.random_key,
                editable=False,
                primary_key=True,
                serialize=False,
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="id",
            field=surveys.models.RandomKeyField(
                default=surveys.models.random_key,
                editable=False,
                primary_key=True,
                serialize=False,
            ),
        ),
        migrations.RunPython(rekey_stored_rows, migrations.RunPython.noop),
    ]
