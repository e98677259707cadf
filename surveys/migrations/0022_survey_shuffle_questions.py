from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0021_export_jobs"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="shuffle_questions",
            field=models.BooleanField(default=False),
        ),
    ]
