"""Respondent page. SCAFFOLDING: replaced by the real view in progress (issue 3)."""

from django.http import HttpResponse


def respond(request, slug):
    return HttpResponse("Not built yet.", status=501)
