"""Request and response shapes of the public endpoints: what a respondent's browser needs,
and the submission it sends."""

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ... import limits, selectors
from ...models import PREFER_NOT_TO_SAY, Question, Survey, SurveyTokenKey
from ...selectors import PADDING_FIELD, languages
from ...services import schedule
from ...services.invitations import TOKEN_SCHEME
from .fields import RejectUnknownFieldsMixin
from .practice import PRACTICE_HELP, PracticeRoundSerializer

# --- public: what a respondent's browser needs --------------------------------------------


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "kind": {
                "type": "string",
                "enum": ["forced_response", "warner", "unrelated_question", "kuk", "mangat"],
            }
        },
        "required": ["kind"],
        "additionalProperties": {"type": "number"},
        "example": {"kind": "warner", "p": 0.75},
    }
)
class YesNoDesignField(serializers.DictField):
    pass


class PublicQuestionSerializer(serializers.Serializer):
    """One question and what the browser randomizes it with (static/js/designs.js).

    The members after ``epsilon`` depend on ``type``: a yes/no question has ``design``, a
    multiple-choice one ``options``, a numeric one ``min``, ``max``, ``report_min`` and
    ``report_max``.
    """

    id = serializers.IntegerField()
    text = serializers.CharField()
    required = serializers.BooleanField(
        help_text="False: the respondent may skip it; the submission then has no key for it."
    )
    type = serializers.ChoiceField(
        choices=Question.Kind.choices,
        help_text="What is sent for it: `yes_no` a boolean, `choice` an option index, "
        "`numeric` an integer.",
    )
    epsilon = serializers.FloatField(
        help_text="Its privacy loss, as the privacy ledger charges it. For `choice` and "
        "`numeric` also the exact parameter the browser samples with: read as the decimal it "
        "prints as (1.0986122886681098 is that rational, not ln 3)."
    )
    design = YesNoDesignField(
        required=False,
        help_text="`yes_no` only: the design, `kind` and its parameters under dpengine's names "
        "(`forced_response`: the survey's coins `p_truth`, `p_forced_yes`; `warner`: `p`; "
        "`unrelated_question`: `p`, `pi`; `kuk`: `theta1`, `theta2`; `mangat`: `p`, `t`).",
    )
    options = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="`choice` only: the option labels, in the language of the texts; the "
        "submission sends an index into this list (0 is the first).",
    )
    min = serializers.IntegerField(
        required=False, help_text="`numeric` only: an answer below is sent as `min` plus noise."
    )
    max = serializers.IntegerField(
        required=False, help_text="`numeric` only: an answer above is sent as `max` plus noise."
    )
    direct = serializers.BooleanField(
        required=False,
        help_text="Present and true for a question asked directly: the submission sends the "
        "answer itself, not a randomized report (yes/no a boolean, choice an option index, "
        "numeric a whole number in [`min`, `max`], text the answer's UTF-8 bytes padded with "
        "NUL bytes to `max_bytes` and base64url-encoded). `epsilon` is then null.",
    )
    max_bytes = serializers.IntegerField(
        required=False, help_text="`text` only: the most bytes of UTF-8 an answer may have."
    )
    report_min = serializers.IntegerField(
        required=False,
        help_text="`numeric` only: the lowest report accepted (`min` less about 20.7 noise "
        "scales, where an honest report has probability below 1e-9); a report drawn below it "
        "is sent as `report_min`.",
    )
    report_max = serializers.IntegerField(
        required=False,
        help_text="`numeric` only: the highest report accepted; a report drawn above it is "
        "sent as `report_max`.",
    )

    def to_representation(self, question):
        survey = self.context["survey"]
        parameters = selectors.browser_parameters(question, survey=survey)
        # None for a direct question: no ε covers it (``direct`` says so).
        epsilon = self.context["epsilons"].get(question.pk)
        data = {
            "id": question.pk,
            "text": question.text,
            "required": question.required,
            "type": question.kind,
            "epsilon": epsilon,
        }
        # The browser's parameters, but epsilon as the number above: json writes a float as
        # its repr, the decimal string browser_parameters gives, which exact.js reads alike.
        data.update({key: value for key, value in parameters.items() if key != "epsilon"})
        return data


class PublicGroupingOptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()


class PublicGroupingQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    required = serializers.BooleanField(
        help_text="False: the respondent may skip it (no key in `groups`). Required or not, "
        f'"{PREFER_NOT_TO_SAY}" is always an accepted answer ("Prefer not to say").'
    )
    options = PublicGroupingOptionSerializer(many=True, source="options.all")


class PublicSurveySerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    intro = serializers.CharField()
    language = serializers.CharField(
        help_text="The language of the texts here: the requested one (`?lang=`, else the "
        "browser's Accept-Language) when the survey is offered in it, else `default_language`."
    )
    default_language = serializers.SerializerMethodField(
        help_text="The language the survey is written in."
    )
    languages = serializers.SerializerMethodField(
        help_text="The languages the survey is offered in, `default_language` first."
    )
    status = serializers.ChoiceField(choices=Survey.Status.choices)
    accepting_responses = serializers.SerializerMethodField(
        help_text="A pilot, or an open survey within its schedule (`opens_at`, `closes_at`)."
    )
    pilot = serializers.BooleanField(
        source="is_pilot",
        help_text="A pilot: responses are taken to test the survey and discarded before the "
        "real study; the page says so.",
    )
    opens_at = serializers.DateTimeField(allow_null=True)
    closes_at = serializers.DateTimeField(allow_null=True)
    consent_text = serializers.CharField(
        help_text="When not empty, show it first; the questions appear once it is accepted."
    )
    consent_version = serializers.IntegerField()
    p_truth = serializers.FloatField()
    p_forced_yes = serializers.FloatField()
    epsilon_per_answer = serializers.SerializerMethodField(
        help_text="The privacy loss of one answer randomized with the survey's two coins "
        "(`p_truth`, `p_forced_yes`); each question's own is its `epsilon`."
    )
    epsilon_total = serializers.SerializerMethodField(
        help_text="The privacy ledger's total: the sum of every question's `epsilon`, what a "
        "respondent who answers them all gives up (sequential composition)."
    )
    questions = serializers.SerializerMethodField()
    grouping_questions = PublicGroupingQuestionSerializer(
        many=True,
        source="grouping_questions.all",
        help_text="Multiple-choice questions answered as given, NOT randomized; epsilon does "
        "not cover them. Each answered one has one option id, or "
        f'"{PREFER_NOT_TO_SAY}", in the submission\'s `groups`; optional ones may be left out.',
    )

    design_fingerprint = serializers.SerializerMethodField(
        help_text="Names the coins and questions this definition randomizes with; send it back "
        "with the submission. It never changes once the survey has opened."
    )
    shared_devices = serializers.BooleanField(
        help_text="True when several people answer on one device: the browser keeps nothing "
        "about a respondent after a successful send."
    )
    shuffle_questions = serializers.BooleanField(
        help_text="True when the browser shows the questions in its own random order (drawn "
        "with crypto.getRandomValues, never sent); grouping questions keep their places."
    )
    comprehension = serializers.SerializerMethodField(help_text=PRACTICE_HELP)
    access = serializers.ChoiceField(
        choices=Survey.Access.choices,
        help_text="Who may answer: `link` (anyone with it), `invitation` (only with a token "
        "obtained with an invitation's code) or `both`.",
    )
    token_key = serializers.SerializerMethodField(
        help_text="The survey's RSA public key for invitation tokens, SubjectPublicKeyInfo DER "
        "in base64url; null when `access` is `link`. Made once and never replaced: finalize "
        "and check every token with this key, never with one from elsewhere."
    )
    token_scheme = serializers.SerializerMethodField(
        help_text='`"RSABSSA-SHA384-PSS-Randomized"` (RFC 9474) when `token_key` is set.'
    )
    submission_length = serializers.SerializerMethodField(
        help_text="The length in bytes every submission body of this survey is padded to "
        "with spaces in `padding`, so that a body's size says nothing about what was answered "
        "or skipped: the widest body the survey can receive (no spaces between JSON tokens)."
    )

    def get_epsilon_per_answer(self, survey) -> float:
        return selectors.survey_design(survey=survey).epsilon

    def get_epsilon_total(self, survey) -> float:
        return self._ledger(survey).total_epsilon

    @extend_schema_field(PublicQuestionSerializer(many=True))
    def get_questions(self, survey):
        ledger = self._ledger(survey)
        context = {
            "survey": survey,
            "epsilons": {entry.question_id: entry.epsilon for entry in ledger.entries},
        }
        return PublicQuestionSerializer(survey.questions.all(), many=True, context=context).data

    @extend_schema_field(PracticeRoundSerializer(many=True))
    def get_comprehension(self, survey) -> list:
        return selectors.practice_rounds(survey=survey)

    def _ledger(self, survey):
        # Both the total and each question's epsilon come from one ledger per survey.
        # A page that summed it already passes it in the context ("ledger").
        cached = getattr(self, "_ledger_of", None)
        if cached is None or cached[0] is not survey:
            given = self.context.get("ledger")
            cached = (
                survey,
                given if given is not None else selectors.privacy_ledger(survey=survey),
            )
            self._ledger_of = cached
        return cached[1]

    def get_default_language(self, survey) -> str:
        # Set on a survey read through languages.survey_for_respondent (texts localized).
        return getattr(survey, "default_language", survey.language)

    def get_languages(self, survey) -> list[str]:
        offered = getattr(survey, "languages", None)
        return offered if offered is not None else languages.survey_languages(survey=survey)

    def get_design_fingerprint(self, survey) -> str:
        return selectors.survey_design_fingerprint(survey=survey)

    def get_token_key(self, survey) -> str | None:
        if survey.access == Survey.Access.LINK:
            return None
        key = SurveyTokenKey.objects.filter(survey_id=survey.pk).values_list(
            "public_key", flat=True
        )
        return key.first()

    def get_token_scheme(self, survey) -> str | None:
        return TOKEN_SCHEME if self.get_token_key(survey) else None

    def get_submission_length(self, survey) -> int:
        return selectors.submission_length(
            # The hidden comprehension answers are padded for like any other.
            questions=[
                *survey.questions.all(),
                *selectors.comprehension_questions(survey=survey),
            ],
            grouping_questions=list(survey.grouping_questions.all()),
            design_fingerprint=self.get_design_fingerprint(survey),
            token_key=self.get_token_key(survey),
        )

    def get_accepting_responses(self, survey) -> bool:
        return schedule.accepts_responses(survey)

    def to_representation(self, survey):
        data = super().to_representation(survey)
        if survey.status == Survey.Status.CLOSED:
            # Nothing left to answer: a closed survey's questions are not published any more.
            data["questions"], data["grouping_questions"] = [], []
            data["comprehension"] = []
        return data


class ReportField(serializers.Field):
    """One randomized report: a boolean (yes/no) or an integer (choice: option index; numeric:
    the noisy number). JSON types are not coerced: 1 is not true, 1.0 and "1" are neither."""

    default_error_messages = {"invalid": _("Must be true, false or a whole number.")}

    def to_internal_value(self, data):
        # bool is an int in Python: both pass here, and the service checks which one the
        # question takes (a boolean for yes/no only), naming answers.<question id>.
        if isinstance(data, int):
            return data
        self.fail("invalid")

    def to_representation(self, value):
        return value


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {"oneOf": [{"type": "boolean"}, {"type": "integer"}]},
        "example": {"17": True, "18": False, "19": 2, "20": 23},
    }
)
class AnswersField(serializers.DictField):
    child = ReportField()


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {"type": "string", "pattern": f"^([0-9]+|{PREFER_NOT_TO_SAY})$"},
        "example": {"3": "12", "4": PREFER_NOT_TO_SAY},
    }
)
class GroupsField(serializers.DictField):
    child = serializers.CharField(max_length=20)


class TokenSerializer(serializers.Serializer):
    message = serializers.CharField(
        help_text="The prepared message (RFC 9474 §4.1: 32 random bytes, then the 32-byte "
        "message), base64url without padding."
    )
    signature = serializers.CharField(
        help_text="The finalized blind signature (RSASSA-PSS, SHA-384), base64url."
    )


class BlindTokenRequestSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The invitation's code, from its personal link.")
    blinded_message = serializers.CharField(
        help_text="RFC 9474 §4.2 Blind's output under the definition's `token_key`, base64url."
    )


class BlindSignatureSerializer(serializers.Serializer):
    blind_signature = serializers.CharField(
        help_text="RFC 9474 §4.3 BlindSign's output, base64url."
    )


class SubmissionSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """The submission body as the OpenAPI schema documents it.

    The endpoint does not run it: every respondent calls the endpoint, and running this
    serializer (DRF deep-copies its fields for every instance) took about 15% of the endpoint's
    throughput (``bench/bench_submissions.py``). ``submission_fields`` checks which
    fields a body has, and ``services.submission_receive`` checks their values, against the
    survey (question ids, every question answered, survey state), with messages that name the
    field. Anything beyond the randomized bits is refused: a client must not leak more than
    they carry.
    """

    submission_id = serializers.UUIDField(help_text="Generated by the client; retries reuse it.")
    answers = AnswersField(
        help_text="Question id -> the RANDOMIZED report, never the true answer: a boolean for "
        "a `yes_no` question, an option index (0 to k - 1) for `choice`, an integer for "
        "`numeric` (the clamped answer plus noise, so it may fall outside `min`..`max`). Any "
        "other JSON type (a float, a string, a boolean for a typed question, an integer for "
        "a yes/no one) is a 400 naming `answers.<question id>`. Every required question has a "
        "key; a skipped optional question has none (a missing required one is a 400 naming "
        "`answers.<question id>`)."
    )
    groups = GroupsField(
        required=False,
        help_text="Grouping question id -> chosen option id, or "
        f'"{PREFER_NOT_TO_SAY}", sent as given (not randomized). Every required grouping '
        "question has a key (a missing one is a 400 naming `groups.<id>`); a skipped optional "
        "one has none.",
    )
    design_fingerprint = serializers.CharField(
        required=False,
        help_text="The `design_fingerprint` of the survey definition the answers were "
        "randomized with. Optional; when present and not the survey's, the submission is "
        "refused with 409 and nothing is stored (reload the definition).",
    )
    token = TokenSerializer(
        required=False,
        help_text="An invitation survey's one-time token (docs/invitations.md): required when "
        "`access` is `invitation` (403 naming `token` without it), optional when `both`, "
        "ignored when `link`. Malformed or not signed with the survey's `token_key`: 400 "
        "naming `token`; spent on another submission: 409. A retry with the same "
        "`submission_id` and token answers as the first time did.",
    )
    padding = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=limits.SUBMISSION_PADDING_MAX_LENGTH,
        help_text="Spaces only, ignored: the respondent page adds as many as make the body "
        "`submission_length` bytes long, so every body of a survey has one size.",
    )


def submission_fields(data) -> dict:
    """The keyword arguments for ``services.submission_receive`` from a submission body.

    The body must be an object with exactly ``SubmissionSerializer``'s fields, the required
    ones present; the values go on as sent (the service validates them).
    """
    if not isinstance(data, dict):
        message = serializers.Serializer.default_error_messages["invalid"].format(
            datatype=type(data).__name__
        )
        raise serializers.ValidationError({"non_field_errors": [message]})
    declared = SubmissionSerializer._declared_fields
    unknown = sorted(str(key) for key in data.keys() - declared.keys())
    if unknown:
        raise serializers.ValidationError({unknown[0]: [_("Unknown field.")]})
    missing = [name for name, field in declared.items() if field.required and name not in data]
    if missing:
        raise serializers.ValidationError(
            {name: [serializers.Field.default_error_messages["required"]] for name in missing}
        )
    if PADDING_FIELD in data:
        data = dict(data)
        _check_padding(data.pop(PADDING_FIELD))
    return data


def _check_padding(padding):
    """Padding carries nothing: spaces only, at most SUBMISSION_PADDING_MAX_LENGTH of them."""
    if not isinstance(padding, str) or padding.strip(" "):
        raise serializers.ValidationError({PADDING_FIELD: [_("Must be spaces only.")]})
    if len(padding) > limits.SUBMISSION_PADDING_MAX_LENGTH:
        raise serializers.ValidationError(
            {
                PADDING_FIELD: [
                    _("At most %(max)d characters, got %(n)d.")
                    % {"max": limits.SUBMISSION_PADDING_MAX_LENGTH, "n": len(padding)}
                ]
            }
        )


class SubmissionAcceptedSerializer(serializers.Serializer):
    submission_id = serializers.UUIDField()
    status = serializers.CharField()
