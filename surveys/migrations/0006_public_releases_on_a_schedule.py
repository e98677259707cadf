"""Public results are released on a schedule under one lifetime budget (binary-tree mechanism).

``Survey.public_epsilon`` now means the total epsilon of all releases of the public page, not
the epsilon of each. Releases made under the old rule (a new one whenever the count changed,
each spending epsilon again) cannot be continued by the tree mechanism, so they are removed,
and the schedule of a page that is on starts on the day of the migration: its first release
under the new rule is due one period later. (Epsilon the old releases already spent is not
counted in the new budget; the README says so.)
"""

from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


def drop_unscheduled_releases(apps, schema_editor):
    apps.get_model("surveys", "PublicRelease").objects.all().delete()


def start_schedules_today(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    Survey.objects.filter(public_results=True).update(public_started_on=timezone.now().date())


class Migration(migrations.Migration):

    dependencies = [
        ('surveys', '0005_survey_frozen_at_first_opening'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(drop_unscheduled_releases, migrations.RunPython.noop),
        migrations.AlterModelOptions(
            name='publicrelease',
            options={'get_latest_by': 'step', 'ordering': ['-step']},
        ),
        migrations.AddField(
            model_name='publicrelease',
            name='nodes',
            field=models.JSONField(default=dict),
        ),
        migrations.AddField(
            model_name='publicrelease',
            name='step',
            field=models.PositiveIntegerField(default=1),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name='survey',
            name='public_release_days',
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AddField(
            model_name='survey',
            name='public_releases_max',
            field=models.PositiveSmallIntegerField(default=30),
        ),
        migrations.AddField(
            model_name='survey',
            name='public_started_on',
            field=models.DateField(blank=True, editable=False, null=True),
        ),
        migrations.AddConstraint(
            model_name='publicrelease',
            constraint=models.UniqueConstraint(fields=('survey', 'step'), name='public_release_step_unique'),
        ),
        migrations.AddConstraint(
            model_name='publicrelease',
            constraint=models.CheckConstraint(condition=models.Q(('step__gte', 1)), name='public_release_step_positive'),
        ),
        migrations.AddConstraint(
            model_name='survey',
            constraint=models.CheckConstraint(condition=models.Q(('public_release_days__gte', 1), ('public_releases_max__gte', 1)), name='survey_public_schedule_positive'),
        ),
        migrations.RunPython(start_schedules_today, migrations.RunPython.noop),
    ]
