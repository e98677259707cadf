import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from dpengine import simulate_reports
from surveys import selectors, services
from surveys.models import Survey

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_TITLE = "Workplace conduct survey (demo)"
# The simulated population's true shares, so the estimates on the results page can be
# compared with the truth.
DEMO_QUESTIONS = (
    ("Have you ever taken office supplies home for private use?", 0.40),
    ("Have you called in sick when you were not ill in the past year?", 0.25),
    ("Have you used drugs or alcohol during working hours in the past year?", 0.10),
    ("Have you ever falsified a timesheet or expense claim?", 0.05),
)
DEMO_RESPONDENTS = 3000


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
            survey = services.survey_create(
                owner=user,
                title=DEMO_TITLE,
                intro=(
                    "A short anonymous survey about conduct at work. Your browser randomizes "
                    "every answer before it is sent, so no answer can be held against you."
                ),
                questions=[text for text, _share in DEMO_QUESTIONS],
                min_n=30,
            )
            survey = services.survey_open(survey=survey)
            design = selectors.survey_design(survey=survey)
            rng = np.random.default_rng(seed)
            reports = np.column_stack(
                [
                    simulate_reports(share, DEMO_RESPONDENTS, design, rng)
                    for _t, share in DEMO_QUESTIONS
                ]
            )
            services.simulated_submissions_record(survey=survey, reports=reports)
            self.stdout.write(
                f"Created the demo survey with {DEMO_RESPONDENTS} simulated respondents."
            )
        base = base_url.rstrip("/")
        self.stdout.write(
            "\n"
            f"  Researcher sign-in: {base}/accounts/login/  "
            f"(username {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r})\n"
            f"  Respondent link:    {base}/s/{survey.slug}/\n"
            f"  True shares used in the simulation: "
            + ", ".join(f"{share:.0%}" for _t, share in DEMO_QUESTIONS)
            + "\n"
        )
