# The co-researcher's invitation is a MemberInvitation, so that "Invitation" means a respondent's
# alone: the table is renamed with its rows, its constraints take the new name, and the reverse
# accessors (survey.member_invitations, user.member_invitations) no longer say "invitations".

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('surveys', '0032_positions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameModel(old_name='SurveyInvitation', new_name='MemberInvitation'),
        migrations.RemoveConstraint(
            model_name='memberinvitation',
            name='survey_invitation_one_addressee',
        ),
        migrations.RemoveConstraint(
            model_name='memberinvitation',
            name='survey_invitation_role_valid',
        ),
        migrations.RemoveConstraint(
            model_name='memberinvitation',
            name='survey_invitation_one_per_user',
        ),
        migrations.RemoveConstraint(
            model_name='memberinvitation',
            name='survey_invitation_one_per_email',
        ),
        migrations.AlterField(
            model_name='memberinvitation',
            name='survey',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='member_invitations', to='surveys.survey'),
        ),
        migrations.AlterField(
            model_name='memberinvitation',
            name='user',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='member_invitations', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddConstraint(
            model_name='memberinvitation',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('user__isnull', False), ('email', '')), models.Q(('user__isnull', True), models.Q(('email', ''), _negated=True)), _connector='OR'), name='member_invitation_one_addressee'),
        ),
        migrations.AddConstraint(
            model_name='memberinvitation',
            constraint=models.CheckConstraint(condition=models.Q(('role__in', ['viewer', 'editor']), models.Q(('role', 'owner'), ('user__isnull', False)), _connector='OR'), name='member_invitation_role_valid'),
        ),
        migrations.AddConstraint(
            model_name='memberinvitation',
            constraint=models.UniqueConstraint(condition=models.Q(('user__isnull', False)), fields=('survey', 'user'), name='member_invitation_one_per_user'),
        ),
        migrations.AddConstraint(
            model_name='memberinvitation',
            constraint=models.UniqueConstraint(condition=models.Q(('email', ''), _negated=True), fields=('survey', 'email'), name='member_invitation_one_per_email'),
        ),
    ]
