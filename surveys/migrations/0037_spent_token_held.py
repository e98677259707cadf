"""The held spent tokens of a survey found by an index: a batch's release picks them, and
without it read every token the survey had ever spent."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0036_lighter_submission_writes"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="spenttoken",
            index=models.Index(
                condition=models.Q(("held", True)), fields=["survey"], name="spent_token_held"
            ),
        ),
    ]
