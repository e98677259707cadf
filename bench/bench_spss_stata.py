"""SPSS (.sav) and Stata (.dta) downloads of a survey with many submissions: seconds, peak memory.

    .venv/bin/python bench/bench_spss_stata.py      # or: make bench
    BENCH_SCALE=1000000 .venv/bin/python bench/bench_spss_stata.py

For each database (SQLite, and PostgreSQL when reachable; BENCH_DATABASES picks): one child
process stores BENCH_SCALE simulated submissions of a 10-question survey (not timed); then a
fresh child per format downloads ``responses.sav`` / ``responses.dta`` through the researcher
API and reads the file back with pyreadstat to count its rows. The files are written as the
rows come (``exports/sav.py``, ``exports/dta.py``), so the process should not grow with the
survey: the growth is the figure to watch (docs/researchers.md, "SPSS and Stata"; the export
jobs at two sizes: ``bench_export_jobs.py``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common
from bench_export import _peak_rss_mb, _rss_mb, child_populate


def child_download(survey_id, token, scale, extension):
    _common.django_setup(migrate=False)
    import tempfile

    from django.test import Client

    client = Client()
    auth = {"Authorization": f"Token {token}"}
    # Warm up as a server worker would be: views and NumPy imported (the writers need no
    # pandas; pyreadstat reads the file back only after the peak is taken).
    assert client.get(f"/api/v1/surveys/{survey_id}/estimates/", headers=auth).status_code == 200

    idle = _rss_mb()
    started = time.perf_counter()
    response = client.get(f"/api/v1/surveys/{survey_id}/responses.{extension}", headers=auth)
    assert response.status_code == 200, response.status_code
    with tempfile.NamedTemporaryFile(suffix=f".{extension}") as handle:
        size = 0
        for chunk in response.streaming_content:
            handle.write(chunk)
            size += len(chunk)
        handle.flush()
        elapsed = time.perf_counter() - started
        response.close()
        peak = _peak_rss_mb()  # before reading the file back
        import pyreadstat

        reader = pyreadstat.read_sav if extension == "sav" else pyreadstat.read_dta
        _meta = reader(handle.name, metadataonly=True)[1]
    assert _meta.number_rows == scale, (_meta.number_rows, scale)
    print(
        json.dumps(
            {
                "seconds": elapsed,
                "rows": _meta.number_rows,
                "megabytes": size / 2**20,
                "idle_rss_mb": idle,
                "peak_rss_mb": peak,
            }
        )
    )


def main():
    scale = _common.bench_scale()
    print(f"SPSS and Stata downloads, 10-question survey with {scale:,} stored submissions")
    print(f"Machine: {_common.machine()}")
    rows = []
    for engine in _common.engines():
        with _common.scratch_database(engine) as url:
            env = _common.production_env(url)
            made = _common.run_child(__file__, "--populate", str(scale), env=env)
            survey, token = str(made["survey"]), made["token"]
            for extension in ("sav", "dta"):
                result = _common.run_child(
                    __file__, "--download", survey, token, str(scale), extension, env=env
                )
                rows.append(
                    [
                        engine,
                        extension,
                        f"{result['seconds']:.1f}",
                        f"{result['rows'] / result['seconds']:,.0f}",
                        f"{result['megabytes']:.0f}",
                        f"{result['idle_rss_mb']:.0f}",
                        f"{result['peak_rss_mb']:.0f}",
                        f"{result['peak_rss_mb'] - result['idle_rss_mb']:.0f}",
                    ]
                )
    print()
    print(
        _common.table(
            [
                "database",
                "file",
                "seconds",
                "rows/s",
                "file MB",
                "RSS before MB",
                "peak RSS MB",
                "growth MB",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    command = sys.argv[1:2]
    if command == ["--populate"]:
        child_populate(int(sys.argv[2]))
    elif command == ["--download"]:
        child_download(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        main()
