"""The invitations a batch's release rewrites (``reshuffle``) found by an index: without it,
every release read every invitation of the survey."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0038_throttle_rate_counters"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="invitation",
            index=models.Index(
                condition=models.Q(("reshuffle", True)), fields=["survey"], name="invitation_reshuffle"
            ),
        ),
    ]
