"""Response shapes of the public endpoints: what a respondent's browser needs to show a
survey and randomize its answers (the submission it sends: ``submissions``)."""

from django.utils import translation
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ... import selectors
from ...designs import design_kinds, design_rows
from ...models import PREFER_NOT_TO_SAY, Question, Survey, SurveyTokenKey
from ...selectors import languages
from ...services import schedule
from ...services.invitations import TOKEN_SCHEME
from .practice import PRACTICE_HELP, PracticeRoundSerializer

# --- public: what a respondent's browser needs --------------------------------------------


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "kind": {
                "type": "string",
                "enum": list(design_kinds()),
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
        "(the survey's coins are `forced_response`; "
        + "; ".join(
            f"`{row.kind}`: " + ", ".join(f"`{name}`" for name in row.parameters)
            for row in design_rows()
        )
        + ").",
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
    compare_direct = serializers.BooleanField(
        required=False,
        help_text="Present when true: in the control group asked directly; the report is a "
        "code, 0/1 the randomized report no/yes, 2/3 the direct answer no/yes.",
    )
    procedure = serializers.ChoiceField(
        choices=["respondent"],
        required=False,
        help_text="Present for a question the respondent carries out: the browser draws the "
        "design's outcome, shows it as an instruction, and sends the answer pressed (for `cdm` "
        "and `sld`, as the code of the group drawn). Absent: the browser randomizes the true "
        "answer itself.",
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
        if question.pinned:
            data["pinned"] = True  # kept in its place when the page shuffles
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

    def get_control_share(self, survey) -> str:
        return repr(float(survey.control_share))

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
    control_share = serializers.SerializerMethodField(
        help_text="The chance that the browser asks the `compare_direct` questions directly, "
        'as the exact decimal it draws with ("0.0": none); drawn once, sent in the codes.'
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
        # The practice texts in the language of the survey's texts here, as the questions.
        with translation.override(survey.language):
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
