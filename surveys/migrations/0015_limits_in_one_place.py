"""Limits in one place (issue 16): the database's confidence bound is the services' [0.5, 1).

It allowed (0, 1) while every write path refused a level below one half; a row below it (only
a database shell could have stored one) is raised to 0.5, the nearest level allowed, before
the tighter check is added. The numbers are written out, not read from ``surveys.limits``: a
migration states what it did on the day it ran.
"""

from django.db import migrations, models


def raise_low_confidence(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    Survey._base_manager.filter(confidence__lt=0.5).update(confidence=0.5)


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0014_survey_translations"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="survey",
            name="survey_confidence_open_unit",
        ),
        migrations.RunPython(raise_low_confidence, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="survey",
            constraint=models.CheckConstraint(
                condition=models.Q(("confidence__gte", 0.5), ("confidence__lt", 1.0)),
                name="survey_confidence_in_range",
            ),
        ),
    ]
