from django.core.management.base import BaseCommand

from surveys import services


class Command(BaseCommand):
    help = (
        "Rewrite the stored responses in the order of their random keys, so that the database's "
        "files do not keep the order in which they arrived. Run it daily, at a quiet hour "
        "(docs/deploying.md, 'Deploying rrsurvey')."
    )

    def handle(self, *args, **options):
        services.stored_rows_reorder()
        self.stdout.write("Stored responses rewritten in the order of their random keys.")
