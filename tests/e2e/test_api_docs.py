"""The API docs (/api/docs/) render in a real Chromium from this server alone: offline-ready."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("width", [1280, 390])
def test_api_docs_render_without_any_request_elsewhere(live_server, new_context, width):
    page = new_context(viewport={"width": width, "height": 900}).new_page()
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))

    response = page.goto(live_server.url + reverse("api-docs"))
    assert response.status == 200
    operations = page.locator(".swagger-ui .opblock")
    operations.first.wait_for(timeout=15000)
    page.wait_for_load_state("networkidle")

    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/surveys/{survey_id}/estimates/" in [p.replace("\u200b", "") for p in paths]
    assert operations.count() >= 14
    assert requested
    assert [url for url in requested if not url.startswith(live_server.url)] == []
    assert failed == []
