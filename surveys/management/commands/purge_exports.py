from django.conf import settings
from django.core.management.base import BaseCommand

from surveys.services.export_jobs import export_jobs_purge


class Command(BaseCommand):
    help = (
        "Delete the export files (and their jobs) kept longer than EXPORT_RETENTION_HOURS "
        "(default 24). The worker also does it before each export; run it hourly when exports "
        "are rare (docs/deploying.md, 'The worker')."
    )

    def handle(self, *args, **options):
        purged = export_jobs_purge()
        self.stdout.write(
            f"Purged {purged} export(s) older than {settings.EXPORT_RETENTION_HOURS} hours."
        )
