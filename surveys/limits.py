"""Every bound on what a researcher may write, in one place.

The model fields and constraints, the services that validate writes, the page forms and the
API serializers all read these names, so a bound cannot disagree between layers (before this
module the database allowed a confidence level in (0, 1) while the services required
[0.5, 0.999999]). This module imports nothing from the app: ``models`` reads it at import time.

Site-wide quotas that an operator tunes per deployment (surveys and questions per account,
the ε ceiling per answer) stay in settings; this module names them so there is one place to
look.
"""

# --- texts (characters) -----------------------------------------------------------------
TITLE_MAX_LENGTH = 200
INTRO_MAX_LENGTH = 5000
CONSENT_MAX_LENGTH = 5000
QUESTION_TEXT_MAX_LENGTH = 1000
OPTION_LABEL_MAX_LENGTH = 200
# A language tag read from a request (?lang=, a cookie, Accept-Language): longer ones name
# no language the site speaks, and are not even looked up.
LANGUAGE_TAG_MAX_LENGTH = 32
# An email address (RFC 5321's limit on a path, as Django's EmailField has it).
EMAIL_MAX_LENGTH = 254
# The name invitation emails and slips give for the researcher (Survey.contact_name).
CONTACT_NAME_MAX_LENGTH = 120
# The longest IANA time zone name is 32 characters (America/Argentina/ComodRivadavia).
TIME_ZONE_MAX_LENGTH = 64

# --- how many --------------------------------------------------------------------------
MAX_QUESTIONS = 100
MAX_GROUPING_QUESTIONS = 10
MAX_OPTIONS = 12

# --- the design -------------------------------------------------------------------------
# Coins are probabilities a person types in; beyond three decimals the designs become so
# extreme that no survey could use them (and sample sizes overflow), so they are refused.
COIN_MIN = 0.001
COIN_MAX = 0.999

# --- question types (docs/statistics.md, "Question types") ------------------------------
# A multiple-choice question has 2..MAX_CHOICE_OPTIONS options (the results show one share
# and interval per option, so k stays small).
MIN_CHOICE_OPTIONS = 2
MAX_CHOICE_OPTIONS = 20
# A numeric question's range [min, max]: integers of at most NUMERIC_BOUND in size, and at
# most NUMERIC_RANGE_MAX apart (the noise scale (max - min) / ε grows with the range). The
# browser's memo does not grow with it: one secret per question (static/js/coins.js).
NUMERIC_BOUND = 1_000_000
NUMERIC_RANGE_MAX = 1000
# ε of a question that randomizes with ε directly (choice, numeric): at least this much, so
# that the noise cannot swamp every estimate; at most the site's MAX_EPSILON_PER_ANSWER.
QUESTION_EPSILON_MIN = 0.01
# A numeric report is the answer plus two-sided geometric noise: unbounded in principle; the
# reports accepted are dpengine.report_bounds (an honest report falls outside with
# probability below 1e-9), read by selectors.mechanisms.report_range and the PostgreSQL
# statement (services/submissions/postgres.py).
# A submission body carries spaces in ``padding`` so that every body of a survey has one
# length (surveys/selectors/submission_length.py). The widest body, every one of
# MAX_QUESTIONS and MAX_GROUPING_QUESTIONS skipped, needs under 4,000; this leaves room.
# A direct question's short text answer: at most this many bytes of UTF-8 (100 Korean
# syllables, 300 ASCII letters), sent padded to exactly this many bytes and base64url-encoded
# (services/answers.py), so every text answer has the same length on the wire.
DIRECT_TEXT_MAX_BYTES = 300
# Its length on the wire: base64url of DIRECT_TEXT_MAX_BYTES bytes (a multiple of 3: no "=").
DIRECT_TEXT_WIRE_LENGTH = DIRECT_TEXT_MAX_BYTES // 3 * 4
# Text questions per survey: each skipped one leaves its whole wire length to the padding.
MAX_TEXT_QUESTIONS = 5
# 12 KiB: room for MAX_TEXT_QUESTIONS skipped text answers (about 430 characters each) too.
SUBMISSION_PADDING_MAX_LENGTH = 12288

# --- analysis defaults ------------------------------------------------------------------
# A confidence level is in [CONFIDENCE_MIN, CONFIDENCE_MAX]: below one half an "interval"
# is more likely to miss than to cover, which no reader expects; above six nines the levels an
# analysis derives from it (a choice question's per-option level 1 - (1 - c) / k, a
# regression's per-coefficient level) round to 1 in floating point and no interval exists.
CONFIDENCE_MIN = 0.5
CONFIDENCE_MAX = 0.999999  # inclusive
CONFIDENCE_LEVELS = (0.80, 0.90, 0.95, 0.99)
MIN_N_MAX = 100_000
# A direct-questioning control group takes at most half the respondents (Survey.control_share):
# the randomized half is the study; the direct half only shows how much it reveals more.
CONTROL_SHARE_MAX = 0.5
# The planner: a margin (± percentage points), a difference to detect (percentage points).
PLANNER_MARGIN_MIN, PLANNER_MARGIN_MAX = 0.1, 50
PLANNER_DIFFERENCE_MIN, PLANNER_DIFFERENCE_MAX = 0.5, 90
# The builder's design preview: how many questions it may be asked to count (beyond any
# survey's MAX_QUESTIONS, so a researcher can see what a longer survey would cost).
PREVIEW_QUESTIONS_MAX = 1000
RESPONSE_TARGET_MAX = 10_000_000

# --- API tokens -------------------------------------------------------------------------
# A token's name (the model field's length); a key longer than any issued one is refused
# unread (keys are ``rrs_`` and 43 characters); the key's first characters shown in lists.
API_TOKEN_NAME_MAX_LENGTH = 100
API_TOKEN_KEY_MAX_LENGTH = 200
API_TOKEN_SHOWN_PREFIX_LENGTH = 12
# Signing in for a token: Django's username column, and a password past which the request is
# refused before hashing (how long the hash runs is not the caller's to choose).
USERNAME_MAX_LENGTH = 150
PASSWORD_MAX_LENGTH = 4096

# --- ids --------------------------------------------------------------------------------
# Ids are signed 64-bit in the database: a larger key can name no row, and PostgreSQL would
# refuse to even compare it (an error, not "no such question"), so it is refused earlier.
ID_MIN, ID_MAX = -(2**63), 2**63 - 1
# A grouping answer in a submission: an option id (ID_MAX has 19 digits) or "prefer_not_to_say".
GROUP_ANSWER_MAX_LENGTH = 20
# A submission's ``order``: one question id per question shown.
ORDER_MAX_LENGTH = MAX_QUESTIONS

# --- per-deployment quotas, read from settings (see config/settings.py) --------------------
# settings.MAX_SURVEYS_PER_USER, settings.MAX_QUESTIONS_PER_USER,
# settings.MAX_EPSILON_PER_ANSWER, settings.EXPORT_DISK_BUDGET_MB

# --- export jobs ------------------------------------------------------------------------
# Export jobs one user may have waiting or running for one survey (a viewer varying an
# option, e.g. ``confidence``, queued 41); beyond them a 429, to be retried after the seconds
# below (about what a job of a large survey takes).
EXPORT_JOBS_ACTIVE_MAX = 3
EXPORT_JOBS_RETRY_SECONDS = 30

# --- the public results page ------------------------------------------------------------
# The lifetime ε of the page, the days between releases and the number of releases T.
PUBLIC_EPSILON_MIN = 0.05
PUBLIC_EPSILON_MAX = 10.0
PUBLIC_RELEASE_DAYS_MIN, PUBLIC_RELEASE_DAYS_MAX = 1, 365
PUBLIC_RELEASES_MIN, PUBLIC_RELEASES_MAX = 1, 365

# --- invitations (docs/invitations.md) ----------------------------------------------------
# Invitations made in one request, and held by one survey.
INVITATIONS_PER_REQUEST = 1000
MAX_INVITATIONS_PER_SURVEY = 20_000
# An invitation code: 20 random bytes (160 bits), base32 without padding, 32 characters.
INVITATION_CODE_BYTES = 20
INVITATION_CODE_LENGTH = 32
# A typed code may hold spaces and dashes between groups; anything far longer is no code.
INVITATION_CODE_TEXT_MAX_LENGTH = 4 * INVITATION_CODE_LENGTH
# A token's prepared message (RFC 9474 §4.1): the 32-byte random prefix and a 32-byte random
# message, always this long, so every token adds the same bytes to a submission body.
TOKEN_PREPARED_MESSAGE_BYTES = 64
# Sends of one invitation email that fail before ``send_invitations`` stops retrying it.
MAIL_ATTEMPTS_MAX = 5

# Responses of a survey that takes invitations become visible in batches (services/batches.py):
# this many by default, at least RELEASE_BATCH_MIN once it has opened (a smaller batch is
# easier to link to the people who answered), at most RELEASE_BATCH_MAX. 1: no batches.
RELEASE_BATCH_INVITATION = 10
RELEASE_BATCH_MIN = 5
RELEASE_BATCH_MAX = 1000
