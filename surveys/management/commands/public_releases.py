"""Make the public results releases that are due (e.g. from a daily cron job).

Optional: the public page also makes them when it is next viewed. Either way release ``k``
holds the data before its scheduled date and noise drawn once (surveys/selectors/public_results.py).
"""

from django.core.management.base import BaseCommand

from surveys.services.public_release import public_releases_make


class Command(BaseCommand):
    help = "Make the public results releases that are due on their schedule."

    def handle(self, *args, **options):
        count = public_releases_make()
        self.stdout.write(f"Checked the schedules of {count} public results pages.")
