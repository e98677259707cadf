"""The shapes of a respondent's requests (surveys/api/serializers/submissions.py): the
submission body checked field by field without running a serializer (``submission_fields``,
the hot path: its values go on to the service as sent), a report's JSON type, and the token
request's strict fields."""

import pytest
from rest_framework import serializers

from surveys import limits
from surveys.api.serializers.submissions import (
    BlindTokenRequestSerializer,
    ReportField,
    SubmissionSerializer,
    submission_fields,
)
from surveys.selectors import PADDING_FIELD

CODE_MAX = limits.INVITATION_CODE_TEXT_MAX_LENGTH
BODY = {"submission_id": "9b2f8c1e-0a4b-4c1d-8e6f-2a3b4c5d6e7f", "answers": {"1": True}}


def refused(data):
    """The field errors ``submission_fields`` raises for ``data``."""
    with pytest.raises(serializers.ValidationError) as raised:
        submission_fields(data)
    return raised.value.detail


def test_a_body_goes_on_as_sent_padding_taken_off():
    body = {**BODY, "groups": {"2": "5"}, "order": [1], "design_fingerprint": "x", "token": 1}
    assert submission_fields(body) == body  # values unchecked here: the service checks them
    padded = {**BODY, PADDING_FIELD: " " * 40}
    assert submission_fields(padded) == BODY
    assert PADDING_FIELD in padded  # the caller's body is left as it was


@pytest.mark.parametrize("body", [[BODY], "body", None, 3])
def test_a_body_that_is_no_object_is_a_non_field_error(body):
    assert list(refused(body)) == ["non_field_errors"]


def test_the_first_unknown_field_is_named_before_any_missing_one():
    assert refused({"zeta": 1, "alpha": 2}) == {"alpha": ["Unknown field."]}


def test_every_missing_required_field_is_named():
    assert set(refused({})) == {"submission_id", "answers"}
    assert set(refused({"answers": {}})) == {"submission_id"}
    required = {name for name, field in SubmissionSerializer().fields.items() if field.required}
    assert required == {"submission_id", "answers"}  # the fields the check above reads


@pytest.mark.parametrize(
    "padding",
    [" x ", "\t", "\u00a0", 40, None, " " * (limits.SUBMISSION_PADDING_MAX_LENGTH + 1)],
)
def test_padding_is_spaces_only_and_bounded(padding):
    assert list(refused({**BODY, PADDING_FIELD: padding})) == [PADDING_FIELD]


def test_the_longest_padding_and_an_empty_one_pass():
    for padding in ("", " " * limits.SUBMISSION_PADDING_MAX_LENGTH):
        assert submission_fields({**BODY, PADDING_FIELD: padding}) == BODY


@pytest.mark.parametrize("report", [True, False, 0, 3, -7])
def test_a_report_is_a_boolean_or_an_integer_as_sent(report):
    value = ReportField().to_internal_value(report)
    assert value == report and type(value) is type(report)


@pytest.mark.parametrize("report", [1.0, "1", None, [1], {"a": 1}])
def test_any_other_report_is_refused(report):
    with pytest.raises(serializers.ValidationError):
        ReportField().to_internal_value(report)


def test_the_token_request_keeps_its_texts_whole():
    code = " abcd-efgh "
    body = BlindTokenRequestSerializer(data={"code": code, "blinded_message": ""})
    assert body.is_valid(), body.errors
    # As typed (the service reads groups and dashes), and a blank message for the service
    # to refuse as no base64url of a blinded message.
    assert body.validated_data == {"code": code, "blinded_message": ""}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"code": 1, "blinded_message": "AA"}, "code"),
        ({"code": "x" * (CODE_MAX + 1), "blinded_message": ""}, "code"),
        ({"code": "x", "blinded_message": False}, "blinded_message"),
        ({"code": "x", "blinded_message": "AA", "signature": "AA"}, "signature"),
    ],
)
def test_the_token_request_names_its_wrong_field(data, field):
    body = BlindTokenRequestSerializer(data=data)
    assert not body.is_valid()
    assert list(body.errors) == [field]
