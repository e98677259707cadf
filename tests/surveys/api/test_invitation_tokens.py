"""The token an invitee obtains with their code and spends on one submission
(docs/invitations.md): issuance once per code, spending once per token, nothing half-way."""

import json
import uuid

import pytest

import blindrsa
from surveys import selectors
from surveys.models import Invitation, SpentToken, Submission
from surveys.services import invitations
from tests.helpers import answers_for


def tokens_url(survey):
    return f"/api/v1/public/surveys/{survey.slug}/tokens/"


def responses_url(survey):
    return f"/api/v1/public/surveys/{survey.slug}/responses/"


def definition(client, survey):
    return client.get(f"/api/v1/public/surveys/{survey.slug}/").json()


def obtain_token(client, survey, code):
    """What the respondent page does: prepare, blind with the definition's key, ask for the
    blind signature with the code, finalize (which verifies). (token, response)."""
    key = blindrsa.public_key_decode(definition(client, survey)["token_key"])
    prepared = blindrsa.prepare(message=bytes(range(32)))
    blinded = blindrsa.blind(public_key=key, prepared_message=prepared)
    response = client.post(
        tokens_url(survey),
        {"code": code, "blinded_message": blindrsa.b64url_encode(blinded.blinded_message)},
        format="json",
    )
    if response.status_code != 201:
        return None, response
    signature = blindrsa.finalize(
        public_key=key,
        prepared_message=prepared,
        blind_signature=blindrsa.b64url_decode(response.json()["blind_signature"]),
        inverse=blinded.inverse,
    )
    token = {
        "message": blindrsa.b64url_encode(prepared),
        "signature": blindrsa.b64url_encode(signature),
    }
    return token, response


def submit_with(client, survey, *, token, submission_id=None, bits=(True, False)):
    body = {
        "submission_id": str(submission_id or uuid.uuid4()),
        "answers": {str(k): v for k, v in answers_for(survey, list(bits)).items()},
    }
    if token is not None:
        body["token"] = token
    return client.post(responses_url(survey), body, format="json")


@pytest.fixture
def study(make_survey):
    return make_survey(access="invitation")


@pytest.fixture
def codes(study):
    return [view.code for view in invitations.invitations_create(survey=study, count=3)]


def stored(survey):
    """Submissions, spent tokens and responses counted, held for their batch or not
    (docs/invitations.md, "Batches": these tests are about what is stored, not when it shows)."""
    return (
        Submission.all_objects.filter(survey=survey).count(),
        SpentToken.objects.filter(survey=survey).count(),
        survey.response_count + selectors.held_responses(survey=survey),
    )


@pytest.mark.django_db(transaction=True)
def test_an_invitee_obtains_a_token_once_and_spends_it_once(respondent, study, codes):
    token, response = obtain_token(respondent, study, codes[0])
    assert response.status_code == 201
    assert Invitation.objects.filter(survey=study, status="issued").count() == 1
    again, response = obtain_token(respondent, study, codes[0])
    assert again is None and response.status_code == 409
    assert response.json()["detail"] == "This invitation has been used."

    submission_id = uuid.uuid4()
    first = submit_with(respondent, study, token=token, submission_id=submission_id)
    assert first.status_code == 201, first.content
    # The memo's retry: same id, same token, the same answer, stored once.
    retry = submit_with(respondent, study, token=token, submission_id=submission_id)
    assert (retry.status_code, retry.json()) == (201, first.json())
    assert stored(study) == (1, 1, 1)
    # The same token with a new submission id is refused, and nothing is stored.
    reused = submit_with(respondent, study, token=token)
    assert reused.status_code == 409
    assert "token" in reused.json()["errors"]
    assert stored(study) == (1, 1, 1)


def test_a_code_with_spaces_dashes_or_capitals_is_the_same_code(respondent, study, codes):
    typed = "-".join(codes[0][i : i + 4] for i in range(0, 32, 4)).upper()
    _token, response = obtain_token(respondent, study, f" {typed} ")
    assert response.status_code == 201


@pytest.mark.parametrize("code", ["a" * 32, "not a code", "", " " + "a-" * 20])
def test_an_unknown_code_is_a_404(respondent, study, codes, code):
    _token, response = obtain_token(respondent, study, code)
    assert response.status_code == 404
    assert not Invitation.objects.filter(survey=study, status="issued").exists()


def test_a_revoked_or_reset_code_obtains_nothing(respondent, study, codes):
    revoked, lost = Invitation.objects.filter(survey=study).order_by("id")[:2]
    invitations.invitation_revoke(survey=study, invitation_id=revoked.pk)
    invitations.invitation_reset(survey=study, invitation_id=lost.pk)
    for code in codes[:2]:
        assert obtain_token(respondent, study, code)[1].status_code == 404


def test_a_reset_lets_the_new_code_obtain_a_second_token(respondent, study, codes):
    first, _ = obtain_token(respondent, study, codes[0])
    (invitation,) = [i for i in Invitation.objects.filter(survey=study) if i.status == "issued"]
    new = invitations.invitation_reset(survey=study, invitation_id=invitation.pk)
    second, _ = obtain_token(respondent, study, new.code)
    assert first and second
    assert submit_with(respondent, study, token=first).status_code == 201
    assert submit_with(respondent, study, token=second).status_code == 201
    study.refresh_from_db()
    assert study.invitation_resets == 1


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"blinded_message": "AAAA"}, "code", "This field is required."),
        ({"code": "x"}, "blinded_message", "This field is required."),
        ({"code": "x", "blinded_message": "AAAA", "extra": 1}, "extra", "Unknown field."),
        ({"code": 12, "blinded_message": "AAAA"}, "code", "Must be a string."),
        ({"code": None, "blinded_message": "AAAA"}, "code", "This field may not be null."),
        ({"code": ["x"], "blinded_message": "AAAA"}, "code", "Must be a string."),
        ({"code": "a" * 129, "blinded_message": "AAAA"}, "code", None),
        ({"code": "x", "blinded_message": {"b": 1}}, "blinded_message", "Must be a string."),
        (["x", "AAAA"], "non_field_errors", None),
    ],
)
def test_a_malformed_token_request_names_the_field(respondent, study, codes, body, field, message):
    """The serializer the other routes use: a 400 whose ``errors`` name the one field at fault
    (the first unknown one, else each wrong one), before the code is looked at."""
    if isinstance(body, dict) and body.get("code") == "x":
        body = {**body, "code": codes[0]}  # a real code: the field at fault is the other one
    response = respondent.post(tokens_url(study), body, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == [field]
    if message is not None:
        assert errors[field] == [message]
    assert not Invitation.objects.filter(survey=study, status="issued").exists()


@pytest.mark.parametrize("blinded", ["AAAA", "!!!", "", "_" * 342, 5])
def test_a_bad_blinded_message_is_a_400_and_the_code_stays_unused(
    respondent, study, codes, blinded
):
    response = respondent.post(
        tokens_url(study), {"code": codes[0], "blinded_message": blinded}, format="json"
    )
    assert response.status_code == 400
    assert "blinded_message" in response.json()["errors"]
    assert not Invitation.objects.filter(survey=study, status="issued").exists()
    assert obtain_token(respondent, study, codes[0])[1].status_code == 201


def test_a_link_survey_issues_no_tokens(respondent, open_survey):
    response = respondent.post(
        tokens_url(open_survey), {"code": "a" * 32, "blinded_message": "AAAA"}, format="json"
    )
    assert response.status_code == 404


def test_a_draft_issues_no_tokens(respondent, make_survey):
    draft = make_survey(status="draft", access="invitation")
    (made,) = invitations.invitations_create(survey=draft, count=1)
    response = respondent.post(
        tokens_url(draft), {"code": made.code, "blinded_message": "AAAA"}, format="json"
    )
    assert response.status_code == 409


def test_without_a_token_an_invitation_only_survey_refuses_with_403(respondent, study):
    response = submit_with(respondent, study, token=None)
    assert response.status_code == 403
    assert "token" in response.json()["errors"]
    assert stored(study) == (0, 0, 0)


def test_a_survey_open_to_both_takes_the_link_and_tokens(respondent, make_survey):
    both = make_survey(access="both")
    (made,) = invitations.invitations_create(survey=both, count=1)
    assert submit_with(respondent, both, token=None).status_code == 201
    token, _ = obtain_token(respondent, both, made.code)
    assert submit_with(respondent, both, token=token).status_code == 201
    assert submit_with(respondent, both, token=token).status_code == 409
    assert stored(both) == (2, 1, 2)


def forged(token, *, part, value):
    return {**token, part: value}


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: "a token",
        lambda t: {"message": t["message"]},
        lambda t: {**t, "extra": "x"},
        lambda t: forged(t, part="message", value="!!"),
        lambda t: forged(t, part="message", value=blindrsa.b64url_encode(bytes(63))),
        lambda t: forged(t, part="signature", value=5),
        # Well formed, but not signed by the survey's key: a forgery.
        lambda t: forged(t, part="message", value=blindrsa.b64url_encode(bytes(64))),
        lambda t: forged(t, part="signature", value=blindrsa.b64url_encode(bytes(256))),
    ],
)
def test_a_malformed_or_forged_token_is_a_400_naming_token(respondent, study, codes, mangle):
    token, _ = obtain_token(respondent, study, codes[0])
    response = submit_with(respondent, study, token=mangle(token))
    assert response.status_code == 400
    assert "token" in response.json()["errors"]
    assert stored(study) == (0, 0, 0)
    # The genuine token is still good.
    assert submit_with(respondent, study, token=token).status_code == 201


def test_a_token_of_another_survey_is_refused(respondent, study, make_survey):
    other = make_survey(access="invitation")
    (made,) = invitations.invitations_create(survey=other, count=1)
    token, _ = obtain_token(respondent, other, made.code)
    assert submit_with(respondent, study, token=token).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_a_refused_submission_leaves_its_token_unspent(respondent, study, codes):
    token, _ = obtain_token(respondent, study, codes[0])
    body = {"submission_id": str(uuid.uuid4()), "answers": {"999999": True}, "token": token}
    response = respondent.post(responses_url(study), body, format="json")
    assert response.status_code == 400
    assert stored(study) == (0, 0, 0)
    assert submit_with(respondent, study, token=token).status_code == 201
    assert stored(study) == (1, 1, 1)


@pytest.mark.django_db(transaction=True)
def test_a_replayed_submission_id_with_a_fresh_token_spends_nothing(respondent, study, codes):
    first, _ = obtain_token(respondent, study, codes[0])
    second, _ = obtain_token(respondent, study, codes[1])
    submission_id = uuid.uuid4()
    assert (
        submit_with(respondent, study, token=first, submission_id=submission_id).status_code == 201
    )
    replay = submit_with(respondent, study, token=second, submission_id=submission_id)
    assert replay.status_code == 201
    assert stored(study) == (1, 1, 1)
    assert submit_with(respondent, study, token=second).status_code == 201


def test_the_padded_length_covers_a_token(respondent, study, codes):
    shown = definition(respondent, study)
    token, _ = obtain_token(respondent, study, codes[0])
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(q["id"]): False for q in shown["questions"]},
        "design_fingerprint": shown["design_fingerprint"],
        "order": [q["id"] for q in shown["questions"]],
        "token": token,
        "padding": "",
    }
    length = len(json.dumps(body, separators=(",", ":")).encode())
    assert length == shown["submission_length"]


def test_token_requests_are_throttled_like_submissions(respondent, study, codes, settings):
    settings.RESPONSE_RATE_LIMIT = "2/min"
    statuses = [
        respondent.post(
            tokens_url(study), {"code": "a" * 32, "blinded_message": "AAAA"}, format="json"
        ).status_code
        for _ in range(3)
    ]
    assert statuses == [404, 404, 429]


def test_a_pilots_tokens_go_with_its_responses(respondent, make_survey):
    from surveys import services

    pilot = make_survey(status="pilot", access="invitation")
    (made,) = invitations.invitations_create(survey=pilot, count=1)
    token, _ = obtain_token(respondent, pilot, made.code)
    assert submit_with(respondent, pilot, token=token).status_code == 201
    opened = services.survey_open(survey=pilot, pilot_invitations="reissue")
    assert stored(opened) == (0, 0, 0)
    # The pilot's token does not verify under the study's key; the pilot's code obtains
    # nothing, and the invitation re-issued for the study obtains a new token.
    assert submit_with(respondent, opened, token=token).status_code == 400
    _, refused = obtain_token(respondent, opened, made.code)
    assert refused.status_code == 404
    reissued = Invitation.objects.get(survey=opened, pilot=False)
    code = invitations.code_open(reissued.sealed_code, survey_id=opened.pk)
    fresh, response = obtain_token(respondent, opened, code)
    assert response.status_code == 201
    assert submit_with(respondent, opened, token=fresh).status_code == 201
    assert stored(opened) == (1, 1, 1)
