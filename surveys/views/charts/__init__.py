"""Server-drawn SVG charts, used only by the pages (surveys/views/analysis.py): one module per
chart kind (``yes_no``: the results of the yes/no questions; ``choice``: one multiple-choice
question; ``numeric``: one numeric question; ``planner``: the planner's precision or power
against respondents), on what ``svg`` (the frame, colours and markup) and ``dots`` (the
dot-and-interval rows) share.
"""

from .choice import choice_chart
from .numeric import numeric_chart
from .planner import precision_chart
from .yes_no import estimates_chart

__all__ = ["choice_chart", "estimates_chart", "numeric_chart", "precision_chart"]
