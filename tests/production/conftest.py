"""Fixtures for the production checks on the live gunicorn of tests/live.py. (The helpers that
read and write its database are in tests/helpers.py; browser checks live in tests/e2e, next to
the one session-wide Chromium.)"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.live import ROOT


@pytest.fixture(scope="session")
def collected_static():
    """STATIC_ROOT with the hashed, compressed files (``make serve`` does the same), for a live
    server with production settings."""
    with tempfile.TemporaryDirectory(prefix="rrsurvey-static-") as static_root:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=ROOT,
            env={
                **os.environ,
                "DEBUG": "0",
                "SECRET_KEY": "collectstatic-only-" + "x" * 40,
                "STATIC_ROOT": static_root,
            },
            check=True,
            timeout=300,
        )
        assert (Path(static_root) / "staticfiles.json").exists()
        yield static_root
