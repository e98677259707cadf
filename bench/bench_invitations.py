"""Invitation surveys: a submission with a token against a plain one, and token issuance.

    .venv/bin/python bench/bench_invitations.py     # or: make bench
    BENCH_SECONDS=5 BENCH_ROUNDS=8 .venv/bin/python bench/bench_invitations.py

For each database (SQLite, and PostgreSQL when reachable) one gunicorn as in
bench_submissions.py (the production configuration, DEBUG off, no rate limit,
WEB_CONCURRENCY sync workers) serves three endpoints, driven in turn by the same load
generator (``_pyclient.drive``, Python threads) within each round:

- plain: ``POST .../responses/`` to a link survey of 10 yes/no questions;
- tokened: the same body plus a token to an invitation-only survey of 10 yes/no questions:
  the token is verified (RSASSA-PSS, 2048 bits), then its digest stored with the submission
  (on PostgreSQL in the one statement); its submissions are held for batches
  (services/batches.py);
- issuance: ``POST .../tokens/`` with a fresh invitation code and a blinded message each
  (BlindSign with the sealed key opened per request).

The tokens the tokened row spends are signed beforehand, in the server's environment, with
the survey's key (a token is an RSASSA-PSS signature of its prepared message, however it was
made), so the load generator measures the submission alone. Target: tokened >= 0.8 x plain
in the same round (median over the rounds); issuance is measured, with no target.
"""

from __future__ import annotations

import json
import os
import secrets
import statistics
import sys
import threading
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common
from _pyclient import CLIENTS, SECONDS, WARMUP_SECONDS, WORKERS, drive, ratio, server

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "6"))
# Tokens and codes made beforehand: enough for every round at a few hundred requests/s.
TOKENS = int(os.environ.get("BENCH_TOKENS", "6000"))
CODES = int(os.environ.get("BENCH_CODES", "3000"))
PLAIN = "plain submission (link survey)"
TOKENED = "submission with a token (invitation survey)"
ISSUE = "token issuance"

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import get_user_model
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
import blindrsa
from surveys import services
from surveys.models import SurveyTokenKey
from surveys.services import invitations
owner = get_user_model().objects.create_user("bench-invitations")
questions = [f"Question {i}?" for i in range(10)]
plain = services.survey_open(
    survey=services.survey_create(owner=owner, title="Plain", questions=questions)
)
closed = services.survey_open(
    survey=services.survey_create(
        owner=owner, title="Closed", questions=questions, access="invitation"
    )
)
codes = []
for start in range(0, %(codes)d, 1000):
    made = invitations.invitations_create(survey=closed, count=min(1000, %(codes)d - start))
    codes += [view.code for view in made]
stored = SurveyTokenKey.objects.get(survey=closed)
key = blindrsa.private_key_decrypt(
    stored.sealed_private_key, secret=settings.SECRET_KEY, context=str(closed.pk)
)
pss = padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48)
tokens = []
for _ in range(%(tokens)d):
    prepared = blindrsa.prepare(message=__import__("secrets").token_bytes(32))
    signature = key.sign(prepared, pss, hashes.SHA384())
    tokens.append([blindrsa.b64url_encode(prepared), blindrsa.b64url_encode(signature)])
print("SETUP" + json.dumps({
    "plain": {"slug": plain.slug, "ids": list(plain.questions.values_list("id", flat=True))},
    "closed": {"slug": closed.slug, "ids": list(closed.questions.values_list("id", flat=True))},
    "public_key": stored.public_key, "codes": codes, "tokens": tokens,
}))
"""


class Pool:
    """Hands out the next item of ``items`` to each request, once; None when used up."""

    def __init__(self, items):
        self.items = iter(items)
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            return next(self.items, None)


def measure(engine):
    if engine == "postgresql":
        os.environ["DATABASE_URL"] = _common.POSTGRES_URL
    else:
        os.environ.pop("DATABASE_URL", None)
    with server(settings_module="bench.settings") as project:
        output = project.manage("shell", "-c", SETUP % {"codes": CODES, "tokens": TOKENS})
        setup = json.loads(output.split("SETUP", 1)[1].strip().splitlines()[0])
        import blindrsa

        n = blindrsa.public_key_decode(setup["public_key"]).public_numbers().n
        tokens, codes = Pool(setup["tokens"]), Pool(setup["codes"])

        def body(target):
            return {
                "submission_id": str(uuid.uuid4()),
                "answers": {str(qid): secrets.randbits(1) == 1 for qid in target["ids"]},
            }

        def plain():
            return f"/api/v1/public/surveys/{setup['plain']['slug']}/responses/", body(
                setup["plain"]
            )

        def tokened():
            token = tokens.take()
            if token is None:
                return None
            request = body(setup["closed"])
            request["token"] = {"message": token[0], "signature": token[1]}
            return f"/api/v1/public/surveys/{setup['closed']['slug']}/responses/", request

        def issue():
            code = codes.take()
            if code is None:
                return None
            # Any value below n is a blinded message (m·r^e mod n is uniform): the server's
            # work is the same, and the load generator does no blinding of its own.
            blinded = (secrets.randbelow(n - 1) + 1).to_bytes(256, "big")
            return f"/api/v1/public/surveys/{setup['closed']['slug']}/tokens/", {
                "code": code,
                "blinded_message": blindrsa.b64url_encode(blinded),
            }

        targets = {PLAIN: plain, TOKENED: tokened, ISSUE: issue}
        results = {name: {"rates": [], "latencies": [], "errors": []} for name in targets}
        for make_request in targets.values():
            drive(project, make_request, seconds=WARMUP_SECONDS)
        for _round in range(ROUNDS):
            for name, make_request in targets.items():
                rate, latencies, errors = drive(project, make_request, seconds=SECONDS)
                results[name]["rates"].append(rate)
                results[name]["latencies"].extend(latencies)
                results[name]["errors"].extend(errors)
        return results


def main():
    print(
        f"Invitation surveys: {CLIENTS} client threads, gunicorn with {WORKERS} sync workers, "
        f"{ROUNDS} x {SECONDS:g} s per endpoint (alternating)"
    )
    print(f"Machine: {_common.machine()}")
    rows, failures, verdicts = [], [], []
    for engine in _common.engines():
        results = measure(engine)
        for name, r in results.items():
            latencies = sorted(r["latencies"])
            rows.append(
                [
                    engine,
                    name,
                    f"{statistics.mean(r['rates']):,.0f}",
                    f"{statistics.median(latencies):.1f}",
                    f"{latencies[int(0.95 * len(latencies)) - 1]:.1f}",
                    len(r["errors"]),
                    ratio(r["rates"], results[PLAIN]["rates"]),
                ]
            )
            if r["errors"]:
                failures.append(f"{engine} {name}: {r['errors'][:5]}")
        ratios = [
            t / p for t, p in zip(results[TOKENED]["rates"], results[PLAIN]["rates"], strict=True)
        ]
        verdicts.append(
            f"{engine}: tokened / plain = {statistics.median(ratios):.2f}"
            f" ({'meets' if statistics.median(ratios) >= 0.8 else 'MISSES'} the 0.8 target)"
        )
    print()
    print(
        _common.table(
            ["database", "endpoint", "requests/s", "median ms", "p95 ms", "errors", "x plain"],
            rows,
        )
    )
    print()
    print("\n".join(verdicts))
    print(
        f"\nx plain = requests/s relative to the plain submission in the same round: median"
        f" (and range) over {ROUNDS} rounds. Target: tokened >= 0.8 x plain."
    )
    if failures:
        raise SystemExit("Errors during the run:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
