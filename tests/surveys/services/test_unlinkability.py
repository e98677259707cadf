"""Unlinkability of invitations and answers (docs/invitations.md, docs/respondent-page.md):
two invitees, A then B obtain tokens, B then A submit. Everything the server stores, exports,
answers and logs is consistent with both assignments (A's answers are A's, or they are B's).
"""

import csv
import io
import logging
import uuid

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection

import blindrsa
from surveys import services
from surveys.models import Invitation, SpentToken, Submission, SurveyTokenKey
from surveys.services import invitations
from tests.helpers import answers_for

pytestmark = pytest.mark.django_db(transaction=True)


def b64(data):
    return blindrsa.b64url_encode(data)


class Invitee:
    """One invitee's browser: what it sent to obtain its token, and what it submitted."""

    def __init__(self, client, survey, code):
        self.code = code
        key = blindrsa.public_key_decode(
            client.get(f"/api/v1/public/surveys/{survey.slug}/").json()["token_key"]
        )
        self.prepared = blindrsa.prepare(message=uuid.uuid4().bytes * 2)
        blinded = blindrsa.blind(public_key=key, prepared_message=self.prepared)
        self.blinded = blinded.blinded_message
        response = client.post(
            f"/api/v1/public/surveys/{survey.slug}/tokens/",
            {"code": code, "blinded_message": b64(self.blinded)},
            format="json",
        )
        assert response.status_code == 201
        self.signature = blindrsa.finalize(
            public_key=key,
            prepared_message=self.prepared,
            blind_signature=blindrsa.b64url_decode(response.json()["blind_signature"]),
            inverse=blinded.inverse,
        )
        self.submission_id = None

    def submit(self, client, survey, bits):
        self.submission_id = str(uuid.uuid4())
        body = {
            "submission_id": self.submission_id,
            "answers": {str(k): v for k, v in answers_for(survey, bits).items()},
            "token": {"message": b64(self.prepared), "signature": b64(self.signature)},
        }
        response = client.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
        )
        assert response.status_code == 201


def every_row():
    """(table, column names, row) of every table of every app."""
    with connection.cursor() as cursor:
        for model in apps.get_models():
            table = model._meta.db_table
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            columns = [column[0] for column in cursor.description]
            for row in cursor.fetchall():
                yield table, columns, row


def as_text(value):
    if isinstance(value, memoryview | bytes | bytearray):
        return bytes(value).hex()
    return str(value)


@pytest.fixture
def scenario(make_survey, respondent, owner_api, caplog):
    caplog.set_level(logging.DEBUG)
    survey = make_survey(access="invitation")
    made = invitations.invitations_create(survey=survey, emails=["a@example.org", "b@example.org"])
    by_email = {view.email: view for view in made}
    a = Invitee(respondent, survey, by_email["a@example.org"].code)
    b = Invitee(respondent, survey, by_email["b@example.org"].code)
    b.submit(respondent, survey, [True, False])
    a.submit(respondent, survey, [False, True])
    # Held for their batch (docs/invitations.md, "Batches"): the study closes and its owner
    # releases the last, small batch, as a researcher of two invitees would.
    services.survey_close(survey=survey)
    services.batch_release_last(survey=survey, responses=2)
    return survey, by_email, a, b, caplog


def test_no_stored_row_joins_an_invitation_to_a_submission(scenario):
    _survey, by_email, a, b, _caplog = scenario
    invitation_side = set()
    for view in by_email.values():
        stored = Invitation.objects.get(pk=view.id)
        invitation_side |= {
            view.code,
            view.email,
            stored.code_digest,
            bytes(stored.sealed_code).hex(),
            # What the server saw when it signed (nothing stores it; if anything did, here).
            a.blinded.hex(),
            b.blinded.hex(),
            b64(a.blinded),
            b64(b.blinded),
        }
    submission_side = {a.submission_id, b.submission_id, a.submission_id.replace("-", "")}
    submission_side |= {b.submission_id.replace("-", "")}
    for invitee in (a, b):
        submission_side |= {b64(invitee.prepared), invitee.prepared.hex()}
        submission_side |= {b64(invitee.signature), invitee.signature.hex()}
    submission_side |= {bytes(row.digest).hex() for row in SpentToken.objects.all()}
    submission_side |= {str(pk) for pk in Submission.objects.values_list("pk", flat=True)}
    invitation_ids = {str(view.id) for view in by_email.values()}
    seen_tables = set()
    for table, columns, row in every_row():
        seen_tables.add(table)
        texts = {as_text(value) for value in row}
        holds_invitation = bool(texts & invitation_side) or (
            table == Invitation._meta.db_table and bool(texts & invitation_ids)
        )
        holds_submission = bool(texts & submission_side)
        assert not (holds_invitation and holds_submission), (table, columns, row)
        # The blinded messages the server signed are stored nowhere at all.
        assert not texts & {a.blinded.hex(), b.blinded.hex(), b64(a.blinded), b64(b.blinded)}
    assert {Invitation._meta.db_table, SpentToken._meta.db_table} <= seen_tables


def test_no_column_can_join_them():
    """The schema: no foreign key between invitations and submissions or spent tokens, and no
    time on either side that could be matched (only a submission's date)."""
    invitation_fields = {field.name for field in Invitation._meta.get_fields()}
    spent_fields = {field.name for field in SpentToken._meta.get_fields()}
    # ``held``: whether its submission's batch is released yet, nothing about when.
    assert spent_fields == {"id", "survey", "digest", "held"}
    for model in (Invitation, SpentToken, Submission):
        for field in model._meta.get_fields():
            related = getattr(field, "related_model", None)
            assert related not in ({Invitation, SpentToken, Submission} - {model}), (model, field)
    # No moment of issuance is kept: the only time on an invitation is when it was made.
    times = {
        field.name
        for field in Invitation._meta.get_fields()
        if field.get_internal_type() in ("DateTimeField", "DateField")
    }
    assert times == {"created_at"} and "created_at" in invitation_fields
    assert not any(
        field.get_internal_type() in ("DateTimeField", "DateField")
        for field in SpentToken._meta.get_fields()
    )


def test_both_assignments_explain_what_the_signer_saw(scenario):
    """Even holding the private key, each signing request is explained by either token: for
    each pairing there is an r with blinded = encode(token)·r^e mod n (RFC 9474 §4.2)."""
    survey, _by_email, a, b, _caplog = scenario
    key = blindrsa.private_key_decrypt(
        SurveyTokenKey.objects.get(survey=survey).sealed_private_key,
        secret=settings.SECRET_KEY,
        context=str(survey.pk),
    )
    numbers = key.private_numbers()
    n, e, d = numbers.public_numbers.n, numbers.public_numbers.e, numbers.d
    for request in (a, b):
        for token in (a, b):
            z = int.from_bytes(request.blinded, "big")
            # The encoded message of the token: s^e mod n for its finished signature.
            m = pow(int.from_bytes(token.signature, "big"), e, n)
            r = pow(z * pow(m, -1, n) % n, d, n)
            assert m * pow(r, e, n) % n == z


def test_exports_api_and_logs_are_the_same_under_both_assignments(scenario, owner_api):
    survey, _by_email, a, b, caplog = scenario
    listed = owner_api.get(f"/api/v1/surveys/{survey.pk}/invitations/").json()
    rows = {row["email"]: row for row in listed["invitations"]}
    # A and B look the same apart from their address and code: both obtained their token.
    strip = ("id", "email", "code", "link")
    assert {k: v for k, v in rows["a@example.org"].items() if k not in strip} == {
        k: v for k, v in rows["b@example.org"].items() if k not in strip
    }
    assert listed["counts"]["opened"] == listed["counts"]["answered"] == 2
    responses = owner_api.get(f"/api/v1/surveys/{survey.pk}/responses.csv")
    text = b"".join(responses.streaming_content).decode()
    table = list(csv.reader(io.StringIO(text)))
    assert table[0][:2] == ["submission_id", "received_on"]
    assert {row[0] for row in table[1:]} == {a.submission_id, b.submission_id}
    for row in table:
        assert not set(row) & {"a@example.org", "b@example.org", a.code, b.code}
    for record in caplog.records:
        line = record.getMessage()
        for secret in (a.code, b.code, a.submission_id, b.submission_id, b64(a.prepared)):
            assert secret not in line, line


def test_the_invitation_export_says_nothing_about_answers(scenario, owner_client):
    survey, _by_email, a, b, _caplog = scenario
    response = owner_client.get(f"/surveys/{survey.pk}/invitees/export.csv")
    text = b"".join(response.streaming_content).decode()
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == ["email", "invited_on", "revoked", "pilot"]
    assert sorted(row[0] for row in table[1:]) == ["a@example.org", "b@example.org"]
    # The same in both rows but the address: nothing says who answered when, or what.
    assert len({tuple(row[1:]) for row in table[1:]}) == 1
    assert a.submission_id not in text and b.submission_id not in text
