"""The fields every estimate row starts with, whatever its question's type
(``estimates`` and ``cheating`` build on it)."""

from rest_framework import serializers

from ...designs import design_kinds
from ...models import Question


class QuestionRowSerializer(serializers.Serializer):
    """The fields every row starts with."""

    type = serializers.ChoiceField(
        source="kind", choices=Question.Kind.choices, help_text="The question's type."
    )
    question_id = serializers.IntegerField()
    column = serializers.CharField(
        help_text="Q1, Q2, ... in display order: the results page's label and the exports' column."
    )
    position = serializers.IntegerField()
    text = serializers.CharField()
    design = serializers.CharField(
        source="design_name",
        help_text="yes/no: forced_response (the survey's coins or its own), "
        + ", ".join(kind for kind in design_kinds() if kind != "forced_response")
        + "; cdm or sld (type `cheating`); otherwise choice or numeric.",
    )
    parameters = serializers.DictField(
        child=serializers.FloatField(),
        help_text="The design's parameters (yes/no: with a = P(report yes | yes) and "
        "b = P(report yes | no); choice: k and epsilon; numeric: lo, hi and epsilon).",
    )
    epsilon = serializers.FloatField(help_text="The question's ε (its line in the ledger).")
    n = serializers.IntegerField(help_text="Randomized reports received.")
    suppressed = serializers.BooleanField(
        help_text="Fewer reports than the survey's min_n: the statistics are withheld."
    )
