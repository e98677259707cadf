"""Settings for the throughput benchmark only: the project's, plus the baseline view's URL."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
