"""Researcher pages. SCAFFOLDING: replaced by the real views in progress (issue 3)."""

from django.http import HttpResponse


def home(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def dashboard(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_new(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_builder(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def question_add(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def question_edit(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def question_delete(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def question_move(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_preview(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_open(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_close(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_delete(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_share(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_qr(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def survey_results(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def estimates_csv(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)


def responses_csv(request, **kwargs):
    return HttpResponse("Not built yet.", status=501)
