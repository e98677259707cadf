"""Estimates of a survey of 10 numeric questions at a thousand vs BENCH_SCALE responses.

    .venv/bin/python bench/bench_numeric_estimates.py
    BENCH_SCALE=1000000 BENCH_DATABASES=postgresql .venv/bin/python bench/bench_numeric_estimates.py

A numeric question's share above a threshold and manipulation check are read from the
histogram of its reports kept at write time (``models.NumericTally``), whose size is bounded by
the accepted reports, not by the number of responses. For each database (SQLite, and PostgreSQL
when reachable) one child process creates a survey of 10 randomized numeric questions (ranges
0-10 to 0-100, ε = 1), stores 1,000 simulated respondents with
``services.simulated_submissions_record`` (which keeps the histograms as the submission path
does), times the estimates API (JSON) and the results page through Django's whole stack
in-process, grows the same survey to BENCH_SCALE responses (default 100,000; setup not timed)
and times them again. For comparison it also times, at both sizes, what those reads cost before
the histograms: every stored report of the 10 questions, one JSON value per submission.
Target: ratio (large / 1k) <= 2 for the estimates API and the results page.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common

SMALL = 1000
QUESTIONS = 10
WARMUP = 5
REQUESTS = 40
RAW_REPEATS = 3


def _median_ms(call, *, warmup, repeats):
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _make_survey():
    from django.contrib.auth import get_user_model

    from surveys import services
    from surveys.services import tokens

    owner = get_user_model().objects.create_user("bench-numeric")
    survey = services.survey_create(
        owner=owner,
        title="Ten numeric questions",
        questions=[
            {
                "text": f"How many {i}?",
                "type": "numeric",
                "min": 0,
                "max": 10 * (i + 1),
                "epsilon": 1.0,
            }
            for i in range(QUESTIONS)
        ],
    )
    survey = services.survey_open(survey=survey)
    return survey, owner, tokens.token_issue(user=owner, name="benchmark").key


def _grow(survey, *, total, seed):
    """Add simulated respondents until ``survey`` has ``total``, in chunks."""
    import numpy as np

    from surveys import services
    from surveys.models import Submission

    rng = np.random.default_rng(seed)
    means = [5 * (i + 1) for i in range(QUESTIONS)]  # the middle of each range
    have = Submission.objects.filter(survey=survey).count()
    while have < total:
        n = min(100_000, total - have)
        reports = services.simulated_reports_draw(survey=survey, shares=means, n=n, rng=rng)
        have += services.simulated_submissions_record(survey=survey, reports=reports)


def _raw_reports_read(survey):
    """What the estimates read before the histograms: every stored report of each question."""
    from surveys.models import Submission, question_key

    for question_id in survey.questions.values_list("id", flat=True):
        key = question_key(question_id)
        list(
            Submission.objects.filter(survey=survey, reports__has_key=key).values_list(
                f"reports__{key}", flat=True
            )
        )


def child(scale):
    _common.django_setup()
    from django.db import connection
    from django.test import Client

    from surveys.models import NumericTally

    survey, owner, token = _make_survey()
    api = Client()
    pages = Client()
    pages.force_login(owner)
    targets = {
        "estimates API (JSON)": (
            api,
            f"/api/v1/surveys/{survey.pk}/estimates/",
            {"Authorization": f"Token {token}"},
        ),
        "results page (HTML)": (pages, f"/surveys/{survey.pk}/results/", {}),
    }
    results = {}
    for size in (SMALL, scale):
        started = time.perf_counter()
        _grow(survey, total=size, seed=size)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(f"stored {size:,} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        for name, (client, path, headers) in targets.items():

            def get(client=client, path=path, headers=headers):
                response = client.get(path, headers=headers)
                assert response.status_code == 200, response.status_code

            results.setdefault(name, {})[size] = _median_ms(get, warmup=WARMUP, repeats=REQUESTS)
        results.setdefault("every raw report (before the histograms)", {})[size] = _median_ms(
            lambda: _raw_reports_read(survey), warmup=1, repeats=RAW_REPEATS
        )
        results.setdefault("histogram rows (10 questions)", {})[size] = NumericTally.objects.filter(
            question__survey=survey
        ).count()
    print(json.dumps(results))


def main():
    scale = _common.bench_scale()
    print(f"Estimates of {QUESTIONS} numeric questions, {SMALL:,} vs {scale:,} stored responses")
    print(f"Machine: {_common.machine()}; median of {REQUESTS} requests after {WARMUP} warm-up")
    rows = []
    for engine, measured in _common.measured_on_each_database(__file__, "--child", str(scale)):
        for name, by_size in measured.items():
            small, large = by_size[str(SMALL)], by_size[str(scale)]
            unit = "" if name.startswith("histogram rows") else " ms"
            rows.append(
                [
                    engine,
                    name,
                    f"{small:,.1f}{unit}" if unit else f"{small:,}",
                    f"{large:,.1f}{unit}" if unit else f"{large:,}",
                    f"{large / small:.2f}",
                ]
            )
    print()
    print(
        _common.table(
            ["database", "read", f"@ {SMALL:,}", f"@ {scale:,}", "ratio (large / 1k)"], rows
        )
    )
    print("\nTarget: ratio <= 2 for the estimates API and the results page.")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]))
    else:
        main()
