"""Request and response shapes of a survey's estimates: one row per question, by type.

Every row has ``type`` (``yes_no``, ``choice``, ``numeric``), its ``design`` and ``epsilon``;
then a yes/no row the share answering yes, a multiple-choice row one entry per option and a
numeric row its mean and share above a threshold. Statistics are null when the question is
suppressed (fewer reports than ``min_n``) or has no reports.

Every statistic's ``estimate`` is the headline the results page shows and lies inside
``[ci_low, ci_high]`` (``selectors.headline``: the clamped estimate, or a choice option's
consistent share); ``unbiased`` is the unbiased estimate, which may fall outside.
"""

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from ... import selectors
from ...models import Question
from .cheating import CheatingEstimateSerializer
from .fields import ConfidenceField, finite
from .practice import ComprehensionResultSerializer
from .rows import QuestionRowSerializer

STATISTICS = ("estimate", "unbiased", "clamped", "std_error", "ci_low", "ci_high")


class EstimatesQuerySerializer(serializers.Serializer):
    confidence = ConfidenceField(
        strict=False, required=False, help_text="Defaults to the survey's confidence level."
    )
    method = serializers.ChoiceField(
        choices=selectors.VALID_METHODS,
        required=False,
        help_text="Interval method of yes/no and multiple-choice questions; defaults to the "
        "survey's.",
    )


def _statistics(value, hidden):
    """``estimate`` and ``ci_low``/``ci_high``: the headline and the interval shown with it;
    ``unbiased``, ``clamped``, ``std_error`` as computed."""
    shown = selectors.headline(value)
    values = {
        "estimate": shown.estimate,
        "unbiased": value.estimate,
        "clamped": value.clamped,
        "std_error": value.std_error,
        "ci_low": shown.ci_low,
        "ci_high": shown.ci_high,
    }
    return {name: None if hidden else finite(values[name]) for name in STATISTICS}


class YesNoEstimateSerializer(QuestionRowSerializer):
    """A yes/no question's share answering yes, under the question's own design."""

    yes = serializers.IntegerField(source="estimate.yes", help_text="Reports that said yes.")
    yes_rate = serializers.FloatField(source="estimate.yes_rate", allow_null=True)
    estimate = serializers.FloatField(
        source="estimate.clamped",
        allow_null=True,
        help_text="The estimate shown: the unbiased estimate clipped to [0, 1]; always inside "
        "[ci_low, ci_high].",
    )
    unbiased = serializers.FloatField(
        source="estimate.estimate",
        allow_null=True,
        help_text="Unbiased estimate of the true share; may fall outside [0, 1] (and then "
        "outside the interval). Average or pool these, not the clipped ones.",
    )
    clamped = serializers.FloatField(
        source="estimate.clamped", allow_null=True, help_text="Same as estimate (kept for clients)."
    )
    std_error = serializers.FloatField(source="estimate.std_error", allow_null=True)
    ci_low = serializers.FloatField(source="estimate.ci_low", allow_null=True)
    ci_high = serializers.FloatField(source="estimate.ci_high", allow_null=True)
    method = serializers.CharField(
        source="estimate.method",
        help_text="The interval method used: the requested one where it keeps the level at this "
        "n, else exact (Clopper-Pearson).",
    )
    requested_method = serializers.CharField(
        source="estimate.requested_method",
        help_text="The interval method asked for (the query's method or the survey's).",
    )
    confidence = serializers.FloatField(source="estimate.confidence")

    def to_representation(self, row):
        data = super().to_representation(row)
        for name in ("yes_rate", *STATISTICS):
            data[name] = None if row.suppressed else finite(data[name])
        return data


class OptionEstimateSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The option's place from 0: what a report holds.")
    label = serializers.CharField()
    reports = serializers.IntegerField(source="count", help_text="Reports of this option.")
    estimate = serializers.FloatField(
        allow_null=True,
        help_text="The share shown: the consistent share (the unbiased shares projected onto "
        "the probability simplex); the k estimates are >= 0 and sum to 1.",
    )
    unbiased = serializers.FloatField(
        allow_null=True, help_text="Unbiased share; the k shares sum to 1 and may leave [0, 1]."
    )
    clamped = serializers.FloatField(
        allow_null=True, help_text="The unbiased share clipped to [0, 1]; need not sum to 1."
    )
    std_error = serializers.FloatField(allow_null=True, help_text="Of the unbiased share.")
    ci_low = serializers.FloatField(
        allow_null=True,
        help_text="The simultaneous (Bonferroni) interval, widened to contain estimate when "
        "the projection moved it outside (then widened is true).",
    )
    ci_high = serializers.FloatField(allow_null=True)
    widened = serializers.BooleanField()


class ChoiceEstimateSerializer(QuestionRowSerializer):
    """A multiple-choice question's k option shares with simultaneous intervals."""

    options = serializers.SerializerMethodField()
    shares = serializers.SerializerMethodField(
        help_text="The unbiased shares in option order (each option's `unbiased`); null when "
        "withheld."
    )
    consistent_shares = serializers.SerializerMethodField(
        help_text="The consistent shares in option order (each option's `estimate`): >= 0, "
        "summing to 1; null when withheld."
    )
    method = serializers.CharField(
        source="estimate.method",
        help_text="The interval method used: the requested one where Bonferroni's inequality "
        "shows it holds jointly at this n, else exact (Clopper-Pearson).",
    )
    requested_method = serializers.CharField(
        source="estimate.requested_method",
        help_text="The interval method asked for (the query's method or the survey's).",
    )
    confidence = serializers.FloatField(
        source="estimate.confidence", help_text="Joint level of the k intervals."
    )
    adjustment = serializers.SerializerMethodField(
        help_text="bonferroni: each option's interval is at per_option_confidence, so all k "
        "hold together at confidence."
    )
    per_option_confidence = serializers.FloatField(help_text="1 − (1 − confidence) / k.")

    @extend_schema_field(OptionEstimateSerializer(many=True))
    def get_options(self, row):
        return [
            {
                "index": option.index,
                "label": option.label,
                "reports": option.count,
                **_statistics(option, row.suppressed),
                "widened": False if row.suppressed else option.widened,
            }
            for option in row.options
        ]

    @extend_schema_field(serializers.ListField(child=serializers.FloatField(), allow_null=True))
    def get_shares(self, row):
        if row.suppressed or not row.has_data:
            return None
        return [finite(option.estimate) for option in row.options]

    @extend_schema_field(serializers.ListField(child=serializers.FloatField(), allow_null=True))
    def get_consistent_shares(self, row):
        if row.suppressed or not row.has_data:
            return None
        return [finite(option.consistent) for option in row.options]

    def get_adjustment(self, row) -> str:
        return "bonferroni"


class StatisticSerializer(serializers.Serializer):
    estimate = serializers.FloatField(
        allow_null=True, help_text="The estimate shown: clipped to the range; inside the interval."
    )
    unbiased = serializers.FloatField(allow_null=True, help_text="Unbiased; may leave the range.")
    clamped = serializers.FloatField(allow_null=True)
    std_error = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)


class ShareAboveSerializer(StatisticSerializer):
    threshold = serializers.IntegerField(
        help_text="The share of true answers above this (query threshold_q<id>)."
    )


class ManipulationCheckSerializer(serializers.Serializer):
    beyond = serializers.IntegerField(
        help_text="Reports below `low` or above `high`: beyond the range by more than "
        "`scales` noise scales."
    )
    low = serializers.IntegerField()
    high = serializers.IntegerField()
    scales = serializers.FloatField()
    expected_at_most = serializers.FloatField(
        help_text="The most such reports honest respondents make on average, whatever "
        "their answers (all at one end of the range)."
    )
    p_value = serializers.FloatField(
        help_text="One-sided binomial test of `beyond` against `expected_at_most`."
    )
    level = serializers.FloatField()
    flagged = serializers.BooleanField(
        help_text="`p_value` <= `level`: more extreme reports than honest respondents "
        "produce, possibly manipulation (false alarms on honest data at most `level`)."
    )


class NumericEstimateSerializer(QuestionRowSerializer):
    """A numeric question's mean and share above a threshold, of the answers clamped to
    [min, max]; normal intervals."""

    min = serializers.IntegerField()
    max = serializers.IntegerField()
    mean = serializers.SerializerMethodField(
        help_text="Mean of the clamped true answers (from the running sums)."
    )
    share_above = serializers.SerializerMethodField(
        help_text="Share of clamped true answers above `threshold` (from the raw reports)."
    )
    threshold = serializers.IntegerField()
    manipulation_check = serializers.SerializerMethodField(
        help_text="Reports far beyond the range against what the noise alone makes "
        '(docs/statistics.md, "Manipulation check"); null when suppressed.'
    )
    method = serializers.SerializerMethodField(help_text="normal: estimate ± z · std_error.")
    confidence = serializers.FloatField(source="mean.confidence")

    @extend_schema_field(StatisticSerializer)
    def get_mean(self, row):
        return _statistics(row.mean, row.suppressed)

    @extend_schema_field(ShareAboveSerializer)
    def get_share_above(self, row):
        return {"threshold": row.threshold, **_statistics(row.share_above, row.suppressed)}

    def get_method(self, row) -> str:
        return "normal"

    @extend_schema_field(ManipulationCheckSerializer(allow_null=True))
    def get_manipulation_check(self, row):
        check = row.manipulation_check
        return None if check is None else ManipulationCheckSerializer(check).data


class DirectShareSerializer(serializers.Serializer):
    answer = serializers.CharField(
        help_text="yes or no (a yes/no question), else the option's label."
    )
    count = serializers.IntegerField()
    share = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)


class DirectMeanSerializer(serializers.Serializer):
    mean = serializers.FloatField(allow_null=True)
    std_dev = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)


class DirectEstimateSerializer(QuestionRowSerializer):
    """A question asked directly (``type`` direct): its answers as given, counted. yes/no and
    choice: ``shares`` (ordinary binomial intervals by ``method``, each on its own); numeric:
    ``mean`` (normal interval within the range); text: ``n`` only (the answers are in the
    exports). No ε: nothing randomizes them."""

    epsilon = serializers.FloatField(allow_null=True, help_text="Null: no ε covers it.")
    question_type = serializers.CharField(
        source="type", help_text="yes_no, choice, numeric or text."
    )
    n = serializers.IntegerField(help_text="Answers received.")
    shares = serializers.SerializerMethodField()
    mean = serializers.SerializerMethodField()

    @extend_schema_field(DirectShareSerializer(many=True))
    def get_shares(self, row):
        return [
            {
                "answer": label,
                "count": share.count,
                **{
                    name: None if row.suppressed else finite(getattr(share, name))
                    for name in ("share", "ci_low", "ci_high")
                },
            }
            for label, share in row.options
        ]

    @extend_schema_field(DirectMeanSerializer(allow_null=True))
    def get_mean(self, row):
        if row.mean is None:
            return None
        return {
            name: None if row.suppressed else finite(getattr(row.mean, name))
            for name in ("mean", "std_dev", "ci_low", "ci_high")
        }


ROW_SERIALIZERS = {
    "yes_no": YesNoEstimateSerializer,
    "cheating": CheatingEstimateSerializer,
    "choice": ChoiceEstimateSerializer,
    "numeric": NumericEstimateSerializer,
    "direct": DirectEstimateSerializer,
}


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="QuestionEstimate",
        serializers=ROW_SERIALIZERS,
        resource_type_field_name="type",
        many=True,
    )
)
class EstimateRowsField(serializers.Field):
    """Each row with its type's serializer."""

    def to_representation(self, rows):
        return [ROW_SERIALIZERS[row.kind](row).data for row in rows]


class SurveyEstimatesSerializer(serializers.Serializer):
    survey_id = serializers.IntegerField(source="survey.id")
    title = serializers.CharField(source="survey.title")
    status = serializers.CharField(source="survey.status")
    response_count = serializers.IntegerField(source="survey.response_count")
    min_n = serializers.IntegerField(source="survey.min_n")
    p_truth = serializers.FloatField(
        source="design.p_truth", help_text="The survey's coins (yes/no questions without a design)."
    )
    p_forced_yes = serializers.FloatField(source="design.p_forced_yes")
    epsilon = serializers.FloatField(
        help_text="ε of one answer with the survey's coins; each row carries its own."
    )
    total_epsilon = serializers.FloatField(
        source="ledger.total_epsilon",
        help_text="The privacy ledger: the sum of every question's ε.",
    )
    method = serializers.CharField(
        help_text="The interval method requested; each row's `method` is the one it used."
    )
    confidence = serializers.FloatField()
    coverage_floor = serializers.FloatField(
        help_text="confidence − 0.02: every yes/no and multiple-choice interval covers the true "
        "value at least this often, whatever it is (exact where the requested method does not)."
    )
    generated_at = serializers.DateTimeField()
    estimates = EstimateRowsField(source="rows")
    control_group = serializers.SerializerMethodField(
        help_text="The direct-questioning control group (questions with `compare_direct`), at "
        "the same confidence and interval method: `control_share`, and per compared question "
        "its `status` (`compared`; `no_control_group` when control_share is 0; `suppressed` "
        "when either arm has fewer answers than min_n; `no_test` when both arms' answers are "
        "all alike), both arms' counts, `randomized_estimate` (the randomized arm under the "
        "question's design) and `direct_share` with their intervals, `difference` (randomized "
        "minus direct) with `difference_ci` (exact product interval, `difference_method`) and "
        "`p_value_more_is_better` (one-sided, normal theory: did randomized response reveal "
        "more?). Null when no question is compared."
    )

    def get_control_group(self, estimates) -> dict | None:
        if not Question.objects.filter(survey=estimates.survey, compare_direct=True).exists():
            return None
        return selectors.survey_control_group(
            survey=estimates.survey, confidence=estimates.confidence, method=estimates.method
        ).as_dict()

    comprehension = serializers.SerializerMethodField(
        help_text="The comprehension check, one row per practised design (empty without it)."
    )

    @extend_schema_field(ComprehensionResultSerializer(many=True))
    def get_comprehension(self, estimates) -> list:
        results = selectors.comprehension_results(
            survey=estimates.survey, confidence=estimates.confidence, method=estimates.method
        )
        return ComprehensionResultSerializer(results, many=True).data
