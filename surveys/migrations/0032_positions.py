# Where each respondent was shown each question (Submission.positions, from the body's order; empty
# for the rows stored before, and for a raw INSERT that names no positions) and Question.pinned.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('surveys', '0031_release_batches'),
    ]

    operations = [
        migrations.AddField(
            model_name='question',
            name='pinned',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='submission',
            name='positions',
            field=models.JSONField(
                db_default=models.Value({}, output_field=models.JSONField()),
                default=dict,
                editable=False,
            ),
        ),
    ]
