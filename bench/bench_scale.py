"""Every researcher page and API at a thousand vs BENCH_SCALE responses (issue 28).

    .venv/bin/python bench/bench_scale.py                       # 1,000 vs 100,000
    BENCH_SCALE=1000000 .venv/bin/python bench/bench_scale.py   # the documented figures

On PostgreSQL (BENCH_DATABASES=sqlite,postgresql for both), on a scratch database: a survey
shaped like the demo (``manage.py seed_demo``: four yes/no questions under the classic
design, one under Warner's, one multiple-choice and one numeric question) with TWO grouping
questions (department, 3 options; years with the company, 4 options), its responses drawn
from the demo's population and stored with ``services.simulated_submissions_record`` (the
grouping answers at random, a few "Prefer not to say"; received over the last 20 days), and
its public page on, releasing every 7 days. Beside it, the same questions and population with
ONE grouping question (department, 3 options; issue 34), the shape where the regression shows
each coefficient's exact interval: its regression page and API are measured too.

At each size a fresh child process (nothing loaded before) times each request through
Django's whole stack in-process (middleware, sign-in, view, template or JSON; the test
client, no network): one untimed warm-up, then the median of BENCH_REQUESTS (default 5). The
public page's warm-up makes the release due (a scan of the day counts, timed apart as
"release made": once per release period, not per view). The worker's peak memory is the
child's ``ru_maxrss`` after its requests, and what the requests added to what Django and the
app take once loaded. Loading is not timed. Targets (issue 28): ratio <= 2 and median <=
300 ms at 1,000,000.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common

SMALL = 1000
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "5"))
DAYS = 20  # responses are spread over the last DAYS days
YEARS = ("Under 1 year", "1 to 5 years", "5 to 10 years", "Over 10 years")


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _load(size):
    """Create the survey (first call) and grow it to ``size`` responses; its ids."""
    import numpy as np
    from django.utils import timezone

    from surveys import services
    from surveys.management.commands import seed_demo
    from surveys.models import Survey
    from surveys.services import grouping, public_release, tokens

    survey = Survey.objects.filter(title=seed_demo.DEMO_TITLE).first()
    today = timezone.now().date()
    if survey is None:
        from django.contrib.auth import get_user_model

        owner = get_user_model().objects.create_user("bench-scale", password="bench-scale-pw")
        survey = services.survey_create(
            owner=owner,
            title=seed_demo.DEMO_TITLE,
            questions=list(seed_demo.DEMO_QUESTIONS),
            min_n=30,
        )
        grouping.grouping_question_add(
            survey=survey,
            text=seed_demo.DEMO_GROUPING_QUESTION,
            options=[label for label, _n, _truths in seed_demo.DEMO_DEPARTMENTS],
        )
        grouping.grouping_question_add(
            survey=survey, text="How long have you worked here?", options=list(YEARS)
        )
        survey = services.survey_open(survey=survey)
        public_release.public_results_update(
            survey=survey,
            enabled=True,
            epsilon=1.0,
            release_days=7,
            releases=20,
            today=today - timedelta(days=DAYS),
        )
        survey.refresh_from_db()
    rng = np.random.default_rng(size)
    grouping_questions = list(survey.grouping_questions.prefetch_related("options"))
    have = survey.response_count
    started = time.perf_counter()
    for day in range(DAYS):
        n = (size - have) // (DAYS - day)
        if n <= 0:
            continue
        reports = services.simulated_reports_draw(
            survey=survey, shares=seed_demo.true_values(), n=n, rng=rng
        )
        options = np.column_stack(
            [rng.choice([o.pk for o in gq.options.all()], size=n) for gq in grouping_questions]
        )
        services.simulated_submissions_record(
            survey=survey,
            reports=reports,
            options=options.tolist(),
            received_on=today - timedelta(days=DAYS - day),
        )
        have += n
    print(f"loaded {size:,} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    key = tokens.token_issue(user=survey.owner, name=f"bench {size}").key
    return {"survey": survey.pk, "slug": survey.slug, "token": key}


def _load_single(size):
    """The survey with one grouping question (first call), grown to ``size`` responses."""
    import numpy as np
    from django.utils import timezone

    from surveys import services
    from surveys.management.commands import seed_demo
    from surveys.models import Survey
    from surveys.services import grouping

    title = f"{seed_demo.DEMO_TITLE} (one grouping question)"
    survey = Survey.objects.filter(title=title).first()
    if survey is None:
        survey = services.survey_create(
            owner=Survey.objects.get(title=seed_demo.DEMO_TITLE).owner,
            title=title,
            questions=list(seed_demo.DEMO_QUESTIONS),
            min_n=30,
        )
        grouping.grouping_question_add(
            survey=survey,
            text=seed_demo.DEMO_GROUPING_QUESTION,
            options=[label for label, _n, _truths in seed_demo.DEMO_DEPARTMENTS],
        )
        survey = services.survey_open(survey=survey)
    rng = np.random.default_rng(size + 1)
    options = [o.pk for o in survey.grouping_questions.get().options.all()]
    have, today = survey.response_count, timezone.now().date()
    for day in range(DAYS):
        n = (size - have) // (DAYS - day)
        if n <= 0:
            continue
        services.simulated_submissions_record(
            survey=survey,
            reports=services.simulated_reports_draw(
                survey=survey, shares=seed_demo.true_values(), n=n, rng=rng
            ),
            options=rng.choice(options, size=(n, 1)).tolist(),
            received_on=today - timedelta(days=DAYS - day),
        )
        have += n
    return survey.pk


def _targets(survey_id, slug, token, single):
    api = {"HTTP_AUTHORIZATION": f"Token {token}"}
    return {
        "results page": (f"/surveys/{survey_id}/results/", {}),
        "estimates API (JSON)": (f"/api/v1/surveys/{survey_id}/estimates/", api),
        "estimates API (CSV)": (f"/api/v1/surveys/{survey_id}/estimates.csv", api),
        "breakdown page": (f"/surveys/{survey_id}/breakdown/", {}),
        "regression page": (f"/surveys/{survey_id}/regression/", {}),
        "regression API": (f"/api/v1/surveys/{survey_id}/regression/", api),
        "planner page": (f"/surveys/{survey_id}/planner/", {}),
        "public results page": (f"/r/{slug}/", {}),
        "regression page, one grouping question": (f"/surveys/{single}/regression/", {}),
        "regression API, one grouping question": (f"/api/v1/surveys/{single}/regression/", api),
    }


def _measure(survey, slug, token, single):
    from django.test import Client

    from surveys.models import PublicRelease, Survey
    from surveys.services import public_release

    survey_id, survey = survey, Survey.objects.get(pk=survey)
    pages = Client()
    pages.force_login(survey.owner)
    # The releases are remade at each size, from the day counts stored now.
    PublicRelease.objects.filter(survey=survey).delete()
    started = time.perf_counter()
    public_release.make_due_releases(survey=survey)
    results = {"release made": {"median": (time.perf_counter() - started) * 1000}}
    loaded = _rss_mib()
    for name, (path, headers) in _targets(survey_id, slug, token, single).items():
        client = pages if not headers else Client()
        response = client.get(path, **headers)
        assert response.status_code == 200, (path, response.status_code)
        samples = []
        for _ in range(REQUESTS):
            start = time.perf_counter()
            response = client.get(path, **headers)
            if response.streaming:
                b"".join(response.streaming_content)
            samples.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        results[name] = {"median": statistics.median(samples)}
    results["memory"] = {"loaded": loaded, "peak": _rss_mib()}
    return results


def child(step, size, ids):
    _common.django_setup(migrate=step == "load-first")
    if step.startswith("load"):
        print(json.dumps({**_load(size), "single": _load_single(size)}))
    else:
        print(json.dumps(_measure(**json.loads(ids))))


def main():
    scale = _common.bench_scale()
    os.environ.setdefault("BENCH_DATABASES", "postgresql")
    print(f"Researcher pages and APIs, demo-shaped survey, {SMALL:,} vs {scale:,} responses")
    print(f"Machine: {_common.machine()}; median of {REQUESTS} requests after one warm-up")
    rows, memory = [], []
    with _common.collected_static() as static_root:
        for engine in _common.engines():
            with _common.scratch_database(engine) as url:
                env = _common.production_env(url, STATIC_ROOT=static_root)
                measured = {}
                for size in (SMALL, scale):
                    step = "load-first" if size == SMALL else "load"
                    ids = _common.run_child(__file__, "--child", step, str(size), "", env=env)
                    measured[size] = _common.run_child(
                        __file__, "--child", "measure", str(size), json.dumps(ids), env=env
                    )
            for name in measured[SMALL]:
                if name == "memory":
                    continue
                small, large = measured[SMALL][name]["median"], measured[scale][name]["median"]
                rows.append([engine, name, f"{small:.1f}", f"{large:.1f}", f"{large / small:.2f}"])
            for size in (SMALL, scale):
                peak = measured[size]["memory"]
                memory.append(
                    [
                        engine,
                        f"{size:,}",
                        f"{peak['peak']:.0f}",
                        f"{peak['peak'] - peak['loaded']:.0f}",
                    ]
                )
    print()
    print(
        _common.table(
            ["database", "request", f"median ms @ {SMALL:,}", f"median ms @ {scale:,}", "ratio"],
            rows,
        )
    )
    print()
    print(
        _common.table(
            ["database", "responses", "worker peak MiB", "MiB added by the requests"], memory
        )
    )
    print(f"\nTargets: ratio <= 2 and median <= 300 ms at 1,000,000 (here {scale:,}).")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        main()
