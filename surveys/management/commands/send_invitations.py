from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from surveys.services import invitation_mail


class Command(BaseCommand):
    help = (
        "Send the invitation and reminder emails that wait, retrying failed ones (up to "
        "MAIL_ATTEMPTS_MAX attempts each). The worker (manage.py db_worker) sends them on its "
        "own; run this every few minutes from cron instead or as well (docs/deploying.md, "
        "'Invitation emails'). Sending nothing twice, it is safe to rerun."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--base-url",
            default=settings.SITE_URL or None,
            help="The site's address that links start with, e.g. https://surveys.example.org.",
        )
        parser.add_argument("--limit", type=int, default=None, help="Send at most this many.")

    def handle(self, *args, base_url, limit, **options):
        if not base_url:
            raise CommandError("--base-url is required (the site's address, for the links).")
        if not base_url.startswith(("https://", "http://")):
            raise CommandError(f"--base-url must start with https:// or http://, got {base_url!r}")
        report = invitation_mail.invitations_send(base_url=base_url, limit=limit)
        self.stdout.write(f"Sent {report.sent} email(s); {report.failed} failed (kept to retry).")
        if report.failed:
            # A non-zero exit lets cron or a monitor notice; the page shows each error.
            raise CommandError(f"{report.failed} email(s) could not be sent.")
