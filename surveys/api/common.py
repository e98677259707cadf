"""What the API's views of one survey share: the survey looked up with the caller's role
(``OwnedSurveyView``), and the negotiation of CSV downloads. Here, below ``researcher.py`` and
``export_jobs.py``, which both use them (tests/test_layers.py checks no circle)."""

from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.views import APIView

from .. import selectors


class OwnedSurveyView(APIView):
    # Resolves ``survey_id`` once authentication has passed, through ``selectors.survey_for``:
    # 404 unless the caller owns the survey or is a member; then 403 if their role is below
    # ``survey_roles[method]`` (a method not listed is the owner's alone).
    # (A comment, not a docstring: the schema would show it as every operation's description.)
    survey_roles = {}

    def required_role(self, request, **kwargs):
        method = request.method.lower()
        method = "get" if method == "head" else method
        if not hasattr(self, method) or method == "options":
            return selectors.VIEWER  # on to DRF's 405 (or OPTIONS): nothing is done
        return self.survey_roles.get(method, selectors.OWNER)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        self.survey = selectors.survey_for(
            user=request.user, survey_id=kwargs["survey_id"], role=selectors.VIEWER
        )
        selectors.ensure_role(survey=self.survey, role=self.required_role(request, **kwargs))


class CSVNegotiation(BaseContentNegotiation):
    """CSV downloads ignore Accept; the JSON renderer is only used for error bodies."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
