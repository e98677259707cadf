"""Property-based fuzzing of every operation in the OpenAPI schema (schemathesis, in-process
through WSGI): valid and invalid inputs alike never get a server error, and every response has
a documented status, content type and shape. Surveys are the owner's half the time, so the
real handlers run, not only the 404 path; they hold every question type and a grouping
question of three options, with responses, so every analysis computes (issue 32: a confidence
of 1 - 2**-53 was a 500 on a multiple-choice question, which the yes/no-only surveys this ran
on before never reached). Bounded: EXAMPLES per operation and mode, and a time budget
(BUDGET_SECONDS per mode) shared equally between the operations."""

import time

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from surveys import services
from surveys.services import grouping, tokens
from tests.helpers import MIXED_QUESTIONS, simulate_responses

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# Examples per operation and generation mode, and the seconds of one mode's run: each
# operation stops drawing examples once its equal share of them is spent (CI's machine, or a
# loaded one, runs fewer examples, never longer).
EXAMPLES = 25
BUDGET_SECONDS = 30
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture
def api_schema():
    # Django closes "old" connections at each request's start and end; inside a test's
    # transaction that would close the test's own connection (as Django's test client knows).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", WSGIHandler())
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_the_schema_documents_every_api_route(api_schema):
    labels = {result.ok().label for result in api_schema.get_all_operations()}
    assert {
        "POST /api/v1/auth/token/",
        "DELETE /api/v1/auth/token/",
        "GET /api/v1/auth/tokens/",
        "DELETE /api/v1/auth/tokens/{token_id}/",
        "GET /api/v1/surveys/",
        "POST /api/v1/surveys/",
        "GET /api/v1/surveys/{survey_id}/",
        "PATCH /api/v1/surveys/{survey_id}/",
        "DELETE /api/v1/surveys/{survey_id}/",
        "POST /api/v1/surveys/{survey_id}/open/",
        "POST /api/v1/surveys/{survey_id}/close/",
        "GET /api/v1/surveys/{survey_id}/estimates/",
        "GET /api/v1/surveys/{survey_id}/estimates.csv",
        "GET /api/v1/surveys/{survey_id}/responses.csv",
        "GET /api/v1/public/surveys/{slug}/",
        "POST /api/v1/public/surveys/{slug}/responses/",
    } <= labels


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
# Hundreds of examples make (and duplicate) surveys for one owner: the account limits have
# their own tests (tests/surveys/api/test_account_limits.py) and are not this one's subject.
@override_settings(MAX_SURVEYS_PER_USER=10**6, MAX_QUESTIONS_PER_USER=10**7)
def test_no_input_gets_a_server_error(api_schema, owner, make_survey, mode):
    def fresh_survey():
        # Through the services, not the test client: the client would reconnect the signal
        # receivers the api_schema fixture took away.
        survey = make_survey(questions=MIXED_QUESTIONS, status="draft")
        grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B", "C"])
        survey = services.survey_open(survey=survey)
        options = list(survey.grouping_questions.get().options.values_list("id", flat=True))
        return simulate_responses(survey, n=12, seed=1, options=options)

    # Reads change nothing: they share one survey; writes get a fresh one each time.
    shared = fresh_survey()
    exercised = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    share = BUDGET_SECONDS / len(operations)
    budget = {}
    for operation in operations:
        budget["until"] = time.monotonic() + share

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(mode), own=st.booleans())
        def run(case, own):
            if time.monotonic() > budget["until"]:
                return  # this operation's share of the budget is spent
            if own:
                survey = shared if case.method.upper() == "GET" else fresh_survey()
                if "survey_id" in (case.path_parameters or {}):
                    case.path_parameters["survey_id"] = survey.id
                if "slug" in (case.path_parameters or {}):
                    case.path_parameters["slug"] = survey.slug
            # A fresh token each time: the fuzzer may revoke the last one (DELETE auth/token).
            tokens.tokens_revoke_all(user=owner)
            key = tokens.token_issue(user=owner, name="fuzz").key
            response = case.call(headers={"Authorization": f"Token {key}"})
            case.validate_response(response, checks=CHECKS)

        try:
            run()
        except Unsatisfiable:
            # Nothing to get wrong (no parameters, no body): only the positive run covers it.
            assert mode is GenerationMode.NEGATIVE, operation.label
            continue
        exercised.append(operation.label)
    assert len(exercised) >= 10
