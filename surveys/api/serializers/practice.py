"""The comprehension check (issue 27 item 4) in the API: the practice rounds of the public
definition, and how many understood each design in the estimates."""

from rest_framework import serializers

PRACTICE_HELP = (
    "The practice rounds to walk the respondent through before the questions, when the survey "
    "checks comprehension (else empty): each names the design practised and a hidden direct "
    "yes/no question `id`; send `true` for it when the first try was right, `false` when not, "
    "nothing when the practice was not tried. Nothing else about the practice is sent."
)


class PracticeTextSerializer(serializers.Serializer):
    question = serializers.CharField(
        help_text="The case asked about, in the definition's language: `%(truth)s` is the "
        "made-up true answer, `%(sent)s` what the device sends (the other answer), "
        "`%(colour)s` a card's colour."
    )
    why = serializers.CharField(help_text="Why that is what is sent, with the same names.")


class PracticeRoundSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The hidden question the result is sent for.")
    design = serializers.DictField(
        help_text='The design practised, as a question\'s `design`: `{"kind": "warner", '
        '"p": 0.75}`; the survey\'s own coins as `forced_response` with their parameters.'
    )
    procedure = serializers.ChoiceField(
        choices=["respondent"],
        required=False,
        help_text="Present when the round practises the respondent procedure: the instruction "
        "is shown as the questions show it, and the round asks what the respondent presses.",
    )
    practice = PracticeTextSerializer(
        required=False,
        help_text="Absent under the respondent procedure: the texts of the device procedure's "
        "round, from the design's row of the design table.",
    )


class ComprehensionResultSerializer(serializers.Serializer):
    """One practised design: how many of those who tried its round were right the first time.
    The numbers are null below the survey's `min_n` (`suppressed`)."""

    question_id = serializers.IntegerField(help_text="The hidden question (export column C…).")
    design = serializers.CharField(source="design_kind")
    parameters = serializers.DictField(
        help_text="The design's parameters, each a number (cdm, sld: `p` a pair)."
    )
    procedure = serializers.CharField(help_text="`device` or `respondent`: the one practised.")
    n = serializers.IntegerField(source="understood.n", help_text="Respondents who tried it.")
    suppressed = serializers.BooleanField()
    understood = serializers.SerializerMethodField(help_text="Right at the first try.")
    share = serializers.SerializerMethodField()
    ci_low = serializers.SerializerMethodField()
    ci_high = serializers.SerializerMethodField()

    def _shown(self, result, name):
        return None if result.suppressed else getattr(result.understood, name)

    def get_understood(self, result) -> int | None:
        return self._shown(result, "count")

    def get_share(self, result) -> float | None:
        return self._shown(result, "share")

    def get_ci_low(self, result) -> float | None:
        return self._shown(result, "ci_low")

    def get_ci_high(self, result) -> float | None:
        return self._shown(result, "ci_high")
