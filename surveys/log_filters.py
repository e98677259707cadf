"""Keep respondents' requests out of the logs (SPEC §2: no arrival order, no timing).

A log line carries a timestamp, so one line per submission, page view or public-results view
would give the order and time in which respondents answered, which the stored data no longer
holds. Both Django's handler (``config/settings.py``) and gunicorn's logger
(``deploy/gunicorn.conf.py``) use this module.
"""

import logging
import re

# The respondent page /s/<slug>/, the public results page /r/<slug>/, and the public API
# (definition and submissions) under /api/v1/public/.
RESPONDENT_PATH = re.compile(r"/(?:s|r)/[A-Za-z0-9_-]+/?\S*|/api/v[0-9]+/public/\S*")
REDACTED = "[a respondent's request]"


def mentions_respondent_path(text) -> bool:
    return bool(RESPONDENT_PATH.search(str(text)))


def redact_respondent_paths(text) -> str:
    return RESPONDENT_PATH.sub(REDACTED, str(text))


class DropRespondentPaths(logging.Filter):
    """Records that name a respondent's path: dropped below ERROR, otherwise redacted.

    Request lines, refused submissions and the like say nothing an operator needs; an error
    still reaches the log, without the path (a failed request stored nothing, so its time
    matches no stored row).
    """

    def filter(self, record):
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
