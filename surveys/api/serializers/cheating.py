"""The estimate row of a cheating-detection question (CDM, SLD): each group's counts and the
model's parameters."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .fields import finite
from .rows import QuestionRowSerializer


class CheatingParameterSerializer(serializers.Serializer):
    estimate = serializers.FloatField(
        allow_null=True,
        help_text="The maximum-likelihood estimate on the parameter space, inside the interval.",
    )
    closed_form = serializers.FloatField(
        allow_null=True, help_text="RRreg's closed-form estimate (may leave [0, 1])."
    )
    std_error = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    method = serializers.CharField(
        help_text="The interval's method: wald, fieller (the SLD's t) or exact_conservative "
        "(from each group's Clopper-Pearson interval: coverage never below the level); "
        "not_estimable (every number null) for a parameter named in `not_estimable`."
    )


class CheatingEstimateSerializer(QuestionRowSerializer):
    """A cheating-detection question (design ``cdm`` or ``sld``): each group's counts and the
    model's parameters. ``pi``: honest "yes"; CDM ``beta`` (honest "no") and ``gamma`` (did not
    follow the instructions: a lower bound); SLD ``t`` (carriers answering honestly)."""

    epsilon_yes = serializers.FloatField(
        help_text="No finite ε covers these designs; a reported yes is at most e^epsilon_yes "
        "times as likely from a true yes as from a true no."
    )
    n1 = serializers.IntegerField(source="estimate.n1", help_text="Reports from group 1.")
    yes1 = serializers.IntegerField(source="estimate.yes1")
    n2 = serializers.IntegerField(source="estimate.n2")
    yes2 = serializers.IntegerField(source="estimate.yes2")
    confidence = serializers.FloatField(source="estimate.confidence")
    method = serializers.CharField(
        source="estimate.method",
        help_text="The intervals used: wald (Wald, Fieller for t) where both groups are large "
        "enough for it to keep the level, else exact_conservative.",
    )
    requested_method = serializers.CharField(
        source="estimate.requested_method", help_text="Always wald (Wald, Fieller for t)."
    )
    method_reason = serializers.CharField(
        source="estimate.method_reason",
        help_text="large_groups (both groups at least dpengine's WALD_MIN_GROUP, 100), "
        "small_groups or unswept_level (the conservative interval is shown), or no_data.",
    )
    procedure = serializers.CharField(
        help_text="Who carried out the design: respondent (they saw the coin's instruction and "
        "pressed the answer it gave), or device for a question asked before CDM and SLD "
        "required the respondent procedure."
    )
    not_estimable = serializers.SerializerMethodField(
        help_text="The parameters the data cannot estimate, each with why: gamma (CDM) or t "
        "(SLD) of a question asked under the device procedure, whose browser carried out the "
        "instruction so that nobody could disobey it. Empty otherwise."
    )
    parameters_estimated = serializers.SerializerMethodField(
        help_text="pi, beta, gamma (CDM) or pi, t (SLD); null values when suppressed."
    )

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_not_estimable(self, row):
        return {name: row.not_estimable_reason for name in row.not_estimable}

    @extend_schema_field(serializers.DictField(child=CheatingParameterSerializer()))
    def get_parameters_estimated(self, row):
        hidden = row.suppressed
        numbers = [name for name in CheatingParameterSerializer().fields if name != "method"]
        return {
            parameter.name: {
                **{name: None if hidden else finite(getattr(parameter, name)) for name in numbers},
                "method": parameter.method,
            }
            for parameter in row.shown_parameters
        }
