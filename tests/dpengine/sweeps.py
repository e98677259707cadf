"""What the exact coverage tests of ``dpengine.guarantee`` share: the levels swept, the
textbook methods, and the rarest report of a design (the sizes the large-sample rule reads)."""

LEVELS = (0.80, 0.90, 0.95, 0.99)
TEXTBOOK = ("wald", "wilson", "jeffreys")


def rarest(a, b):
    """The smaller of the chances of a yes report and of a no report, whatever the truth."""
    return min(b, 1 - a)
