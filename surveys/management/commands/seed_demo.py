import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from dpengine import simulate_reports
from surveys import grouping, selectors, services
from surveys.models import Survey

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_TITLE = "Workplace conduct survey (demo)"
DEMO_QUESTIONS = (
    "Have you ever taken office supplies home for private use?",
    "Have you called in sick when you were not ill in the past year?",
    "Have you used drugs or alcohol during working hours in the past year?",
    "Have you ever falsified a timesheet or expense claim?",
)
DEMO_GROUPING_QUESTION = "Which part of the company do you work in?"
# The simulated population: respondents per department and each department's true share of
# "yes" per question, so estimates on the results and breakdown pages can be checked.
DEMO_DEPARTMENTS = (
    ("Warehouse", 1200, (0.50, 0.30, 0.15, 0.04)),
    ("Sales", 1000, (0.35, 0.25, 0.08, 0.10)),
    ("Office", 800, (0.30, 0.18, 0.05, 0.02)),
)


def true_shares():
    total = sum(n for _label, n, _shares in DEMO_DEPARTMENTS)
    return [
        sum(n * shares[q] for _label, n, shares in DEMO_DEPARTMENTS) / total
        for q in range(len(DEMO_QUESTIONS))
    ]


class Command(BaseCommand):
    help = "Create a demo researcher and an open demo survey with simulated responses (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument("--seed", type=int, default=20261121)

    @transaction.atomic
    def handle(self, *args, base_url, seed, **options):
        user, _created = get_user_model().objects.get_or_create(username=DEMO_USERNAME)
        # Always reset, so the credentials printed below are the ones that work.
        user.set_password(DEMO_PASSWORD)
        user.save()
        survey = Survey.objects.filter(owner=user, title=DEMO_TITLE).first()
        if survey is None:
            survey = self.create_demo_survey(user, seed)
        base = base_url.rstrip("/")
        self.stdout.write(
            "\n"
            f"  Researcher sign-in: {base}/accounts/login/  "
            f"(username {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r})\n"
            f"  Respondent link:    {base}/s/{survey.slug}/\n"
            "  True shares in the simulated population: "
            + ", ".join(f"{share:.1%}" for share in true_shares())
            + "\n"
        )

    def create_demo_survey(self, user, seed):
        survey = services.survey_create(
            owner=user,
            title=DEMO_TITLE,
            intro=(
                "A short anonymous survey about conduct at work. Your browser randomizes "
                "every answer before it is sent, so no answer can be held against you."
            ),
            questions=DEMO_QUESTIONS,
            min_n=30,
        )
        department = grouping.grouping_question_add(
            survey=survey,
            text=DEMO_GROUPING_QUESTION,
            options=[label for label, _n, _shares in DEMO_DEPARTMENTS],
        )
        survey = services.survey_open(survey=survey)
        design = selectors.survey_design(survey=survey)
        rng = np.random.default_rng(seed)
        reports, options = [], []
        for option, (_label, n, shares) in zip(
            department.options.all(), DEMO_DEPARTMENTS, strict=True
        ):
            reports.append(
                np.column_stack([simulate_reports(share, n, design, rng) for share in shares])
            )
            options.extend([[option.pk]] * n)
        total = services.simulated_submissions_record(
            survey=survey, reports=np.vstack(reports), options=options
        )
        self.stdout.write(f"Created the demo survey with {total} simulated respondents.")
        return survey
