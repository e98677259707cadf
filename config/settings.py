"""rrsurvey settings: one module, read from the environment (docs/deploying.md, "Configuration").

The helpers that read a variable (config/env.py) fail loudly on a value they cannot read, so
a typo in a deployment's environment stops start-up instead of silently falling back to a
default.
"""

import math
import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_email_url, env_epsilon, env_int, env_list, env_rate

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off. "
            "For local development run with DEBUG=1 (make run does this)."
        )
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "csp",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "surveys",
]

MIDDLEWARE = [
    # Outermost: nothing is logged while a respondent's request is handled (SQL at debug...).
    "surveys.middleware.RespondentRequestMiddleware",
    "surveys.middleware.PrivateCacheMiddleware",
    # Compresses last what every inner middleware answered, and only pages with no secret in
    # them (BREACH: surveys/middleware.py says why).
    "surveys.middleware.SecretFreePageGZipMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "surveys.api.limits.RequestBodyLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's, without reading a language from the path when no URL is language-prefixed.
    "surveys.middleware.UnprefixedLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Django's, its storage made only when a message is read or added.
    "surveys.middleware.LazyMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's, the site's policy built once instead of on every response.
    "surveys.middleware.SitePolicyCSPMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------
# SQLite by default. WAL lets readers work while one writer writes; IMMEDIATE transactions
# take the write lock at BEGIN so two writers queue on the busy timeout instead of failing
# with "database is locked" when one upgrades a read lock.
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if DATABASE_URL:
    try:
        DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
    except Exception as exc:  # dj-database-url raises several types for a bad URL
        raise ImproperlyConfigured(f"DATABASE_URL could not be parsed: {exc}") from None
else:
    DATABASES = {
        "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}
    }

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    DATABASES["default"]["CONN_MAX_AGE"] = 0
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, the health check made without a round trip for a connection in use
    # (config/postgresql/base.py says when it still sends one).
    DATABASES["default"]["ENGINE"] = "config.postgresql"
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (shared across worker processes) -----------------------------------------------
# With REDIS_URL the rate limits count in Redis (surveys/rate_limits.py); without it they
# count in a table of the database (models.RateCounter), not in this cache.
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "rrsurvey",
        }
    }
else:
    CACHES = {
        "default": {
            # Django's database cache, with an atomic incr (surveys/api/cache.py).
            "BACKEND": "surveys.api.cache.DatabaseCache",
            "LOCATION": "rrsurvey_cache",
        }
    }

# --- Auth -------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Django's username/password backend behind the sign-in failure limits (surveys/login_throttle.py).
AUTHENTICATION_BACKENDS = ["surveys.login_throttle.ThrottledModelBackend"]
# Failed sign-ins (page, admin, API token) per username and per client address in a fixed
# window; once spent, even the right password is refused until the window ends.
LOGIN_FAILURE_LIMIT = env_rate("LOGIN_FAILURE_LIMIT", "10/h")
LOGIN_CLIENT_FAILURE_LIMIT = env_rate("LOGIN_CLIENT_FAILURE_LIMIT", "50/h")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "surveys:dashboard"
LOGOUT_REDIRECT_URL = "login"
# Open sign-up: on by default only in development; a public server opts in.
SIGNUP_ENABLED = env_bool("SIGNUP_ENABLED", DEBUG)
# Sign-up attempts per client address (keyed-hash counters, as every throttle here).
SIGNUP_RATE_LIMIT = env_rate("SIGNUP_RATE_LIMIT", "5/h")
# What one account may hold; a clear message names the limit when it is reached.
MAX_SURVEYS_PER_USER = env_int("MAX_SURVEYS_PER_USER", 200, minimum=1)
MAX_QUESTIONS_PER_USER = env_int("MAX_QUESTIONS_PER_USER", 5000, minimum=1)
# --- Email (password reset) ---------------------------------------------------------------
# SMTP from EMAIL_URL; without it the console backend, which prints mail to the server's log.
# Password reset links are secrets, so without EMAIL_URL the reset pages exist only when DEBUG.
_EMAIL = env_email_url("EMAIL_URL")
if _EMAIL:
    globals().update(_EMAIL)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
# Mail can leave the server: password resets, address verification links, invitations by email.
MAIL_ENABLED = bool(_EMAIL) or DEBUG
PASSWORD_RESET_ENABLED = MAIL_ENABLED
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "rrsurvey@localhost").strip()
EMAIL_TIMEOUT = 10
# The site's address, that links in invitation emails start with when the worker sends them
# (docs/deploying.md, "Invitation emails"); `make run` serves on 127.0.0.1:8000 (PORT).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000" if DEBUG else "").strip()
if SITE_URL and not SITE_URL.startswith(("https://", "http://")):
    raise ImproperlyConfigured(f"SITE_URL must start with https:// or http://, got {SITE_URL!r}")
# How long the worker waits before trying a failed invitation email again.
MAIL_RETRY_SECONDS = 300
PASSWORD_RESET_TIMEOUT = 3 * 3600  # a reset link works for three hours
# Password reset requests per client (each may send an email).
PASSWORD_RESET_RATE_LIMIT = env_rate("PASSWORD_RESET_RATE_LIMIT", "5/h")
# Verification links an account may ask for (each sends an email).
EMAIL_VERIFICATION_RATE_LIMIT = env_rate("EMAIL_VERIFICATION_RATE_LIMIT", "5/h")
# Co-researcher invitations one account may send (page and API together): adding by email
# must not become a way to test addresses in bulk.
MEMBER_INVITE_RATE_LIMIT = env_rate("MEMBER_INVITE_RATE_LIMIT", "30/h")

# Days a deleted survey waits in its owner's trash before `manage.py purge_trash` removes it.
TRASH_DAYS = env_int("TRASH_DAYS", 30, minimum=1)

# --- Background jobs (surveys/exports/tasks.py; docs/deploying.md, "The worker") ---------
# django-tasks (Django's DEP 0014 tasks, built into Django 6.0 as django.tasks) with its
# database backend: tasks wait in a table of the same database until `manage.py db_worker`
# runs them, so no broker is needed. TASKS_BACKEND=immediate runs each task inside the request
# that enqueues it (no worker; a long export then holds a web worker: for trying things only).
_TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
}
_TASKS_BACKEND = os.environ.get("TASKS_BACKEND", "database").strip().lower()
if _TASKS_BACKEND not in _TASK_BACKENDS:
    raise ImproperlyConfigured(
        f"TASKS_BACKEND must be one of {', '.join(_TASK_BACKENDS)}, got {_TASKS_BACKEND!r}"
    )
TASKS = {"default": {"BACKEND": _TASK_BACKENDS[_TASKS_BACKEND], "QUEUES": ["default"]}}

# Raw exports (responses CSV, for R, ZIP, Excel) of a survey with at least this many responses
# are written by the worker as a job with a progress bar; smaller ones are built in the request.
EXPORT_JOB_THRESHOLD = env_int("EXPORT_JOB_THRESHOLD", 50_000)
# Seconds a direct (in-request) export may take to build before it is handed to the worker
# instead: below the web server's worker timeout, so a download is never cut off mid-file.
EXPORT_DIRECT_SECONDS = env_int("EXPORT_DIRECT_SECONDS", 10)
# Hours a finished export's file is kept for download before `manage.py purge_exports` (and
# the worker, before each export) deletes it.
EXPORT_RETENTION_HOURS = env_int("EXPORT_RETENTION_HOURS", 24, minimum=1)
# Where export files are written, under random names; only members download them, through
# the application (never serve this directory directly).
EXPORT_DIR = Path(os.environ.get("EXPORT_DIR") or BASE_DIR / "var" / "exports")
# Megabytes the export files may take together on disk: a job is refused (503, Retry-After)
# while the kept files fill it, and fails when its own file would pass it.
EXPORT_DISK_BUDGET_MB = env_int("EXPORT_DISK_BUDGET_MB", 10_240, minimum=1)

# API tokens (surveys/services/tokens.py): days until a new token expires, and how many one
# user holds.
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 30, minimum=1)
MAX_API_TOKENS_PER_USER = 20

# --- Internationalisation -------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ko", "한국어"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static files -----------------------------------------------------------------------
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where collectstatic writes the hashed, compressed files WhiteNoise serves in production.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# In development (and the test suite, which runs with DEBUG=1 in the environment) WhiteNoise
# serves straight from the source folders; production serves the collected, hashed files.
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_USE_FINDERS = DEBUG

# --- Privacy ----------------------------------------------------------------------------
# Ceiling on the privacy loss of one randomized answer, enforced by the services (so the
# builder, the API and the admin alike): ln 9 lets a report be at most 9 times as likely
# under one true answer as under the other.
MAX_EPSILON_PER_ANSWER = env_epsilon("MAX_EPSILON_PER_ANSWER", math.log(9))

# --- REST framework ---------------------------------------------------------------------
RESPONSE_RATE_LIMIT = env_rate("RESPONSE_RATE_LIMIT", "120/min")
# On PostgreSQL a submission is checked and stored by one statement (surveys/
# submission_statement.py); False stores it in an ORM transaction as on SQLite. Not read from
# the environment: the benchmark switches it per request to measure the ORM path beside it.
SUBMISSION_STATEMENT = True
# Token requests (password guesses) per client; not configurable from the environment.
TOKEN_RATE_LIMIT = "30/min"
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)
# Largest API request body (JSON only): 100 questions of 1000 characters fit with room to spare.
API_MAX_BODY_BYTES = 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "surveys.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["surveys.api.limits.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "NUM_PROXIES": TRUSTED_PROXIES,
    "EXCEPTION_HANDLER": "surveys.api.errors.api_exception_handler",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "rrsurvey API",
    "DESCRIPTION": "Randomized-response surveys with local differential privacy.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request and response bodies as separate components: read-only fields are not inputs.
    "COMPONENT_SPLIT_REQUEST": True,
    # No calls to the online spec validator: the docs make no third-party request.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # A survey's `role` for the caller (owner too) and a member's role (editor or viewer).
    "ENUM_NAME_OVERRIDES": {
        "SurveyRoleEnum": ["owner", "editor", "viewer"],
        "MemberRoleEnum": "surveys.models.SurveyMember.Role",
        # A question's type, as question objects, the public definition and estimate rows
        # spell it (yes_no, choice, numeric).
        "QuestionTypeEnum": "surveys.models.Question.Kind",
        "ExportJobStatusEnum": ["queued", "running", "done", "failed"],
        "SurveyStatusEnum": "surveys.models.Survey.Status",
        # Who carries out a yes/no design (a question's `procedure`); the public definition
        # and the practice rounds name only the respondent procedure.
        "ProcedureEnum": "surveys.models.Question.Procedure",
        "RespondentProcedureEnum": ["respondent"],
    },
}

# A respondent's submission is a few hundred bytes; anything near this is not a survey answer.
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024

# --- Security ---------------------------------------------------------------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
if SECURE_SSL_REDIRECT:
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
if TRUSTED_PROXIES:
    # Behind a TLS-terminating proxy the scheme arrives in a header the proxy sets.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Strict CSP: nothing inline, nothing third-party. Pages load their own module scripts and
# stylesheets; data reaches scripts through json_script blocks (not executed).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [NONE],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
    }
}
SESSION_COOKIE_HTTPONLY = True

# --- Logging ----------------------------------------------------------------------------
# Respondents' addresses and user agents are never logged: Django's loggers record method,
# path and status only (never REMOTE_ADDR), and gunicorn's access log is off or stripped of
# client details (deploy/gunicorn.conf.py). tests/production/test_privacy_of_logs.py checks
# this at LOG_LEVEL=DEBUG.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO" if DEBUG else "WARNING").strip().upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"LOG_LEVEL must be one of debug/info/warning/error/critical, got {LOG_LEVEL!r}"
    )
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # Respondents' requests (their page, their submission, the public results) are never
    # logged at any level: a timestamped line per submission would give arrival order.
    "filters": {"respondent_paths": {"()": "surveys.log_filters.DropRespondentPaths"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["respondent_paths"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Replaces Django's own "django" handlers (console when DEBUG, mail to ADMINS): every line
    # goes through the one handler above, at the one level.
    "loggers": {
        "django": {"level": LOG_LEVEL},
        # runserver's request lines (make run): through the same filtered handler.
        "django.server": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        # At DEBUG, Django's template engine logs every failed variable lookup with an
        # exception whose text is the whole page context: CSRF token, user, form data. Never
        # below INFO, whatever LOG_LEVEL says.
        "django.template": {"level": "INFO" if LOG_LEVEL == "DEBUG" else LOG_LEVEL},
    },
}
