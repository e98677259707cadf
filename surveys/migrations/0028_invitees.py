# Issue 32 (invitees): pilot invitations kept apart (Invitation.pilot, and one invitation per
# address per phase), the language of an invitation's email and slip, how emails name the
# researcher (Survey.contact_name, contact_email), and reminders counted for the survey only.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('surveys', '0027_regression_cells'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='invitation',
            name='invitation_one_per_email',
        ),
        migrations.AddField(
            model_name='invitation',
            name='language',
            field=models.CharField(blank=True, max_length=32),
        ),
        migrations.AddField(
            model_name='invitation',
            name='pilot',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='survey',
            name='contact_email',
            field=models.CharField(blank=True, max_length=254),
        ),
        migrations.AddField(
            model_name='survey',
            name='contact_name',
            field=models.CharField(blank=True, max_length=120),
        ),
        migrations.AddField(
            model_name='survey',
            name='reminders_sent',
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddConstraint(
            model_name='invitation',
            constraint=models.UniqueConstraint(condition=models.Q(('email', ''), _negated=True), fields=('survey', 'email', 'pilot'), name='invitation_one_per_email'),
        ),
    ]
