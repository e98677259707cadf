"""Request and response shapes of the regression route: the question and confidence asked
for, and the fitted model (covariates, levels, one row per coefficient)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ...designs import design_kinds
from ...selectors.mechanisms import FORCED_RESPONSE
from .fields import ConfidenceField, finite


class RegressionQuerySerializer(serializers.Serializer):
    question = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Id of the yes/no question to model; defaults to the survey's first yes/no "
        "question (multiple-choice and numeric questions cannot be modelled: 400).",
    )
    confidence = ConfidenceField(
        strict=False, required=False, help_text="Defaults to the survey's confidence level."
    )


class LevelSerializer(serializers.Serializer):
    option_id = serializers.IntegerField()
    label = serializers.CharField()
    respondents = serializers.IntegerField(
        help_text="Reports of this question from respondents who chose this option."
    )
    role = serializers.ChoiceField(
        choices=["reference", "coefficient", "dropped"],
        help_text="reference: the baseline level; dropped: nobody chose it, left out.",
    )


class CovariateSerializer(serializers.Serializer):
    grouping_question_id = serializers.IntegerField()
    text = serializers.CharField()
    levels = LevelSerializer(many=True)


class CoefficientSerializer(serializers.Serializer):
    term = serializers.CharField(
        allow_null=True, help_text="The grouping question; null for the intercept."
    )
    level = serializers.CharField(allow_null=True, help_text="The option; null for the intercept.")
    reference = serializers.CharField(
        allow_null=True, help_text="The reference option it is compared with."
    )
    estimate = serializers.FloatField(
        allow_null=True, help_text="Log-odds (intercept) or log odds ratio."
    )
    std_error = serializers.FloatField(allow_null=True, help_text="Wald (approximate).")
    ci_low = serializers.FloatField(
        allow_null=True,
        help_text="The interval shown (`ci_method`), per coefficient. Null when the model has "
        "several grouping questions (no interval shown) or when the end is unbounded (a "
        "group's share may be 0 or 1).",
    )
    ci_high = serializers.FloatField(allow_null=True, help_text="As `ci_low`.")
    odds_ratio = serializers.FloatField(allow_null=True, help_text="exp(estimate).")
    odds_ratio_low = serializers.FloatField(allow_null=True, help_text="exp(ci_low).")
    odds_ratio_high = serializers.FloatField(allow_null=True, help_text="exp(ci_high).")
    wald_ci_low = serializers.FloatField(
        source="wald_low",
        allow_null=True,
        help_text="Wald interval (estimate ± z·std_error), as R's rr and RRreg report it; "
        "approximate, never shown: it can cover far less than its level.",
    )
    wald_ci_high = serializers.FloatField(source="wald_high", allow_null=True)
    p_value = serializers.FloatField(
        allow_null=True, help_text="Two-sided Wald test of a zero coefficient (approximate)."
    )

    def to_representation(self, instance):
        data = super().to_representation(instance)
        return {
            key: finite(value) if isinstance(value, float) else value for key, value in data.items()
        }


class RegressionSerializer(serializers.Serializer):
    survey_id = serializers.IntegerField(source="survey.id")
    question_id = serializers.IntegerField(source="question.id")
    question = serializers.CharField(source="question.text")
    status = serializers.CharField(
        help_text="`fitted`, or why there is no coefficient table: `no_responses`, `too_few`, "
        "`separation`, `singular` or `not_converged` (see `message`)."
    )
    message = serializers.CharField(help_text="Empty when fitted; otherwise what went wrong.")
    detail = serializers.CharField(help_text="The fitting library's own explanation, if any.")
    n = serializers.IntegerField(help_text="Reports used.")
    arm = serializers.CharField(
        allow_null=True,
        help_text="`randomized` for a question compared with asking directly: the model is "
        "fitted on its randomized arm alone (the control group's direct answers are left out "
        "of `n` and of `left_out`); null for every other question (all its reports).",
    )
    left_out = serializers.IntegerField(
        help_text="Reports of the question left out because a grouping answer is missing "
        '(skipped, or "Prefer not to say"): missing, never a level of its own.'
    )
    min_n = serializers.IntegerField()
    confidence = serializers.FloatField()
    design = serializers.CharField(
        source="design.kind",
        help_text="The question's yes/no design: "
        + ", ".join(f"`{kind}`" for kind in design_kinds())
        + " (surveys/designs.py).",
    )
    a = serializers.FloatField(source="design.p_yes_given_yes", help_text="P(report yes | yes).")
    b = serializers.FloatField(source="design.p_yes_given_no", help_text="P(report yes | no).")
    p_truth = serializers.SerializerMethodField(
        help_text="The forced-response coins; null for another design."
    )
    p_forced_yes = serializers.SerializerMethodField(
        help_text="The forced-response coins; null for another design."
    )
    epsilon = serializers.FloatField(source="design.epsilon")
    covariates = CovariateSerializer(many=True)
    coefficients = CoefficientSerializer(
        many=True, help_text="Intercept first, then one row per non-reference option."
    )
    log_likelihood = serializers.FloatField(allow_null=True)
    iterations = serializers.IntegerField(allow_null=True)
    ci_method = serializers.CharField(
        allow_null=True,
        help_text="`exact-product` when at most one grouping question splits the respondents: "
        "each coefficient's interval has coverage at least `confidence` at every n (per "
        "coefficient, not simultaneous). Null with several grouping questions: no interval.",
    )

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_p_truth(self, result):
        return _coin(result.design, "p_truth")

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_p_forced_yes(self, result):
        return _coin(result.design, "p_forced_yes")


def _coin(design, name):
    value = getattr(design, name, None) if design.kind == FORCED_RESPONSE else None
    return None if value is None else float(value)
