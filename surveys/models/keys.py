"""How rows are named: a survey's slug, a row key drawn at random, a question's key in
stored JSON."""

import re
import secrets

from django.db import models


def new_slug():
    # 96 random bits: unguessable, so a survey link cannot be found by enumeration.
    return secrets.token_urlsafe(12)


def is_slug(value):
    """Whether ``value`` could be a survey's slug (new_slug's URL-safe alphabet).

    Checked before a look-up: anything else names no survey, and some text taken from a URL
    (a NUL byte) is not even a valid PostgreSQL query parameter.
    """
    return isinstance(value, str) and _SLUG.fullmatch(value) is not None


# A regular expression, not a test per character: every submission checks its slug three times.
_SLUG = re.compile(r"[A-Za-z0-9_-]{1,32}")


def question_key(question_id) -> str:
    """A question's name in stored JSON (reports, tallies) and in exports: ``"q<id>"``.

    Not the bare id: Django's JSON key lookups read a numeric key as an array index.
    """
    return f"q{question_id}"


def random_key() -> int:
    """A row key drawn at random (63 bits, a positive bigint), never counted up.

    Counted keys (an identity column, SQLite's rowid) number rows in the order they arrived, so
    ``ORDER BY id`` would give back the order in which people answered. The chance that two
    keys of one table ever meet is about n²/2⁶⁴ (5·10⁻⁸ at a million rows); the submission
    SQL draws again when they do (``services.submissions``), and on the ORM path the
    submission is refused whole with a 409 that the page's retry, drawing anew, gets past.
    """
    return secrets.randbits(63)


class RandomKeyField(models.BigIntegerField):
    """A primary key filled with ``random_key``.

    On SQLite the column is declared INTEGER, which makes it the table's rowid: a BIGINT key
    would sit beside a hidden rowid that SQLite counts up as rows arrive, and a table scan
    (or ``SELECT rowid``) would follow it.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("primary_key", True)
        kwargs.setdefault("default", random_key)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def db_type(self, connection):
        if connection.vendor == "sqlite":
            return "integer"
        return super().db_type(connection)
