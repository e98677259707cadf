import django.db.models.manager
from django.db import migrations, models
from django.db.models import Q


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0025_control_group"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="comprehension_check",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="question",
            name="role",
            field=models.CharField(
                choices=[("question", "Question"), ("comprehension", "Comprehension check")],
                default="question",
                editable=False,
                max_length=16,
            ),
        ),
        migrations.AlterModelManagers(
            name="question",
            managers=[
                ("all_objects", django.db.models.manager.Manager()),
                ("objects", django.db.models.manager.Manager()),
            ],
        ),
        migrations.AlterModelOptions(
            name="question",
            options={
                "base_manager_name": "all_objects",
                "default_manager_name": "objects",
                "ordering": ["position", "id"],
            },
        ),
        migrations.AddConstraint(
            model_name="question",
            constraint=models.CheckConstraint(
                condition=Q(role="question")
                | (
                    Q(role="comprehension")
                    & Q(kind="yes_no")
                    & Q(randomized=False)
                    & Q(required=False)
                ),
                name="question_role_valid",
            ),
        ),
    ]
