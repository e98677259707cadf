from django.conf import settings
from django.core.management.base import BaseCommand

from surveys import services


class Command(BaseCommand):
    help = (
        "Delete for good the surveys that have been in their owner's trash for more than "
        "TRASH_DAYS days (default 30). Run it daily (docs/deploying.md, 'Deploying rrsurvey')."
    )

    def handle(self, *args, **options):
        purged = services.trash_purge()
        self.stdout.write(
            f"Purged {purged} survey(s) deleted more than {settings.TRASH_DAYS} days ago."
        )
