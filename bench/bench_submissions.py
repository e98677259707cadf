"""Submission throughput of the public endpoint against a bare Django app, with wrk as the client.

    .venv/bin/python bench/bench_submissions.py     # or: make bench
    BENCH_SECONDS=6 BENCH_ROUNDS=5 BENCH_CONNECTIONS=8 .venv/bin/python bench/bench_submissions.py

The client is wrk (Debian's package, C: one thread, BENCH_CONNECTIONS connections, default 8),
driven by ``bench/submissions.lua``: every request a fresh ``submission_id`` in the body a
respondent's browser sends (answers, groups, design fingerprint, padding to the survey's
``submission_length``; a token on the invitation survey). A Python client on the same two
cores as the server sets the pace itself and pulls every ratio toward 1; wrk does not, and
the bench checks it: each round also drives a static WSGI app (``bench/static_wsgi.py``, no
Django, no database) served the same way, and the bare app must stay well below what wrk
reached there.

Three gunicorns (the production configuration ``deploy/gunicorn.conf.py``, DEBUG off, no rate
limit, WEB_CONCURRENCY sync workers, default 2), on PostgreSQL (and on SQLite when
BENCH_DATABASES names it):

- the project (``bench.settings``): ``POST /api/v1/public/surveys/<slug>/responses/`` for
  each kind of submission:
  - plain: 10 yes/no questions;
  - grouped: the same plus one grouping question of three options, each body naming one;
  - typed: 8 yes/no questions, one multiple-choice question of four options and one numeric
    question (0-30);
  - spread: plain bodies cycling over 8 surveys; "8 surveys vs 1" is spread / plain;
  - first response: each request the first response to a survey opened and never answered
    (BENCH_FIRST_RESPONSES of them per round, default 300);
  - invitation: a 10-question invitation survey, each body with a token signed beforehand
    with the survey's key, verified and spent by the request (BENCH_TOKENS per round,
    default 1500); its submissions are held for batches of ``release_batch`` (10), every
    tenth releasing one (services/batches.py);
  - invitation, not batched: the same with ``release_batch`` set to 1 in the database (no
    survey that opens may have it: a diagnostic row, the token's cost without the batches');
- the bare app (``bench.bare_settings``: no middleware, one URL) doing one INSERT of the plain
  body: the floor the ratios are taken against;
- the static WSGI app: the client check.

Each round drives, for every kind, the bare app then that kind, BENCH_SECONDS each (default 5;
the two "once" kinds stop when their requests are used up), after a warm-up of each. A rate is
the successful responses over the time from the first request to the last response (the
script's own clock). Ratios are taken within each round against the bare run just before, and
summarised by the median and range over BENCH_ROUNDS rounds (default 5). Each row also shows
the CPU milliseconds per request of the server's gunicorn workers and of its PostgreSQL
backends (``cpu_used``: read from /proc in nanoseconds before each run and, once the server
has served what wrk left in flight, after it; those processes only, over the requests wrk
wrote): a rate depends on how busy the machine is, CPU per request much less, so two
versions measured at different loads compare there. "invitation vs plain" is the invitation
kind's rate over the plain kind's in the same round, the same way. Targets (PostgreSQL): every
kind >= 0.6 x the bare app; 8 surveys vs 1 >= 0.9; invitation vs plain >= 0.8 (issue 32).
BENCH_KINDS (comma-separated: plain, grouped, typed, spread, first, invitation, unbatched,
limited, limited-redis) runs some kinds only; plain is always run.

Two diagnostic kinds measure the submission rate limit (``RESPONSE_RATE_LIMIT``), which the
other kinds leave off: ``limited`` drives plain bodies at a fourth gunicorn, configured as the
project's but with the limit on and set so high (BENCH_LIMIT_RATE, default 1000000000/min)
that nothing is refused, so every request counts a hit in the shared counter as production
does; ``limited-redis`` the same with REDIS_URL set (BENCH_REDIS_URL, default
redis://127.0.0.1:6379/0; skipped when Redis does not answer), its "db" CPU then PostgreSQL's
backends plus the Redis server's. These servers are started only when their kind is chosen.
wrk sends from one address, so every request counts against one counter: the hottest case,
and also what a classroom or a workplace behind one NAT address looks like.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common
from _pyclient import server

from tests.live import free_port

SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "8"))
WORKERS = int(os.environ.get("WEB_CONCURRENCY", "2"))
WARMUP_SECONDS = 2.0
FIRST_PER_ROUND = int(os.environ.get("BENCH_FIRST_RESPONSES", "300"))
TOKENS_PER_ROUND = int(os.environ.get("BENCH_TOKENS", "1500"))
LUA = Path(__file__).resolve().parent / "submissions.lua"
ID = "00000000-0000-4000-8000-000000000000"  # replaced in each request by the Lua script
VARIANTS = 512  # bodies per cycling kind (answers drawn anew for each)

PLAIN = "plain (10 yes/no)"
GROUPED = "grouped (+ 1 grouping answer of 3 options)"
TYPED = "typed (choice + numeric)"
SPREAD = "spread over 8 surveys"
FIRST = "first response of a survey"
INVITATION = "invitation (token verified and spent)"
UNBATCHED = "invitation, not batched (diagnostic)"
LIMITED = "plain, rate limit counted (diagnostic)"
LIMITED_REDIS = "plain, rate limit counted in Redis (diagnostic)"
LIMIT_RATE = os.environ.get("BENCH_LIMIT_RATE", "1000000000/min")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
BARE = "bare app (no middleware, one INSERT)"
STATIC = "static WSGI (wrk's reach)"

SETUP = """
import json
import secrets
from django.conf import settings
from django.contrib.auth import get_user_model
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
import blindrsa
from surveys import services
from surveys.api.serializers.public import PublicSurveySerializer
from surveys.models import SurveyTokenKey
from surveys.services import grouping
owner = get_user_model().objects.create_user("bench-owner")
public = PublicSurveySerializer()
def made(survey, groups=None):
    questions = list(survey.questions.order_by("id"))
    return {"id": survey.pk, "slug": survey.slug, "groups": groups or {},
            "questions": [[q.pk, q.kind, len(q.options or [])] for q in questions],
            "fingerprint": public.get_design_fingerprint(survey),
            "length": public.get_submission_length(survey)}
def new(title, questions, **kwargs):
    return services.survey_create(owner=owner, title=title, questions=questions, **kwargs)
ten = [f"Question {i}?" for i in range(10)]
out = {"plain": [made(services.survey_open(survey=new(f"Plain {n}", ten))) for n in range(8)]}
survey = new("Grouped", ten)
gq = grouping.grouping_question_add(survey=survey, text="Age?", options=["18-39", "40-64", "65+"])
groups = {gq.pk: list(gq.options.values_list("id", flat=True))}
out["grouped"] = made(services.survey_open(survey=survey), groups)
typed = ten[:8] + [{"text": "Which?", "type": "choice", "options": ["a", "b", "c", "d"]},
                   {"text": "How many?", "type": "numeric", "min": 0, "max": 30}]
out["typed"] = made(services.survey_open(survey=new("Typed", typed)))
out["fresh"] = [made(services.survey_open(survey=new(f"Fresh {n}", ten))) for n in range(%(fresh)d)]
pss = padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48)
def signed(closed, count):
    stored = SurveyTokenKey.objects.get(survey=closed)
    key = blindrsa.private_key_decrypt(
        stored.sealed_private_key, secret=settings.SECRET_KEY, context=str(closed.pk)
    )
    tokens = []
    for _ in range(count):
        prepared = blindrsa.prepare(message=secrets.token_bytes(32))
        signature = key.sign(prepared, pss, hashes.SHA384())
        tokens.append({"message": blindrsa.b64url_encode(prepared),
                       "signature": blindrsa.b64url_encode(signature)})
    return tokens
for name, count in (("invitation", %(tokens)d), ("unbatched", %(unbatched)d)):
    closed = services.survey_open(survey=new(name, ten, access="invitation"))
    if name == "unbatched":
        # No survey may open with batches of 1 (limits.RELEASE_BATCH_MIN): set in the
        # database, for the diagnostic row only.
        type(closed).objects.filter(pk=closed.pk).update(release_batch=1)
    out[name] = made(closed)
    out[name + "_tokens"] = signed(closed, count)
print("SETUP" + json.dumps(out))
"""

BARE_SETUP = """
import json
from django.contrib.auth import get_user_model
from surveys import services
owner = get_user_model().objects.create_user("bench-owner")
survey = services.survey_create(owner=owner, title="Bare", questions=["Question?"])
print("SETUP" + json.dumps({"id": survey.pk}))
"""


LIMITED_SETUP = """
import json
from django.contrib.auth import get_user_model
from surveys import services
from surveys.api.serializers.public import PublicSurveySerializer
owner = get_user_model().objects.create_user("bench-owner")
ten = [f"Question {i}?" for i in range(10)]
survey = services.survey_open(
    survey=services.survey_create(owner=owner, title="Limited", questions=ten)
)
public = PublicSurveySerializer()
print("SETUP" + json.dumps({
    "id": survey.pk, "slug": survey.slug, "groups": {},
    "questions": [[q.pk, q.kind, len(q.options or [])] for q in survey.questions.order_by("id")],
    "fingerprint": public.get_design_fingerprint(survey),
    "length": public.get_submission_length(survey),
}))
"""


def redis_answers():
    """Whether Redis answers at BENCH_REDIS_URL (the ``limited-redis`` kind needs it)."""
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


def _redis_server_pid(url):
    """The pid of the Redis server at ``url`` (it runs on this machine: loopback)."""
    import redis

    return int(redis.Redis.from_url(url).info("server")["process_id"])


def limited_servers(stack, chosen):
    """{kind: (server, its plain survey)} for the chosen rate-limit kinds: each a gunicorn
    configured as the project's, on a database of its own, the limit on but never reached."""
    started = {}
    for name, extra in ((LIMITED, {}), (LIMITED_REDIS, {"REDIS_URL": REDIS_URL})):
        if name not in chosen:
            continue
        served = stack.enter_context(
            server(
                settings_module="bench.settings",
                extra_env={"RESPONSE_RATE_LIMIT": LIMIT_RATE, **extra},
            )
        )
        output = served.manage("shell", "-c", LIMITED_SETUP)
        started[name] = (served, json.loads(output.split("SETUP", 1)[1].strip().splitlines()[0]))
    return started


def body_line(target, n, *, path=None, token=None):
    """One line of a wrk body file: ``path<TAB>body``, the body as the respondent page makes
    it (payload.js, body.js) for the ``n``-th respondent, its id the placeholder ``ID``."""
    answers = {}
    for i, (qid, kind, options) in enumerate(target["questions"]):
        if kind == "choice":
            answers[str(qid)] = n % options
        elif kind == "numeric":
            answers[str(qid)] = n % 31 - 5  # a noisy number near the range 0-30
        else:
            answers[str(qid)] = (n >> i) & 1 == 1
    payload = {"submission_id": ID, "answers": answers, "design_fingerprint": target["fingerprint"]}
    if target["groups"]:
        payload["groups"] = {
            str(gid): options[n % len(options)] for gid, options in target["groups"].items()
        }
    if token is not None:
        payload["token"] = token
    missing = target["length"] - len(json.dumps({**payload, "padding": ""}, separators=(",", ":")))
    body = json.dumps({**payload, "padding": " " * max(missing, 0)}, separators=(",", ":"))
    path = path or f"/api/v1/public/surveys/{target['slug']}/responses/"
    return f"{path}\t{body}"


def write_lines(directory, name, lines):
    path = Path(directory) / f"{name}.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid):
    """CPU seconds (user + system) process ``pid`` has used; 0 once it is gone.

    Read from the scheduler's nanosecond count of time on a CPU (``/proc/<pid>/task/*/
    schedstat``, every thread of it), not ``/proc/<pid>/stat``'s clock ticks: a tick is 10 ms,
    so a run of 50 requests read in ticks was off by up to 0.4 ms per request for two workers,
    as much as the differences the bench is run to see. Ticks only where the kernel keeps no
    schedstat."""
    try:
        return (
            sum(
                int(Path(task, "schedstat").read_text().split()[0])
                for task in Path(f"/proc/{pid}/task").iterdir()
            )
            / 1e9
        )
    except (OSError, IndexError, ValueError):
        pass
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _children(pid):
    try:
        return [
            int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        ]
    except OSError:
        return []


def _server_pids(served):
    """The gunicorn workers of ``served`` (tests.live's handle) and the PostgreSQL backends
    connected to its database: the processes that serve its requests, and only those (other
    work on the machine is not counted)."""
    app = _children(served.process.pid)
    database = served.env.get("DATABASE_URL", "")
    if not database.startswith("postgres"):
        return app, []
    name = urlsplit(database).path.lstrip("/")
    # The counters of the limited-redis kind live in the Redis server: its work is the db's.
    cache = [_redis_server_pid(served.env["REDIS_URL"])] if served.env.get("REDIS_URL") else []
    with psycopg.connect(_common.POSTGRES_URL, autocommit=True) as conn:
        db = [
            pid
            for (pid,) in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                [name],
            )
        ]
    return app, db + cache


def cpu_used(served):
    """{"app": CPU seconds of the server's workers, "db": of its PostgreSQL backends, by pid}
    (``_server_pids``), to take a run's CPU per request from two readings."""
    app, db = _server_pids(served)
    return {"app": {pid: _cpu_of(pid) for pid in app}, "db": {pid: _cpu_of(pid) for pid in db}}


def cpu_per_request(before, after, requests):
    """Milliseconds of CPU per request by part from two ``cpu_used`` readings: what each
    process read after used since it was read before (from 0 if it began meanwhile: a worker's
    new connection). CPU time does not depend on how busy the machine is the way a rate does,
    so it compares two versions run at different loads."""
    return {
        part: 1000
        * sum(used - before[part].get(pid, 0.0) for pid, used in after[part].items())
        / max(requests, 1)
        for part in ("app", "db")
    }


def wrk(url, lines_file, *, mode, first, count, seconds, served=None):
    """Run wrk once; its result line (``submissions.lua``'s ``done``) as a dict, plus rate,
    and (``served``: the server's handle) the CPU milliseconds per successful request of its
    workers and its PostgreSQL backends (``cpu``)."""
    command = [
        shutil.which("wrk") or "wrk",
        "-t1",
        f"-c{CONNECTIONS}",
        f"-d{seconds:g}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        url,
        "--",
        str(lines_file),
        mode,
        str(first),
        str(count),
    ]
    before = cpu_used(served) if served else None
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
    after = _cpu_settled(served) if served else None
    line = next(x for x in output.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line.removeprefix("RESULT "))
    result["rate"] = result["ok"] / result["seconds"] if result["seconds"] else 0.0
    # Per request wrk wrote (``sent``), not per response it counted: the requests in flight
    # when it stopped were served all the same, in the CPU read (up to CONNECTIONS - 1 of
    # them: 14 % of a "once" round of 50, which charged its kind 14 % more per request).
    result["cpu"] = (
        cpu_per_request(before, after, max(result["sent"], result["ok"])) if served else None
    )
    return result


def _cpu_settled(served, *, pause=0.2, patience=10.0):
    """``cpu_used(served)`` once its workers have stopped using CPU (two readings ``pause``
    apart alike): the requests wrk left in flight served, or ``patience`` seconds gone. The
    workers only: a Redis server (the limited-redis kind) keeps its own timers running."""
    deadline = time.monotonic() + patience
    reading = cpu_used(served)
    while time.monotonic() < deadline:
        time.sleep(pause)  # waiting for the server to finish, not timing a behaviour
        again = cpu_used(served)
        if again["app"] == reading["app"]:
            return again
        reading = again
    return reading


@contextlib.contextmanager
def static_server():
    """The static WSGI app under gunicorn, configured as the others."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"}
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "deploy/gunicorn.conf.py",
        "bench.static_wsgi:application",
        "--workers",
        str(WORKERS),
        "--bind",
        f"127.0.0.1:{port}",
        "--access-logfile",
        "/dev/null",
        "--max-requests",
        "0",
    ]
    process = subprocess.Popen(command, cwd=_common.ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("POST", "/", b"{}")
                conn.getresponse().read()
                conn.close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the static WSGI server did not start") from None
                time.sleep(0.1)  # polling for readiness, not timing a behaviour
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def measure(engine, workdir):
    if engine == "postgresql":
        os.environ["DATABASE_URL"] = _common.POSTGRES_URL
    else:
        os.environ.pop("DATABASE_URL", None)
    chosen = _kinds_chosen()
    fresh_count = FIRST_PER_ROUND * (ROUNDS + 1) if FIRST in chosen else 0  # and the warm-up
    token_count = TOKENS_PER_ROUND * (ROUNDS + 1) if INVITATION in chosen else 0
    unbatched_count = TOKENS_PER_ROUND * (ROUNDS + 1) if UNBATCHED in chosen else 0
    with (
        server(settings_module="bench.settings") as project,
        server(settings_module="bench.bare_settings") as bare,
        static_server() as static_url,
        contextlib.ExitStack() as stack,
    ):
        limited = limited_servers(stack, chosen)
        output = project.manage(
            "shell",
            "-c",
            SETUP % {"fresh": fresh_count, "tokens": token_count, "unbatched": unbatched_count},
        )
        setup = json.loads(output.split("SETUP", 1)[1].strip().splitlines()[0])
        bare_id = json.loads(
            bare.manage("shell", "-c", BARE_SETUP).split("SETUP", 1)[1].strip().splitlines()[0]
        )["id"]
        plain = setup["plain"]
        files = {
            PLAIN: write_lines(workdir, "plain", [body_line(plain[0], n) for n in range(VARIANTS)]),
            GROUPED: write_lines(
                workdir, "grouped", [body_line(setup["grouped"], n) for n in range(VARIANTS)]
            ),
            TYPED: write_lines(
                workdir, "typed", [body_line(setup["typed"], n) for n in range(VARIANTS)]
            ),
            SPREAD: write_lines(
                workdir, "spread", [body_line(plain[n % 8], n) for n in range(VARIANTS)]
            ),
            FIRST: write_lines(
                workdir, "first", [body_line(t, n) for n, t in enumerate(setup["fresh"])]
            ),
            INVITATION: write_lines(
                workdir,
                "invitation",
                [
                    body_line(setup["invitation"], n, token=token)
                    for n, token in enumerate(setup["invitation_tokens"])
                ],
            ),
            UNBATCHED: write_lines(
                workdir,
                "unbatched",
                [
                    body_line(setup["unbatched"], n, token=token)
                    for n, token in enumerate(setup["unbatched_tokens"])
                ],
            ),
            BARE: write_lines(
                workdir,
                "bare",
                [
                    body_line(plain[0], n, path=f"/bench/bare-insert/{bare_id}/")
                    for n in range(VARIANTS)
                ],
            ),
        }
        files[STATIC] = files[BARE]
        for name, (_served, target) in limited.items():
            files[name] = write_lines(
                workdir, f"limited-{len(files)}", [body_line(target, n) for n in range(VARIANTS)]
            )
        once = {FIRST: FIRST_PER_ROUND, INVITATION: TOKENS_PER_ROUND, UNBATCHED: TOKENS_PER_ROUND}
        kinds = chosen

        def run(name, turn, seconds):
            url = {BARE: bare.url, STATIC: static_url}.get(name, project.url)
            served = {BARE: bare, STATIC: None}.get(name, project)
            if name in limited:
                served = limited[name][0]
                url = served.url
            if name in once:
                per = once[name]
                return wrk(
                    url,
                    files[name],
                    mode="once",
                    first=1 + turn * per,
                    count=per,
                    seconds=seconds,
                    served=served,
                )
            return wrk(
                url,
                files[name],
                mode="cycle",
                first=1,
                count=VARIANTS,
                seconds=seconds,
                served=served,
            )

        results = {name: [] for name in [*kinds, BARE, STATIC]}
        bare_before = {name: [] for name in kinds}
        for name in [BARE, *kinds, STATIC]:
            run(name, 0, WARMUP_SECONDS)
        for turn in range(1, ROUNDS + 1):
            results[STATIC].append(run(STATIC, turn, SECONDS))
            for name in kinds:
                before = run(BARE, turn, SECONDS)
                results[BARE].append(before)
                bare_before[name].append(before["rate"])
                results[name].append(run(name, turn, SECONDS))
        return results, bare_before


KINDS = {
    "plain": PLAIN,
    "grouped": GROUPED,
    "typed": TYPED,
    "spread": SPREAD,
    "first": FIRST,
    "invitation": INVITATION,
    "unbatched": UNBATCHED,
    "limited": LIMITED,
    "limited-redis": LIMITED_REDIS,
}


# Rows that measure a part of a kind's cost, not a kind the targets are set for.
DIAGNOSTIC = (UNBATCHED, LIMITED, LIMITED_REDIS)


def _kinds_chosen():
    """The kinds BENCH_KINDS names (all by default), plain always among them, in table order."""
    named = os.environ.get("BENCH_KINDS", "").replace(" ", "")
    wanted = {KINDS[name] for name in named.split(",") if name} if named else set(KINDS.values())
    if LIMITED_REDIS in wanted and not redis_answers():
        print(f"(Redis not answering at BENCH_REDIS_URL {REDIS_URL}: limited-redis skipped)")
        wanted.discard(LIMITED_REDIS)
    return [kind for kind in KINDS.values() if kind in wanted or kind == PLAIN]


def _cpu_shown(runs):
    """A kind's CPU per request, app / db: the medians over its runs."""
    if runs[0]["cpu"] is None:
        return "—"
    app = statistics.median(r["cpu"]["app"] for r in runs)
    return f"{app:.2f} / {statistics.median(r['cpu']['db'] for r in runs):.2f}"


def summary(ratios):
    ratios = sorted(ratios)
    median = statistics.median(ratios)
    return median, f"{median:.2f} ({ratios[0]:.2f}–{ratios[-1]:.2f})"


def main():
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (make bench installs it: apt-get install wrk)")
    load = os.getloadavg()
    print(
        f"Submission throughput: wrk (1 thread, {CONNECTIONS} connections), gunicorn with"
        f" {WORKERS} sync workers, {ROUNDS} rounds x {SECONDS:g} s per side, alternating"
        f" bare app / kind"
    )
    print(f"Machine: {_common.machine()}; load average at start {load[0]:.2f} {load[1]:.2f}")
    engines = os.environ.get("BENCH_DATABASES", "postgresql").replace(" ", "").split(",")
    os.environ["BENCH_DATABASES"] = ",".join(engines)
    failures, verdicts, rows = [], [], []
    for engine in _common.engines():
        with tempfile.TemporaryDirectory(prefix="rrsurvey-wrk-") as workdir:
            results, bare_before = measure(engine, workdir)
        for name, runs in results.items():
            rates = [r["rate"] for r in runs]
            failed = sum(r["failed"] + r["socket_errors"] for r in runs)
            if name in bare_before:
                median, shown = summary(
                    [rate / base for rate, base in zip(rates, bare_before[name], strict=True)]
                )
                if engine == "postgresql" and median < 0.6 and name not in DIAGNOSTIC:
                    verdicts.append(f"{engine} {name}: {median:.2f} x bare MISSES the 0.6 target")
            else:
                shown = "—"
            rows.append(
                [
                    engine,
                    name,
                    f"{statistics.median(rates):,.0f}",
                    f"{min(rates):,.0f}–{max(rates):,.0f}",
                    f"{statistics.median(r['p50_ms'] for r in runs):.1f}",
                    _cpu_shown(runs),
                    failed,
                    shown,
                ]
            )
            if failed:
                codes = " ".join(sorted({r["statuses"] for r in runs if r["statuses"]}))
                failures.append(f"{engine} {name}: {failed} failed ({codes.strip()})")
        for name, target, label in (
            (SPREAD, 0.9, "8 surveys vs 1"),
            (INVITATION, 0.8, "invitation vs plain"),
            (UNBATCHED, None, "invitation not batched vs plain"),
            (LIMITED, None, "plain with the rate limit counted vs plain"),
            (LIMITED_REDIS, None, "plain with the rate limit counted in Redis vs plain"),
        ):
            if not results.get(name):
                continue
            median, shown = summary(
                [k["rate"] / p["rate"] for k, p in zip(results[name], results[PLAIN], strict=True)]
            )
            missed = target is not None and median < target
            verdicts.append(
                f"{engine}: {label} = {shown}" + (f" MISSES the {target} target" if missed else "")
            )
        bare_rate = statistics.median(r["rate"] for r in results[BARE])
        static_rate = statistics.median(r["rate"] for r in results[STATIC])
        reach = bare_rate / static_rate
        verdicts.append(
            f"{engine}: client check: wrk reached {static_rate:,.0f} requests/s on the static WSGI"
            f" app; the bare app's {bare_rate:,.0f} is {reach:.0%} of it: "
            + ("the client is not the limit" if reach < 0.6 else "THE CLIENT MAY BE THE LIMIT")
        )
    print()
    print(
        _common.table(
            [
                "database",
                "endpoint",
                "requests/s (median)",
                "range",
                "p50 ms",
                "CPU ms/request: app / db",
                "failed",
                "x bare app",
            ],
            rows,
        )
    )
    print()
    print("\n".join(verdicts))
    load = os.getloadavg()
    print(
        f"\nx bare app = requests/s over the bare app's in the run just before, same round: median"
        f" (and range) over {ROUNDS} rounds. 8 surveys vs 1 = {SPREAD} / {PLAIN}, invitation vs"
        f" plain = {INVITATION} / {PLAIN}, the same way."
        f" Load average at the end {load[0]:.2f} {load[1]:.2f}."
    )
    print(
        "Targets: every kind >= 0.6 x the bare app (PostgreSQL); 8 surveys vs 1 >= 0.9;"
        " invitation vs plain >= 0.8."
    )
    if failures:
        raise SystemExit("Failed requests during the run:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
