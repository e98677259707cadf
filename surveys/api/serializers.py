"""Request and response shapes of the API. Types and ranges are checked here; meaning (design
validity, frozen surveys, question ids of a survey) is checked by the services."""

import math

from django.conf import settings
from django.contrib.auth import authenticate
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, serializers

from .. import languages, schedule, selectors, services
from ..login_throttle import login_block
from ..models import CI_METHODS, PREFER_NOT_TO_SAY, Survey

# --- strict scalar fields: JSON types are not coerced (true is not 1, "0.5" is not 0.5) ------


class StrictCharField(serializers.CharField):
    default_error_messages = {"invalid": _("Must be a string.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    default_error_messages = {"invalid": _("Must be a finite number.")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": _("Must be a whole number.")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": _("Must be true or false.")}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


@extend_schema_field(
    {
        "type": "number",
        "format": "double",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": 1,
        "exclusiveMaximum": True,
    }
)
class ProbabilityField(StrictFloatField):
    """A coin probability, strictly inside (0, 1)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not 0 < value < 1:
            raise serializers.ValidationError(
                _("Must be strictly between 0 and 1, got %(v)r.") % {"v": value}
            )
        return value


@extend_schema_field(
    {
        "type": "number",
        "format": "double",
        "minimum": 0.5,
        "maximum": 1,
        "exclusiveMaximum": True,
    }
)
class ConfidenceField(serializers.FloatField):
    """A confidence level in [0.5, 1); parses numbers, or text when it comes from a query."""

    def __init__(self, *, strict=True, **kwargs):
        self.strict = strict
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if self.strict and (isinstance(data, bool) or not isinstance(data, int | float)):
            self.fail("invalid")
        value = super().to_internal_value(data)
        if not 0.5 <= value < 1:
            raise serializers.ValidationError(
                _("Must be at least 0.5 and below 1, got %(v)r.") % {"v": value}
            )
        return value


class RejectUnknownFieldsMixin:
    """A misspelt field is an error, not silently ignored (read-only fields may be echoed back)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({unknown[0]: [_("Unknown field.")]})
        return super().to_internal_value(data)


def finite(value):
    """The number, or None when it is not finite (JSON has no inf or NaN)."""
    return value if isinstance(value, int | float) and math.isfinite(value) else None


# --- errors -------------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="A one-line summary for people.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages by field; empty when no field is at fault.",
    )


# --- tokens -------------------------------------------------------------------------------


class TokenRequestSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=4096, trim_whitespace=False)
    name = StrictCharField(
        max_length=100,
        required=False,
        allow_blank=True,
        help_text="What the token is for (a script, a machine), shown in the token list.",
    )

    def validate(self, attrs):
        block = login_block(request=self.context.get("request"), username=attrs["username"])
        if block is not None:
            raise exceptions.Throttled(wait=block.retry_after, detail=block.message())
        user = authenticate(
            self.context.get("request"), username=attrs["username"], password=attrs["password"]
        )
        if user is None:
            # One message for an unknown user and a wrong password: no account enumeration.
            raise serializers.ValidationError(
                {"password": [_("Unable to sign in with this username and password.")]}
            )
        attrs["user"] = user
        return attrs


class ApiTokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The token's first characters.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class IssuedTokenSerializer(serializers.Serializer):
    token = serializers.CharField(source="key", help_text="Shown only in this response.")
    id = serializers.IntegerField(source="token.id")
    name = serializers.CharField(source="token.name")
    created_at = serializers.DateTimeField(source="token.created_at")
    expires_at = serializers.DateTimeField(source="token.expires_at")


# --- researcher: surveys ------------------------------------------------------------------


def _translations_schema(fields, example):
    return {
        "type": "object",
        "description": "Texts in the site's other languages (en, ko, zh-hans; not the "
        "survey's own `language`): language code -> {field: text}. Writing replaces the "
        "object's translations whole; a blank or missing text is untranslated. A language is "
        "offered to respondents once every text of the survey has its translation.",
        "additionalProperties": {
            "type": "object",
            "properties": {name: {"type": "string"} for name in fields},
            "additionalProperties": False,
        },
        "example": example,
    }


@extend_schema_field(_translations_schema(["text"], {"ko": {"text": "..."}}))
class QuestionTranslationsField(serializers.Field):
    """Shape checked by ``translations.clean_translations`` (it names the bad language/field)."""

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value or {}


@extend_schema_field(
    _translations_schema(
        ["title", "intro", "consent_text"], {"ko": {"title": "...", "intro": "..."}}
    )
)
class SurveyTranslationsField(QuestionTranslationsField):
    pass


class QuestionSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    position = serializers.IntegerField(read_only=True)
    text = StrictCharField(max_length=1000)
    required = StrictBooleanField(
        default=True,
        help_text="Whether a respondent must answer it (default true). A respondent who skips "
        "an optional question sends nothing for it; its estimate uses only the reports it got.",
    )
    translations = QuestionTranslationsField(
        required=False,
        help_text='The question\'s text in other languages: {"ko": {"text": ...}}. Frozen '
        "with the questions at the first opening.",
    )

    def validate(self, attrs):
        # PATCH makes fields optional down to nested ones, but a question in the list replaces
        # an old one whole: it needs its text.
        if "text" not in attrs:
            raise serializers.ValidationError({"text": [_("This field is required.")]})
        return attrs


class SurveySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A survey as the researcher sees it; also the body of create (POST) and update (PATCH)."""

    id = serializers.IntegerField(read_only=True)
    slug = serializers.CharField(read_only=True)
    title = StrictCharField(max_length=200)
    intro = StrictCharField(max_length=5000, allow_blank=True, required=False)
    language = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)
    status = serializers.ChoiceField(choices=Survey.Status.choices, read_only=True)
    p_truth = ProbabilityField(help_text="Probability that coin 1 says 'answer truthfully'.")
    p_forced_yes = ProbabilityField(help_text="Probability that coin 2 forces 'yes'.")
    confidence = ConfidenceField(required=False)
    ci_method = serializers.ChoiceField(choices=CI_METHODS, required=False)
    min_n = StrictIntegerField(min_value=0, max_value=100000, required=False)
    shared_devices = StrictBooleanField(
        required=False,
        help_text="Several people answer on one device (lab tablet, kiosk, family computer): "
        "the browser keeps nothing about a respondent after a successful send, so the next "
        "person draws fresh coins. Default false: a retake in the same browser replays the "
        "first submission and is stored once.",
    )
    epsilon = serializers.SerializerMethodField(help_text="Privacy loss of one answer.")
    epsilon_total = serializers.SerializerMethodField(
        help_text="Privacy loss of a respondent answering every question."
    )
    response_count = serializers.IntegerField(read_only=True)
    questions_locked = serializers.BooleanField(
        source="is_frozen",
        read_only=True,
        help_text="True once the survey has been opened: questions and coins can no longer "
        "change (duplicate the survey instead).",
    )
    questions = QuestionSerializer(many=True, max_length=services.MAX_QUESTIONS)
    translations = SurveyTranslationsField(
        required=False,
        help_text='The title and intro in other languages: {"ko": {"title": ..., '
        '"intro": ...}}. Editable at any time, like the title and intro.',
    )
    languages = serializers.SerializerMethodField(
        help_text="The languages respondents are offered: the survey's own `language` first, "
        "then each language every text is translated into."
    )
    consent_text = StrictCharField(
        max_length=5000,
        allow_blank=True,
        required=False,
        help_text="Shown to respondents before the questions, which appear once they accept "
        "it; empty for none. Frozen with the questions when the survey first opens.",
    )
    consent_version = serializers.IntegerField(
        read_only=True,
        help_text="Counts the changes of `consent_text` (0: never set). Stored with the survey, "
        "not per respondent: nothing about consent is sent with a submission.",
    )
    consent_changed_at = serializers.DateTimeField(read_only=True, allow_null=True)
    response_target = StrictIntegerField(
        min_value=1,
        max_value=10_000_000,
        allow_null=True,
        required=False,
        help_text="Responses aimed for (progress only; null for none).",
    )
    opens_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="Set with the schedule endpoint: no responses before this time.",
    )
    closes_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="Set with the schedule endpoint: no responses from this time on.",
    )
    accepting_responses = serializers.SerializerMethodField(
        help_text="Whether the respondent link takes responses now: a pilot, or an open survey "
        "within its schedule."
    )
    respond_url = serializers.SerializerMethodField(help_text="The respondents' link.")
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)
    role = serializers.SerializerMethodField(
        help_text="Your role on this survey: `owner`, `editor` or `viewer` (README, "
        '"Co-researchers").'
    )

    @extend_schema_field(serializers.ChoiceField(choices=["owner", "editor", "viewer"]))
    def get_role(self, survey) -> str:
        role = getattr(survey, "access_role", None)
        request = self.context.get("request")
        if role is None and request is not None:
            role = selectors.survey_role(survey=survey, user=request.user)
        return role or selectors.OWNER

    def get_epsilon(self, survey) -> float:
        return selectors.survey_design(survey=survey).epsilon

    def get_epsilon_total(self, survey) -> float:
        return self.get_epsilon(survey) * len(survey.questions.all())

    def get_languages(self, survey) -> list[str]:
        return languages.survey_languages(survey=survey)

    def get_accepting_responses(self, survey) -> bool:
        return schedule.accepts_responses(survey)

    def get_respond_url(self, survey) -> str:
        path = reverse("surveys:respond", kwargs={"slug": survey.slug})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    def service_arguments(self):
        """validated_data as the services take it: plain fields, and questions as
        ``{"text", "required"}``."""
        data = dict(self.validated_data)
        if "questions" in data:
            data["question_translations"] = [
                question.get("translations") for question in data["questions"]
            ]
            data["questions"] = [
                {"text": question["text"], "required": question.get("required", True)}
                for question in data["questions"]
            ]
        return data


class SurveyScheduleSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    opens_at = serializers.DateTimeField(
        allow_null=True,
        required=False,
        default=None,
        help_text="When responses start (in the future), or null (the default): no opening "
        "time; a scheduled survey then takes responses at once. "
        "Setting it on a draft or pilot opens the survey for the real study right away: pilot "
        "responses are discarded and the design freezes, as opening does.",
    )
    closes_at = serializers.DateTimeField(
        allow_null=True,
        required=False,
        default=None,
        help_text="When responses stop (in the future, after `opens_at`), or null (the default).",
    )


class PilotDiscardedSerializer(serializers.Serializer):
    discarded = serializers.IntegerField(help_text="Pilot responses deleted.")
    survey = SurveySerializer()


# --- researcher: estimates ----------------------------------------------------------------


class EstimatesQuerySerializer(serializers.Serializer):
    confidence = ConfidenceField(
        strict=False, required=False, help_text="Defaults to the survey's confidence level."
    )
    method = serializers.ChoiceField(
        choices=selectors.VALID_METHODS,
        required=False,
        help_text="Interval method; defaults to the survey's.",
    )


class EstimateRowSerializer(serializers.Serializer):
    """One question's estimate; the statistics are null when suppressed or without data."""

    question_id = serializers.IntegerField()
    column = serializers.CharField(
        help_text="Q1, Q2, ... in display order: the results page's label and the exports' column."
    )
    position = serializers.IntegerField()
    text = serializers.CharField()
    n = serializers.IntegerField(source="estimate.n", help_text="Randomized reports received.")
    yes = serializers.IntegerField(source="estimate.yes", help_text="Reports that said yes.")
    yes_rate = serializers.FloatField(source="estimate.yes_rate", allow_null=True)
    estimate = serializers.FloatField(
        source="estimate.estimate",
        allow_null=True,
        help_text="Unbiased estimate of the true share; may fall outside [0, 1].",
    )
    clamped = serializers.FloatField(
        source="estimate.clamped", allow_null=True, help_text="The estimate clipped to [0, 1]."
    )
    std_error = serializers.FloatField(source="estimate.std_error", allow_null=True)
    ci_low = serializers.FloatField(source="estimate.ci_low", allow_null=True)
    ci_high = serializers.FloatField(source="estimate.ci_high", allow_null=True)
    method = serializers.CharField(source="estimate.method")
    confidence = serializers.FloatField(source="estimate.confidence")
    epsilon = serializers.FloatField(source="estimate.design.epsilon")
    suppressed = serializers.BooleanField(
        help_text="Fewer reports than the survey's min_n: the statistics are withheld."
    )

    STATISTICS = ("yes_rate", "estimate", "clamped", "std_error", "ci_low", "ci_high")

    def to_representation(self, row):
        data = super().to_representation(row)
        for name in self.STATISTICS:
            data[name] = None if row.suppressed else finite(data[name])
        return data


class SurveyEstimatesSerializer(serializers.Serializer):
    survey_id = serializers.IntegerField(source="survey.id")
    title = serializers.CharField(source="survey.title")
    status = serializers.CharField(source="survey.status")
    response_count = serializers.IntegerField(source="survey.response_count")
    min_n = serializers.IntegerField(source="survey.min_n")
    p_truth = serializers.FloatField(source="design.p_truth")
    p_forced_yes = serializers.FloatField(source="design.p_forced_yes")
    epsilon = serializers.FloatField()
    method = serializers.CharField()
    confidence = serializers.FloatField()
    generated_at = serializers.DateTimeField()
    estimates = EstimateRowSerializer(source="rows", many=True)


# --- public: what a respondent's browser needs --------------------------------------------


class PublicQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    required = serializers.BooleanField(
        help_text="False: the respondent may skip it; the submission then has no key for it."
    )


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
    epsilon_per_answer = serializers.SerializerMethodField()
    epsilon_total = serializers.SerializerMethodField()
    questions = PublicQuestionSerializer(many=True, source="questions.all")
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

    def get_epsilon_per_answer(self, survey) -> float:
        return selectors.survey_design(survey=survey).epsilon

    def get_epsilon_total(self, survey) -> float:
        return self.get_epsilon_per_answer(survey) * len(survey.questions.all())

    def get_default_language(self, survey) -> str:
        # Set on a survey read through languages.survey_for_respondent (texts localized).
        return getattr(survey, "default_language", survey.language)

    def get_languages(self, survey) -> list[str]:
        offered = getattr(survey, "languages", None)
        return offered if offered is not None else languages.survey_languages(survey=survey)

    def get_design_fingerprint(self, survey) -> str:
        return selectors.survey_design_fingerprint(survey=survey)

    def get_accepting_responses(self, survey) -> bool:
        return schedule.accepts_responses(survey)

    def to_representation(self, survey):
        data = super().to_representation(survey)
        if survey.status == Survey.Status.CLOSED:
            # Nothing left to answer: a closed survey's questions are not published any more.
            data["questions"], data["grouping_questions"] = [], []
        return data


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {"type": "boolean"},
        "example": {"17": True, "18": False},
    }
)
class AnswersField(serializers.DictField):
    child = StrictBooleanField()


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {"type": "string", "pattern": f"^([0-9]+|{PREFER_NOT_TO_SAY})$"},
        "example": {"3": "12", "4": PREFER_NOT_TO_SAY},
    }
)
class GroupsField(serializers.DictField):
    child = serializers.CharField(max_length=20)


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
        help_text="Question id -> the RANDOMIZED bit, never the true answer. Every required "
        "question has a key; a skipped optional question has none (a missing required one is "
        "a 400 naming `answers.<question id>`)."
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
    return data


class SubmissionAcceptedSerializer(serializers.Serializer):
    submission_id = serializers.UUIDField()
    status = serializers.CharField()
