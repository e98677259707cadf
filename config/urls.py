from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from surveys.views.respondent import LanguageCatalog

# Swagger UI's initialising script comes from its own URL (the split view) and the page has no
# <style> block (templates/api_docs/), so the strict Content-Security-Policy holds there too.
# (No Redoc page: it injects <style> elements, fetches a logo from its CDN and would need a
# relaxed policy; Swagger UI documents the same schema.)
api_docs = SpectacularSwaggerSplitView.as_view(
    url_name="api-schema", template_name="api_docs/swagger_ui.html"
)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("surveys.account_urls")),
    path("api/v1/", include("surveys.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", api_docs, name="api-docs"),
    path("i18n/", include("django.conf.urls.i18n")),
    # gettext/interpolate for static/js/ in the page's language (locale/*/djangojs.po). Only
    # the project's catalog: the respondent page does not download the admin's JS strings.
    path("jsi18n/", LanguageCatalog.as_view(packages=["surveys"]), name="javascript-catalog"),
    path("", include("surveys.urls")),
]
