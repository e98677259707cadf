import numpy as np
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from surveys import selectors, services
from surveys.models import Question


def _probabilities(raw, count):
    try:
        values = [float(part) for part in raw.split(",")]
    except ValueError:
        raise CommandError(
            f"--p must be a number or comma-separated numbers, got {raw!r}"
        ) from None
    if len(values) == 1:
        values *= count
    if len(values) != count:
        raise CommandError(
            f"--p needs 1 or {count} values (one per yes/no question), got {len(values)}"
        )
    if not all(0 <= v <= 1 for v in values):
        raise CommandError(f"--p values must lie in [0, 1], got {raw!r}")
    return values


def _truth(question, given):
    """The simulated population's truth for one question (see the command's help)."""
    if question.kind == Question.Kind.CHOICE:
        return [1 / len(question.options)] * len(question.options)
    if question.kind == Question.Kind.NUMERIC:
        return (question.min_value + question.max_value) / 2
    return next(given)


class Command(BaseCommand):
    help = (
        "Add simulated respondents to a survey: true answers drawn, then randomized by each "
        "question's own mechanism. Yes/no questions: true share P of 'yes'; multiple-choice "
        "questions: every option equally likely; numeric questions: true mean in the middle "
        "of the range."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "slug", help="the survey's slug (after --, as in `-- -abc`, when it starts with -)"
        )
        parser.add_argument("--n", type=int, required=True, help="number of respondents")
        parser.add_argument(
            "--p",
            default="0.2",
            help="true share of 'yes', one value or one per yes/no question",
        )
        parser.add_argument("--seed", type=int, default=None, help="seed for reproducible runs")

    def handle(self, *args, slug, n, p, seed, **options):
        if n < 1:
            raise CommandError(f"--n must be at least 1, got {n}")
        try:
            survey = selectors.survey_by_slug(slug=slug)
        except Exception:
            raise CommandError(f"No survey with slug {slug!r}") from None
        questions = selectors.survey_questions(survey=survey)
        if not questions:
            raise CommandError("The survey has no questions.")
        yes_no = [q for q in questions if q.kind == Question.Kind.YES_NO]
        given = iter(_probabilities(p, len(yes_no)) if yes_no else [])
        shares = [_truth(question, given) for question in questions]
        reports = services.simulated_reports_draw(
            survey=survey, shares=shares, n=n, rng=np.random.default_rng(seed)
        )
        try:
            stored = services.simulated_submissions_record(survey=survey, reports=reports)
        except ValidationError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Added {stored} simulated respondents to {survey.title!r}.")
