# A survey's confidence level is at most 0.999999 (limits.CONFIDENCE_MAX): above it a choice
# question's per-option level rounds to 1 and no interval exists (issue 32). A stored level
# beyond it is lowered to the bound before the constraint is checked.

from django.db import migrations, models

CONFIDENCE_MAX = 0.999999  # limits.CONFIDENCE_MAX when written


def levels_within_bound(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    Survey.objects.filter(confidence__gt=CONFIDENCE_MAX).update(confidence=CONFIDENCE_MAX)


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0028_invitees"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="survey",
            name="survey_confidence_in_range",
        ),
        migrations.RunPython(levels_within_bound, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="survey",
            constraint=models.CheckConstraint(
                condition=models.Q(("confidence__gte", 0.5), ("confidence__lte", CONFIDENCE_MAX)),
                name="survey_confidence_in_range",
            ),
        ),
    ]
