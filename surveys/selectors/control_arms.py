"""The two arms of a question compared with asking directly (``Question.compare_direct``).

Its report is one code (``mechanisms.COMPARE_CODES``): 0/1 the randomized report no/yes, 2/3
the direct answer no/yes, tallied as a four-option choice ``[n, no_r, yes_r, no_d, yes_d]``.
This module only reads those codes; ``control_group`` compares the arms.
"""

from dataclasses import dataclass

RANDOMIZED, DIRECT = "randomized", "direct"
# The lowest code of the direct arm: codes below it are randomized reports.
FIRST_DIRECT_CODE = 2


@dataclass(frozen=True)
class ArmCounts:
    """How many reports each arm sent for one compared question, and how many said yes."""

    randomized_n: int
    randomized_yes: int
    direct_n: int
    direct_yes: int


def arm_counts(tallies, question_id) -> ArmCounts:
    """The arms' counts from a survey's tallies (``estimates.SurveyTallies``)."""
    no_r, yes_r, no_d, yes_d = tallies.counts_of(question_id, width=4)
    return ArmCounts(
        randomized_n=no_r + yes_r, randomized_yes=yes_r, direct_n=no_d + yes_d, direct_yes=yes_d
    )


def code_arm(code: int) -> str:
    """``"randomized"`` or ``"direct"``: the arm a stored code was sent from."""
    return DIRECT if code >= FIRST_DIRECT_CODE else RANDOMIZED


def code_answer(code: int) -> bool:
    """The report (randomized arm) or the answer (direct arm) a code stands for: yes or no."""
    return code % 2 == 1
