from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0022_question_direct"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="shuffle_questions",
            field=models.BooleanField(default=False),
        ),
    ]
