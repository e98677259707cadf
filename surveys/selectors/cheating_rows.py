"""A cheating-detection question's row of the estimates (CDM, SLD): from its tally of codes
``2 × (group - 1) + bit``, the two groups' counts and dpengine's estimates of the honest
"yes" share ``pi``, the non-compliers ``gamma`` (CDM; ``beta`` the honest "no"-sayers) or the
honest carriers' share ``t`` (SLD), with intervals; withheld below the survey's ``min_n``.

``selectors.estimates.survey_estimates`` adds the row (``cheating_row``); the results page,
the estimates API and CSV read it. Reads only.
"""

from dataclasses import dataclass

import dpengine

from .design_labels import DESIGN_LABELS
from .mechanisms import CHEATING_CODES, GROUP_SHARE, question_design

CHEATING = "cheating"  # the row kind: not a yes/no estimate (its reports are codes)
# The interval method of a parameter the data cannot estimate (NOT_ESTIMABLE_REASON).
NOT_ESTIMABLE = "not_estimable"
# Why: a question asked before issue 33 under the device procedure. The browser carried out
# the instruction on the answer entered, so nobody could disobey it: γ is 0 and t is 1 by
# construction, and every liar shows as an honest "no".
NOT_ESTIMABLE_REASON = (
    "asked under the device procedure: the browser carried out the coin's instruction on the "
    "answer entered, so nobody could disobey it (gamma is 0 and t is 1 by construction) and "
    "pi counts every liar as an honest no; cheating detection needs the respondent procedure"
)


@dataclass(frozen=True)
class GroupCounts:
    """The two groups' counts of a cheating-detection question's reports."""

    n1: int
    yes1: int
    n2: int
    yes2: int

    @property
    def n(self) -> int:
        return self.n1 + self.n2


def group_counts(codes) -> GroupCounts:
    """The groups' ``(n, yes)`` from the counts of codes 0-3 (``codes[c]``: how many reports
    were ``c = 2 × (group - 1) + bit``), missing trailing counts as zeros."""
    padded = tuple(codes) + (0,) * (CHEATING_CODES - len(codes))
    no1, yes1, no2, yes2 = padded[:CHEATING_CODES]
    return GroupCounts(n1=no1 + yes1, yes1=yes1, n2=no2 + yes2, yes2=yes2)


@dataclass(frozen=True)
class ShownParameter:
    """One parameter as shown: the estimate on the parameter space (the maximum-likelihood
    value) with its interval widened, if need be, to contain it (issue 23: the estimate shown
    lies inside its interval). None where undefined."""

    name: str
    estimate: float | None
    ci_low: float
    ci_high: float
    std_error: float | None
    closed_form: float | None  # RRreg's unconstrained estimate (may leave [0, 1])
    # The interval's method: wald, fieller (the SLD's t) or exact_conservative (small groups)
    method: str = "wald"


@dataclass(frozen=True)
class CheatingQuestionEstimate:
    """A CDM or SLD question's estimates (``estimate``: ``dpengine.CheatingEstimate``)."""

    question_id: int
    position: int
    text: str
    estimate: dpengine.CheatingEstimate
    suppressed: bool  # fewer reports than the survey's minimum n: numbers are withheld
    column: str = ""
    design_name: str = ""  # cdm or sld
    procedure: str = "respondent"  # Question.Procedure: who carried out the design

    kind = CHEATING
    # No finite ε covers the design (an honest "no" is conclusive): see epsilon_yes.
    epsilon = None

    @property
    def n(self) -> int:
        return self.estimate.n

    @property
    def has_data(self) -> bool:
        return self.estimate.has_data

    @property
    def is_sld(self) -> bool:
        return self.design_name == "sld"

    @property
    def mechanism(self):
        return self.estimate.design

    @property
    def epsilon_yes(self) -> float:
        return self.estimate.design.epsilon_yes

    @property
    def design_label(self):
        return DESIGN_LABELS[self.design_name].name

    @property
    def parameters(self) -> dict:
        design = self.estimate.design
        return {"p1": float(design.p[0]), "p2": float(design.p[1]), GROUP_SHARE: design.share}

    @property
    def parameters_text(self) -> str:
        numbers = ", ".join(f"{name} = {value:g}" for name, value in self.parameters.items())
        return f"{numbers}, procedure = {self.procedure}"

    @property
    def not_estimable(self) -> tuple[str, ...]:
        """The parameters the data cannot estimate: γ (CDM) or t (SLD) of a question asked
        under the device procedure (NOT_ESTIMABLE_REASON); none otherwise."""
        if self.procedure == "respondent":
            return ()
        return ("t",) if self.is_sld else ("gamma",)

    @property
    def not_estimable_reason(self) -> str:
        return NOT_ESTIMABLE_REASON if self.not_estimable else ""

    def parameters_text_for(self, name) -> str:
        """``parameters_text``, with why ``name`` is not estimated when it is not."""
        if name in self.not_estimable:
            return f"{self.parameters_text}; {NOT_ESTIMABLE_REASON}"
        return self.parameters_text

    def shown(self, name) -> ShownParameter:
        """The parameter ``name`` (``pi``, ``beta``, ``gamma``, ``t``) as pages show it."""
        if name in self.not_estimable:
            return ShownParameter(
                name=name,
                estimate=None,
                ci_low=None,
                ci_high=None,
                std_error=None,
                closed_form=None,
                method=NOT_ESTIMABLE,
            )
        parameter = self.estimate[name]
        value = parameter.clamped
        low, high = parameter.ci_low, parameter.ci_high
        if value is not None:
            low, high = min(low, value), max(high, value)
        return ShownParameter(
            name=name,
            estimate=value,
            ci_low=low,
            ci_high=high,
            std_error=parameter.std_error,
            closed_form=parameter.estimate,
            method=parameter.method,
        )

    @property
    def method_replaced(self) -> bool:
        """Whether the conservative interval stands in for Wald's (dpengine's rule: a group
        too small, or a level the exact sweep did not cover, for Wald's to keep its level)."""
        return self.estimate.method_replaced

    @property
    def small_groups(self) -> bool:
        """Replaced because a group is below dpengine's threshold (else: the level)."""
        return self.estimate.method_reason == dpengine.CheatingMethodReason.SMALL_GROUPS

    @property
    def wald_min_group(self) -> int:
        return dpengine.WALD_MIN_GROUP

    @property
    def shown_parameters(self) -> list[ShownParameter]:
        return [self.shown(name) for name in self.estimate.design.parameter_names]

    @property
    def pi(self) -> ShownParameter:
        return self.shown("pi")

    @property
    def gamma(self) -> ShownParameter | None:
        return None if self.is_sld else self.shown("gamma")

    @property
    def t(self) -> ShownParameter | None:
        return self.shown("t") if self.is_sld else None

    @property
    def prevalence_upper(self) -> float | None:
        """CDM: ``pi + gamma``, the most the true share of "yes" can be if every
        non-complier is a carrier (the prevalence lies between ``pi`` and this)."""
        if self.is_sld or self.not_estimable or self.pi.estimate is None:
            return None
        return min(1.0, self.pi.estimate + self.gamma.estimate)

    def as_dict(self) -> dict:
        """The API's and the CSV's view: counts per group and every parameter."""
        counts = self.estimate
        data = {
            "n1": counts.n1,
            "yes1": counts.yes1,
            "n2": counts.n2,
            "yes2": counts.yes2,
            "boundary": counts.boundary,
            "method": counts.method,
            "requested_method": counts.requested_method,
            "method_reason": counts.method_reason,
            "procedure": self.procedure,
            "not_estimable": {name: NOT_ESTIMABLE_REASON for name in self.not_estimable},
        }
        for parameter in self.shown_parameters:
            data[parameter.name] = {
                "estimate": parameter.estimate,
                "ci_low": parameter.ci_low,
                "ci_high": parameter.ci_high,
                "std_error": parameter.std_error,
                "closed_form": parameter.closed_form,
                "method": parameter.method,
            }
        return data


def cheating_row(question, *, survey, tallies, confidence, fields) -> CheatingQuestionEstimate:
    """The row of a cheating-detection question from the survey's running tallies (its
    tally vector counts the codes 0-3 after the number of reports)."""
    return cheating_row_of_codes(
        question,
        survey=survey,
        codes=tallies.counts_of(question.pk, width=CHEATING_CODES),
        confidence=confidence,
        fields=fields,
    )


def cheating_row_of_codes(question, *, survey, codes, confidence, fields):
    """The row of a cheating-detection question from counts of its codes 0-3 (``codes[c]``):
    the whole survey's (``cheating_row``) or one group's (``breakdown_codes``), the same
    estimator either way."""
    design = question_design(question, survey=survey)
    counts = group_counts(codes)
    estimate = dpengine.estimate_cheating(
        design=design,
        n1=counts.n1,
        yes1=counts.yes1,
        n2=counts.n2,
        yes2=counts.yes2,
        confidence=confidence,
    )
    return CheatingQuestionEstimate(
        **fields,
        estimate=estimate,
        suppressed=counts.n < survey.min_n,
        design_name=design.kind,
        procedure=question.procedure,
    )
