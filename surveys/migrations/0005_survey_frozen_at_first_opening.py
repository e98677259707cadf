
from django.db import migrations, models

from surveys.models import design_fingerprint_of


def freeze_surveys_already_opened(apps, schema_editor):
    """A survey that is open or closed, or has responses, has been opened: freeze it now.

    The moment it first opened was not recorded; its last change is the closest known time.
    """
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    GroupingOption = apps.get_model("surveys", "GroupingOption")
    opened = Survey.objects.filter(
        models.Q(status__in=["open", "closed"]) | models.Q(response_count__gt=0)
    )
    for survey in opened.iterator():
        grouping = [
            (
                gq.pk,
                gq.text,
                list(
                    GroupingOption.objects.filter(grouping_question=gq)
                    .order_by("position", "id")
                    .values_list("id", "label")
                ),
            )
            for gq in GroupingQuestion.objects.filter(survey=survey).order_by("position", "id")
        ]
        survey.opened_at = survey.updated_at
        survey.design_fingerprint = design_fingerprint_of(
            p_truth=survey.p_truth,
            p_forced_yes=survey.p_forced_yes,
            questions=Question.objects.filter(survey=survey)
            .order_by("position", "id")
            .values_list("id", "text"),
            grouping=grouping,
        )
        survey.save(update_fields=["opened_at", "design_fingerprint"])


class Migration(migrations.Migration):

    dependencies = [
        ('surveys', '0004_reports_in_the_submission_row'),
    ]

    operations = [
        migrations.AddField(
            model_name='survey',
            name='design_fingerprint',
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name='survey',
            name='opened_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='survey',
            name='shared_devices',
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(freeze_surveys_already_opened, migrations.RunPython.noop),
    ]
