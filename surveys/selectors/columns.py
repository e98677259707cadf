"""How the interface and every export name a survey's questions: Q1…Qn, then the comprehension
check's C1…Ck (one per practised design), then G1…Gm."""


def question_column(index: int) -> str:
    """The label (and export column) of the yes/no question at 0-based display ``index``."""
    return f"Q{index + 1}"


def position_column(index: int) -> str:
    """The export column holding where the page showed the question at 0-based ``index``."""
    return f"P{index + 1}"


def grouping_column(index: int) -> str:
    """The label (and export column) of the grouping question at 0-based display ``index``."""
    return f"G{index + 1}"


def comprehension_column(index: int) -> str:
    """The export column of the comprehension check's practice round at 0-based ``index``."""
    return f"C{index + 1}"
