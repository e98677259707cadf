"""An independent RFC 9474 client (tests/rfc9474_client.py, none of the project's code)
obtains and spends a token against ``make run``'s development server (docs/invitations.md)."""

import base64
import json
import uuid

import pytest

from tests import rfc9474_client as rfc
from tests.live import development_server

pytestmark = pytest.mark.slow

# Run in the server's own environment: a researcher, an invitation-only survey, two codes.
SETUP = """
import json
from django.contrib.auth import get_user_model
from surveys import services
from surveys.services import invitations
owner = get_user_model().objects.create_user("live-owner", password="pw-correct-horse-42")
survey = services.survey_create(
    owner=owner, title="Closed study", questions=[{"text": "Q1?"}], access="invitation"
)
survey = services.survey_open(survey=survey)
codes = [view.code for view in invitations.invitations_create(survey=survey, count=2)]
question = survey.questions.get().pk
print("SETUP" + json.dumps({"slug": survey.slug, "codes": codes, "question": question}))
"""


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture(scope="module")
def devserver():
    with development_server() as server:
        yield server


def test_an_independent_client_obtains_and_spends_a_token(devserver):
    output = devserver.manage("shell", input=SETUP)
    setup = json.loads(output.split("SETUP", 1)[1].splitlines()[0])
    slug, codes = setup["slug"], setup["codes"]
    status, definition = devserver.json("GET", f"/api/v1/public/surveys/{slug}/")
    assert status == 200
    assert definition["token_scheme"] == "RSABSSA-SHA384-PSS-Randomized"
    n, e = rfc.public_key_from_spki(definition["token_key"])

    msg = rfc.prepare(uuid.uuid4().bytes * 2)
    blinded, inv = rfc.blind(n, e, msg)
    path = f"/api/v1/public/surveys/{slug}/tokens/"
    status, answer = devserver.json(
        "POST", path, body={"code": codes[0], "blinded_message": b64(blinded)}
    )
    assert status == 201, answer
    signature = rfc.finalize(n, e, msg, unb64(answer["blind_signature"]), inv)
    status, again = devserver.json(
        "POST", path, body={"code": codes[0], "blinded_message": b64(blinded)}
    )
    assert (status, again["detail"]) == (409, "This invitation has been used.")

    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(setup["question"]): True},
        "token": {"message": b64(msg), "signature": b64(signature)},
    }
    responses = f"/api/v1/public/surveys/{slug}/responses/"
    status, stored = devserver.json("POST", responses, body=body)
    assert status == 201, stored
    assert devserver.json("POST", responses, body=body) == (201, stored)  # a retry
    status, reused = devserver.json(
        "POST", responses, body={**body, "submission_id": str(uuid.uuid4())}
    )
    assert status == 409 and "token" in reused["errors"]
    status, refused = devserver.json(
        "POST", responses, body={**body, "submission_id": str(uuid.uuid4()), "token": None}
    )
    assert status in (400, 403)
    del body["token"]
    status, refused = devserver.json(
        "POST", responses, body={**body, "submission_id": str(uuid.uuid4())}
    )
    assert status == 403 and "token" in refused["errors"]
