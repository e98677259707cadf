"""The one length every submission body of a survey is padded to.

A body's length would otherwise say what it carries: "false" is a character longer than
"true", a negative number a character longer than a positive one, and a skipped question
leaves its key out. An observer of the encrypted request sees its length, so the respondent
page pads every body to the length of the widest body the survey can receive
(``static/js/body.js``): every question answered with its longest report, every grouping
question with its longest answer. Computed from the definition alone, so every respondent
of a survey sends the same number of bytes whatever they answered or skipped.
"""

import json

import blindrsa

from .. import limits
from ..models import PREFER_NOT_TO_SAY
from .mechanisms import CHOICE, NUMERIC, TEXT, report_range

# A client-made submission id: a UUID as text, 36 characters.
_SUBMISSION_ID = "0" * 36
# The member that carries the padding, empty in the widest body.
PADDING_FIELD = "padding"


def widest_report(question):
    """The report for ``question`` whose JSON text is longest. A text answer always has one
    length on the wire (``services.answers.text_answer_encode``): base64url, nothing that
    JSON escapes, whatever the script."""
    if question.kind == TEXT:
        return "A" * limits.DIRECT_TEXT_WIRE_LENGTH
    if question.kind in (CHOICE, NUMERIC):
        _kind, lowest, highest = report_range(question)
        return max((lowest, highest), key=lambda report: len(json.dumps(report)))
    return False  # "false" is one character longer than "true"


def _widest_group_answer(grouping_question):
    # Sent as text: an option id, or PREFER_NOT_TO_SAY.
    options = [str(option.pk) for option in grouping_question.options.all()]
    return max([PREFER_NOT_TO_SAY, *options], key=len)


def submission_length(*, questions, grouping_questions, design_fingerprint, token_key=None) -> int:
    """The length in bytes of the widest submission body (UTF-8; every character is ASCII),
    with the padding member present and empty: what every body is padded to. With a
    ``token_key`` (an invitation survey) the widest body carries a token, which is always
    as long (a 64-byte prepared message, a signature of the modulus' length), so a body
    with a token and one without have one length too."""
    body = {
        "submission_id": _SUBMISSION_ID,
        "answers": {str(question.pk): widest_report(question) for question in questions},
        "design_fingerprint": design_fingerprint,
        # The order shown: the same ids whatever the order, so one length.
        "order": [question.pk for question in questions],
    }
    if grouping_questions:
        # The page sends "groups" only when the survey asks grouping questions.
        body["groups"] = {str(gq.pk): _widest_group_answer(gq) for gq in grouping_questions}
    if token_key:
        signature = blindrsa.modulus_length(blindrsa.public_key_decode(token_key))
        body["token"] = {
            "message": blindrsa.b64url_encode(bytes(limits.TOKEN_PREPARED_MESSAGE_BYTES)),
            "signature": blindrsa.b64url_encode(bytes(signature)),
        }
    body[PADDING_FIELD] = ""
    # As JSON.stringify writes it: no spaces.
    return len(json.dumps(body, separators=(",", ":")).encode())
