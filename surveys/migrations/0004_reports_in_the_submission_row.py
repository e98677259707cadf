"""Randomized reports move from one row per answer into the submission's row.

``Submission.reports`` holds ``{"q<question id>": reported yes}``; the ``Report`` table goes.
Existing reports are carried over both ways, a chunk of submissions at a time.
"""

import django.db.models.deletion
from django.db import migrations, models

CHUNK = 5000


def reports_into_submissions(apps, schema_editor):
    Submission = apps.get_model("surveys", "Submission")
    Report = apps.get_model("surveys", "Report")
    last = 0
    while True:
        chunk = list(Submission.objects.filter(pk__gt=last).order_by("pk")[:CHUNK])
        if not chunk:
            return
        packed = {submission.pk: {} for submission in chunk}
        for submission_id, question_id, reported_yes in Report.objects.filter(
            submission__in=chunk
        ).values_list("submission_id", "question_id", "reported_yes"):
            packed[submission_id][f"q{question_id}"] = reported_yes
        for submission in chunk:
            submission.reports = packed[submission.pk]
        Submission.objects.bulk_update(chunk, ["reports"])
        last = chunk[-1].pk


def reports_into_rows(apps, schema_editor):
    Submission = apps.get_model("surveys", "Submission")
    Report = apps.get_model("surveys", "Report")
    Question = apps.get_model("surveys", "Question")
    existing = set(Question.objects.values_list("id", flat=True))
    rows = (
        Report(submission_id=pk, question_id=int(key.removeprefix("q")), reported_yes=bit)
        for pk, reports in Submission.objects.values_list("pk", "reports").iterator()
        for key, bit in reports.items()
        if int(key.removeprefix("q")) in existing
    )
    Report.objects.bulk_create(rows, batch_size=CHUNK)


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0003_report_tallies_on_the_survey"),
    ]

    operations = [
        # The old rows' reverse accessor was also called "reports"; rename it first.
        migrations.AlterField(
            model_name="report",
            name="submission",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="report_rows",
                to="surveys.submission",
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="reports",
            field=models.JSONField(default=dict, editable=False),
            preserve_default=False,
        ),
        migrations.RunPython(reports_into_submissions, reports_into_rows),
        migrations.DeleteModel(
            name="Report",
        ),
    ]
