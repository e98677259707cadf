from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0018_accounts_by_consent"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="time_zone",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
