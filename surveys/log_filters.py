"""Keep respondents' requests out of the logs (SPEC §2: no arrival order, no timing).

A log line carries a timestamp, so one line per submission, page view or public-results view
would give the order and time in which respondents answered, which the stored data no longer
holds. So would a line per file the respondent page loads (its stylesheets, scripts and
JavaScript catalog), or any line written while such a request is handled (with ``DEBUG`` on,
Django logs every SQL query at debug level: the survey's slug, a submission's values). Both
Django's handler (``config/settings.py``) and gunicorn's logger (``deploy/gunicorn.conf.py``)
use this module.
"""

import contextvars
import logging
import re

# The respondent page /s/<slug>/, the public results page /r/<slug>/, the public API
# (definition and submissions) under /api/v1/public/, and the files a respondent's page loads:
# static files and the JavaScript catalog. Those are shared with researchers' pages, whose
# files go unlogged too (a file's request cannot tell who asked). Only where a path begins, so
# a file system path that holds a "static" folder is not mistaken for one.
RESPONDENT_PATH = re.compile(
    r"/(?:s|r)/[A-Za-z0-9_-]+/?\S*|/api/v[0-9]+/public/\S*"
    r"|(?<![\w.~-])/(?:static|jsi18n)/\S*"
)
# True while a request to one of those paths is handled (RespondentRequestMiddleware).
_IN_RESPONDENT_REQUEST = contextvars.ContextVar("in_respondent_request", default=False)
REDACTED = "[a respondent's request]"


def mentions_respondent_path(text) -> bool:
    return bool(RESPONDENT_PATH.search(str(text)))


def redact_respondent_paths(text) -> str:
    return RESPONDENT_PATH.sub(REDACTED, str(text))


def respondent_request_started(path):
    """Mark the request being handled as a respondent's when ``path`` is one of theirs; the
    token to pass to ``respondent_request_ended``."""
    return _IN_RESPONDENT_REQUEST.set(mentions_respondent_path(path))


def respondent_request_ended(token):
    _IN_RESPONDENT_REQUEST.reset(token)


class DropRespondentPaths(logging.Filter):
    """Records that name a respondent's path, or are written while a respondent's request is
    handled: dropped below ERROR, otherwise redacted.

    Request lines, refused submissions, SQL queries and the like say nothing an operator
    needs; an error still reaches the log, without the path (a failed request stored nothing,
    so its time matches no stored row).
    """

    def filter(self, record):
        if _IN_RESPONDENT_REQUEST.get() and record.levelno < logging.ERROR:
            return False
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: judge its template and arguments as given
            message = f"{record.msg} {record.args}"
        if not mentions_respondent_path(message):
            return True
        if record.levelno < logging.ERROR:
            return False
        record.msg, record.args = redact_respondent_paths(message), ()
        return True
