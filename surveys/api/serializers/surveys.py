"""Request and response shapes of the researcher's surveys and their estimates. Types and
ranges are checked here; meaning (design validity, frozen surveys, question ids of a survey)
is checked by the services."""

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ... import limits, selectors
from ...designs import design_kinds
from ...models import CI_METHODS, Question, Survey
from ...selectors import languages
from ...selectors.warnings import MIN_N_ABOVE_INVITED, survey_warnings
from ...services import schedule
from .fields import (
    ConfidenceField,
    ProbabilityField,
    RejectUnknownFieldsMixin,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
)
from .question_types import (
    SPEC_SOURCES,
    TYPE_SPEC_FIELDS,
    CompareDirectField,
    DesignField,
    EpsilonField,
    MaximumField,
    MinimumField,
    OptionsField,
    ProcedureField,
    QuestionTypeField,
    RandomizedField,
)

# --- researcher: surveys ------------------------------------------------------------------


def _translations_schema(fields, example, *, lists=None):
    """``lists``: ``{field: description}`` of fields translated as a list of texts."""
    properties = {name: {"type": "string"} for name in fields}
    for name, description in (lists or {}).items():
        properties[name] = {
            "type": "array",
            "items": {"type": "string"},
            "description": description,
        }
    return {
        "type": "object",
        "description": "Texts in the site's other languages (en, ko, zh-hans; not the "
        "survey's own `language`): language code -> {field: text}. Writing replaces the "
        "object's translations whole; a blank or missing text is untranslated. A language is "
        "offered to respondents once every text of the survey has its translation.",
        "additionalProperties": {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        },
        "example": example,
    }


@extend_schema_field(
    _translations_schema(
        ["text"],
        {"ko": {"text": "...", "options": ["...", "..."]}},
        lists={
            "options": "A multiple-choice question's option labels, in the order of `options` "
            "and as many; a blank label is untranslated."
        },
    )
)
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
    text = StrictCharField(max_length=limits.QUESTION_TEXT_MAX_LENGTH)
    required = StrictBooleanField(
        default=True,
        help_text="Whether a respondent must answer it (default true). A respondent who skips "
        "an optional question sends nothing for it; its estimate uses only the reports it got.",
    )
    translations = QuestionTranslationsField(
        required=False,
        help_text='The question\'s text in other languages: {"ko": {"text": ..., "options": '
        "[...]}} (`options`: a multiple-choice question's labels). Frozen with the questions "
        "at the first opening.",
    )
    type = QuestionTypeField(source="kind")
    randomized = RandomizedField()
    design = DesignField()
    options = OptionsField()
    min = MinimumField(source="min_value")
    max = MaximumField(source="max_value")
    epsilon = EpsilonField()
    compare_direct = CompareDirectField()
    procedure = ProcedureField()
    pinned = StrictBooleanField(
        default=False,
        help_text="True: kept where it is when the survey shuffles its questions "
        "(`shuffle_questions`), e.g. a closing comment last; the others are shuffled among "
        "the remaining places.",
    )
    design_name = serializers.SerializerMethodField(
        help_text="The question's randomization: a yes/no design's kind (`forced_response` "
        "for the survey's coins, "
        + ", ".join(f"`{kind}`" for kind in design_kinds() if kind != "forced_response")
        + "; `cdm`, `sld` for cheating detection, whose `epsilon` is null), or `choice` / "
        "`numeric`; `direct` for a question asked directly."
    )

    def get_design_name(self, question) -> str:
        return selectors.design_name(question)

    def to_representation(self, question):
        data = super().to_representation(question)
        used = TYPE_SPEC_FIELDS.get(question.kind, ())
        for name in SPEC_SOURCES:
            if name not in used:
                data[name] = None
        if not question.randomized:
            data["design"] = data["epsilon"] = data["procedure"] = None
        elif selectors.is_cheating_detection(question):
            data["epsilon"] = None  # no finite ε: see the ledger's one-sided bound
        elif question.kind == Question.Kind.YES_NO:
            data["epsilon"] = selectors.question_mechanism(question, survey=question.survey).epsilon
        return data

    def validate(self, attrs):
        # PATCH makes fields optional down to nested ones, but a question in the list replaces
        # an old one whole: it needs its text.
        if "text" not in attrs:
            raise serializers.ValidationError({"text": [_("This field is required.")]})
        return attrs


class SurveyWarningSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=[MIN_N_ABOVE_INVITED])
    message = serializers.CharField()


class SurveySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A survey as the researcher sees it; also the body of create (POST) and update (PATCH)."""

    id = serializers.IntegerField(read_only=True)
    slug = serializers.CharField(read_only=True)
    title = StrictCharField(max_length=limits.TITLE_MAX_LENGTH)
    intro = StrictCharField(max_length=limits.INTRO_MAX_LENGTH, allow_blank=True, required=False)
    language = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)
    status = serializers.ChoiceField(choices=Survey.Status.choices, read_only=True)
    p_truth = ProbabilityField(help_text="Probability that coin 1 says 'answer truthfully'.")
    p_forced_yes = ProbabilityField(help_text="Probability that coin 2 forces 'yes'.")
    confidence = ConfidenceField(required=False)
    ci_method = serializers.ChoiceField(choices=CI_METHODS, required=False)
    min_n = StrictIntegerField(min_value=0, max_value=limits.MIN_N_MAX, required=False)
    shared_devices = StrictBooleanField(
        required=False,
        help_text="Several people answer on one device (lab tablet, kiosk, family computer): "
        "the browser keeps nothing about a respondent after a successful send, so the next "
        "person draws fresh coins. Default false: a retake in the same browser replays the "
        "first submission and is stored once.",
    )
    shuffle_questions = StrictBooleanField(
        required=False,
        help_text="Each respondent's browser shows the questions in its own random order, drawn "
        "there and never sent; grouping questions keep their places. Results and exports keep "
        "the survey's order. Part of the frozen design. Default false.",
    )
    control_share = StrictFloatField(
        required=False,
        min_value=0,
        max_value=limits.CONTROL_SHARE_MAX,
        help_text="A direct-questioning control group (split ballot): the chance, from 0 (none, "
        "the default) to 0.5, that a respondent's browser asks the questions marked "
        "`compare_direct` directly instead of randomized. The browser sends which it did; "
        "results compare the two (docs/researchers.md). Part of the frozen design.",
    )
    comprehension_check = StrictBooleanField(
        required=False,
        help_text="Before the questions, each respondent practises one round of every yes/no "
        "design the questions use, with feedback; whether the first try was right is sent as a "
        "direct answer (one per design, counted only in aggregate: `comprehension` in the "
        "results). Part of the frozen design. Default false.",
    )
    access = serializers.ChoiceField(
        choices=Survey.Access.choices,
        required=False,
        help_text="Who may answer: `link` (default: anyone with the link), `invitation` (only "
        "invitees, each once, with a one-time token; docs/invitations.md) or `both`. Part of "
        "the design: frozen once the survey has opened (409 naming `access`).",
    )
    release_batch = StrictIntegerField(
        min_value=1,
        max_value=limits.RELEASE_BATCH_MAX,
        allow_null=True,
        required=False,
        help_text="Responses become visible to every researcher view (results, exports, the "
        "API, counts) in batches of at least this many, all at once, their rows stored again "
        'in random order (docs/invitations.md, "Batches"). Null: the default, '
        f"{limits.RELEASE_BATCH_INVITATION} for a survey that takes invitations and 1 (no "
        "batches) for a link survey; `batch_size` is the value in force. A survey that takes "
        f"invitations opens only with at least {limits.RELEASE_BATCH_MIN} (400 naming "
        "`release_batch`). Part of the frozen design (409 once opened). A pilot is not "
        "batched.",
    )
    batch_size = serializers.IntegerField(
        read_only=True, help_text="The batch size in force: `release_batch`, or its default."
    )
    held_responses = serializers.SerializerMethodField(
        help_text="Once the survey takes no more responses: how many its last batch holds, "
        "not yet visible anywhere (release them with `release-batch`); null while it takes "
        "responses, when a count that moves by one would say when each person answered."
    )
    epsilon = serializers.SerializerMethodField(
        help_text="Privacy loss of one answer randomized with the survey's coins."
    )
    epsilon_total = serializers.SerializerMethodField(
        help_text="Privacy loss of a respondent answering every question: the sum of each "
        "question's `epsilon` (the privacy ledger)."
    )
    response_count = serializers.IntegerField(read_only=True)
    question_count = serializers.SerializerMethodField(
        help_text="The questions the researcher wrote (`questions`): the practice rounds of "
        "`comprehension_check` are not questions and are counted in `practice_rounds`."
    )
    practice_rounds = serializers.SerializerMethodField(
        help_text="Practice rounds each respondent is offered before the questions (one per "
        "yes/no design, when `comprehension_check` is true); 0 without."
    )
    warnings = serializers.SerializerMethodField(
        help_text="Settings that will keep results from being shown, each with a `code` "
        "(`min_n_above_invited`: `min_n` is more than the people invited) and a `message`."
    )
    questions_locked = serializers.BooleanField(
        source="is_frozen",
        read_only=True,
        help_text="True once the survey has been opened: questions and coins can no longer "
        "change (duplicate the survey instead).",
    )
    questions = QuestionSerializer(many=True, max_length=limits.MAX_QUESTIONS)
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
        max_length=limits.CONSENT_MAX_LENGTH,
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
        max_value=limits.RESPONSE_TARGET_MAX,
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
    time_zone = serializers.CharField(
        read_only=True,
        help_text="Set with the schedule endpoint: the IANA time zone (`Asia/Seoul`) the "
        "schedule is shown in, on the pages and to respondents; empty until chosen (UTC).",
    )
    accepting_responses = serializers.SerializerMethodField(
        help_text="Whether the respondent link takes responses now: a pilot, or an open survey "
        "within its schedule."
    )
    respond_url = serializers.SerializerMethodField(help_text="The respondents' link.")
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)
    role = serializers.SerializerMethodField(
        help_text="Your role on this survey: `owner`, `editor` or `viewer` (docs/researchers.md, "
        '"Co-researchers").'
    )

    @extend_schema_field(serializers.ChoiceField(choices=["owner", "editor", "viewer"]))
    def get_role(self, survey) -> str:
        role = getattr(survey, "access_role", None)
        request = self.context.get("request")
        if role is None and request is not None:
            role = selectors.survey_role(survey=survey, user=request.user)
        return role or selectors.OWNER

    def get_question_count(self, survey) -> int:
        return len(survey.questions.all())

    def get_practice_rounds(self, survey) -> int:
        return len(selectors.comprehension_questions(survey=survey))

    @extend_schema_field(SurveyWarningSerializer(many=True))
    def get_warnings(self, survey) -> list[dict]:
        return [
            {"code": warning.code, "message": warning.message}
            for warning in survey_warnings(survey=survey)
        ]

    def get_epsilon(self, survey) -> float:
        return selectors.survey_design(survey=survey).epsilon

    def get_epsilon_total(self, survey) -> float:
        return selectors.privacy_ledger(survey=survey).total_epsilon

    def get_languages(self, survey) -> list[str]:
        return languages.survey_languages(survey=survey)

    def get_held_responses(self, survey) -> int | None:
        if schedule.accepts_responses(survey):
            return None
        return selectors.held_responses(survey=survey)

    def get_accepting_responses(self, survey) -> bool:
        return schedule.accepts_responses(survey)

    def get_respond_url(self, survey) -> str:
        path = reverse("surveys:respond", kwargs={"slug": survey.slug})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    def service_arguments(self):
        """validated_data as the services take it: plain fields, and questions as
        ``{"text", "required", "type", ...}`` (the type spec as sent, for the services to
        check)."""
        data = dict(self.validated_data)
        if "questions" in data:
            data["question_translations"] = [
                question.get("translations") for question in data["questions"]
            ]
            data["questions"] = [question_spec(question) for question in data["questions"]]
        return data


def question_spec(question) -> dict:
    """One question of a request as ``services.survey_create`` takes it."""
    spec = {"text": question["text"], "required": question.get("required", True)}
    if "pinned" in question:
        spec["pinned"] = question["pinned"]
    for name, source in SPEC_SOURCES.items():
        if source in question:
            spec[name] = question[source]
    if spec.get("type") in (None, Question.Kind.YES_NO) and spec.get("randomized") is not False:
        # Read-only for yes/no (the design's ε): an echoed value is ignored, as read-only
        # fields are.
        spec.pop("epsilon", None)
    return spec


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
    time_zone = StrictCharField(
        required=False,
        allow_blank=True,
        default=None,
        max_length=limits.TIME_ZONE_MAX_LENGTH,
        help_text="The IANA time zone (`Asia/Seoul`, `UTC`) in which the pages and the respondent "
        "page show the schedule; omitted: unchanged. The times themselves are instants (give an "
        "offset, e.g. `2026-12-01T09:00:00+09:00`; without one they are UTC).",
    )


class BatchReleaseSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    responses = StrictIntegerField(
        min_value=1,
        help_text="How many responses the last batch holds, as `held_responses` said: the "
        "release goes ahead only if it still holds that many (409 naming `responses` "
        "otherwise).",
    )


class BatchReleasedSerializer(serializers.Serializer):
    released = serializers.IntegerField(help_text="Responses made visible.")
    survey = SurveySerializer()


class PilotDiscardedSerializer(serializers.Serializer):
    discarded = serializers.IntegerField(help_text="Pilot responses deleted.")
    survey = SurveySerializer()
