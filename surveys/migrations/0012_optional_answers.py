"""Optional answers: a ``required`` flag per yes/no and per grouping question, and "Prefer not
to say" for grouping questions (a ``GroupAnswer`` without option, counted in
``GroupingQuestion.declined_count``).

Yes/no questions stay required. Grouping questions are optional from now on for new ones, but
the existing ones keep being required: a survey that is already collecting answers keeps the
rules its respondents met so far (its design is frozen).
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0011_pilot_consent_schedule"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="required",
            field=models.BooleanField(default=True),
        ),
        # Existing rows get True, new ones default to False (the next operation).
        migrations.AddField(
            model_name="groupingquestion",
            name="required",
            field=models.BooleanField(default=True),
        ),
        migrations.AlterField(
            model_name="groupingquestion",
            name="required",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="groupingquestion",
            name="declined_count",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AlterField(
            model_name="groupanswer",
            name="option",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="answers",
                to="surveys.groupingoption",
            ),
        ),
    ]
