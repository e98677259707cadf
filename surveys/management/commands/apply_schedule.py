from django.core.management.base import BaseCommand

from surveys import services


class Command(BaseCommand):
    help = (
        "Store as closed every open survey whose scheduled close time has passed, so that "
        "lists and notifications agree with the respondent page. Responses are refused outside "
        "a survey's schedule whether or not this runs; run it every few minutes "
        "(docs/deploying.md, "
        "'Deploying rrsurvey')."
    )

    def handle(self, *args, **options):
        applied = services.schedule_apply()
        self.stdout.write(f"Closed {applied.closed} survey(s) whose close time had passed.")
