# The regression's cells (GroupCell), kept at write time, and their backfill from the stored
# submissions: the same grouped query as services.tallies.group_cells_rebuild, on the
# historical models.

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

DECLINED = 0  # option ids start at 1


def cells_backfill(apps, schema_editor):
    Survey = apps.get_model("surveys", "Survey")
    Submission = apps.get_model("surveys", "Submission")
    GroupAnswer = apps.get_model("surveys", "GroupAnswer")
    GroupCell = apps.get_model("surveys", "GroupCell")
    for survey in Survey.objects.filter(grouping_questions__isnull=False).distinct():
        grouping_ids = sorted(survey.grouping_questions.values_list("id", flat=True))
        question_ids = list(
            survey.questions.filter(kind="yes_no").values_list("id", flat=True)
        )
        if not question_ids:
            continue
        names = {f"g{gid}": gid for gid in grouping_ids}
        per_submission = GroupAnswer.objects.filter(submission=OuterRef("pk"))
        aggregates = {}
        for qid in question_ids:
            aggregates[f"n_{qid}"] = Count("id", filter=Q(reports__has_key=f"q{qid}"))
            aggregates[f"yes_{qid}"] = Count("id", filter=Q(**{f"reports__q{qid}": True}))
        rows = (
            Submission.objects.filter(survey=survey)
            .annotate(
                **{
                    name: Subquery(
                        per_submission.filter(grouping_question=gid).values(
                            chosen=Coalesce("option_id", Value(DECLINED))
                        )[:1]
                    )
                    for name, gid in names.items()
                }
            )
            .values(*names)
            .annotate(**aggregates)
            .order_by()
        )
        cells = []
        for row in rows:
            chosen = sorted(
                (gid, row[name]) for name, gid in names.items() if row[name] is not None
            )
            if not chosen:
                continue
            key = ",".join(f"{gid}:{'-' if oid == DECLINED else oid}" for gid, oid in chosen)
            cells.extend(
                GroupCell(
                    question_id=qid,
                    key=key,
                    report_count=row[f"n_{qid}"],
                    yes_count=row[f"yes_{qid}"],
                )
                for qid in question_ids
                if row[f"n_{qid}"]
            )
        GroupCell.objects.bulk_create(cells, batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("surveys", "0026_comprehension"),
    ]

    operations = [
        migrations.CreateModel(
            name="GroupCell",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.TextField()),
                ("report_count", models.PositiveIntegerField(default=0)),
                ("yes_count", models.PositiveIntegerField(default=0)),
                (
                    "question",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="group_cells",
                        to="surveys.question",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("question", "key"), name="group_cell_unique"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("yes_count__lte", models.F("report_count"))),
                        name="group_cell_yes_le_n",
                    ),
                ],
            },
        ),
        migrations.RunPython(cells_backfill, migrations.RunPython.noop),
    ]
