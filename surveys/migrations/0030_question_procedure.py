from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0029_confidence_at_most_six_nines"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="procedure",
            field=models.CharField(
                choices=[("device", "Device"), ("respondent", "Respondent")],
                default="device",
                max_length=10,
            ),
        ),
        migrations.AddConstraint(
            model_name="question",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("procedure", "device"),
                    models.Q(("procedure", "respondent"), ("kind", "yes_no"), ("compare_direct", False)),
                    _connector="OR",
                ),
                name="question_procedure_valid",
            ),
        ),
    ]
