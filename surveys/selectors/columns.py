"""How the interface and every export name a survey's questions: Q1…Qn, then G1…Gm."""


def question_column(index: int) -> str:
    """The label (and export column) of the yes/no question at 0-based display ``index``."""
    return f"Q{index + 1}"


def grouping_column(index: int) -> str:
    """The label (and export column) of the grouping question at 0-based display ``index``."""
    return f"G{index + 1}"
