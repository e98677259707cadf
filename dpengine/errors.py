"""Typed errors: every dpengine refusal carries a reason code and the offending field.

Callers that must tell failures apart (a web form deciding which field to highlight, a
results page choosing between "separated" and "singular") read ``error.reason`` and
``error.field``, never the English message, which is written for programmers and may
change. :class:`DPEngineError` subclasses :class:`ValueError`, so code that catches
``ValueError`` keeps working.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["DPEngineError", "Reason"]


class Reason(StrEnum):
    """Why dpengine refused an input or could not compute a result."""

    #: Not a number, not an integer, not a design, or otherwise the wrong kind of value.
    INVALID_TYPE = "invalid_type"
    #: A number outside the range the parameter allows (the message states the range).
    OUT_OF_RANGE = "out_of_range"
    #: A name that is not one of the allowed choices (e.g. an interval method).
    INVALID_CHOICE = "invalid_choice"
    #: Arrays or sequences whose shapes or lengths do not fit together.
    SHAPE_MISMATCH = "shape_mismatch"
    #: A design under which some report reveals the true answer: epsilon is infinite.
    NOT_DIFFERENTIALLY_PRIVATE = "not_differentially_private"
    #: A design whose reports carry no information about the truth (a = b), or that
    #: inverts it (a < b) where the convention a > b is required.
    NO_INFORMATION = "no_information"
    #: There are no observations to compute from (n = 0).
    NO_DATA = "no_data"
    #: Every standard error involved is zero, so a normal test is undefined.
    ZERO_VARIANCE = "zero_variance"
    #: Regression: fewer rows than coefficients.
    TOO_FEW_ROWS = "too_few_rows"
    #: Regression: the maximum-likelihood estimate runs off to infinity.
    SEPARATION = "separation"
    #: Regression: the information matrix is singular (collinear or constant covariates).
    SINGULAR = "singular"
    #: Regression: the iteration did not converge.
    NOT_CONVERGED = "not_converged"


class DPEngineError(ValueError):
    """A refusal with a machine-readable ``reason`` and the ``field`` it concerns.

    ``field`` is the parameter name as the caller spelled it (``"p_truth"``, ``"design"``,
    ``"X"``), or ``None`` when no single parameter is to blame.
    """

    def __init__(self, message: str, *, reason: Reason, field: str | None = None) -> None:
        super().__init__(message)
        self.reason = Reason(reason)
        self.field = field

    def __reduce__(self):
        # Keyword-only constructor arguments need spelling out for pickling (multiprocessing).
        return (_rebuild, (type(self), str(self), self.reason.value, self.field))


def _rebuild(cls: type, message: str, reason: str, field: str | None) -> DPEngineError:
    return cls(message, reason=Reason(reason), field=field)
