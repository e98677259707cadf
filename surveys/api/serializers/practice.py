"""The comprehension check's practice rounds in the public definition (issue 27 item 4)."""

from rest_framework import serializers

PRACTICE_HELP = (
    "The practice rounds to walk the respondent through before the questions, when the survey "
    "checks comprehension (else empty): each names the design practised and a hidden direct "
    "yes/no question `id`; send `true` for it when the first try was right, `false` when not, "
    "nothing when the practice was not tried. Nothing else about the practice is sent."
)


class PracticeRoundSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The hidden question the result is sent for.")
    design = serializers.DictField(
        help_text='The design practised, as a question\'s `design`: `{"kind": "warner", '
        '"p": 0.75}`; the survey\'s own coins as `forced_response` with their parameters.'
    )
