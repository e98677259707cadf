"""The database cache's table (settings.CACHES), so ``migrate`` alone leaves a working app.

Sign-in and the throttles count in that cache; without the table every sign-in answered 500
until someone also ran ``createcachetable``. The command skips tables that already exist, so
deployments that ran it before are unaffected; with REDIS_URL there is nothing to create.
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("surveys", "0006_public_releases_on_a_schedule")]

    operations = [migrations.RunPython(create_cache_tables, migrations.RunPython.noop)]
