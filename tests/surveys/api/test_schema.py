"""The OpenAPI 3 schema at /api/schema/: valid, warning-free, and saying what the API does."""

import pytest
import yaml
from django.core.management import call_command

from surveys.designs import design_kinds


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


@pytest.mark.slow
def test_schema_generates_valid_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert yaml.safe_load(out.read_text())["openapi"].startswith("3.")


def test_every_error_response_uses_the_one_error_shape(schema):
    error_refs = {
        response["content"]["application/json"]["schema"]["$ref"]
        for path in schema["paths"].values()
        for operation in path.values()
        for code, response in operation["responses"].items()
        if code.startswith("4")
    }
    assert error_refs == {"#/components/schemas/Error"}
    assert set(schema["components"]["schemas"]["Error"]["properties"]) == {"detail", "errors"}


def test_researcher_routes_require_authentication_and_public_ones_do_not(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            security = operation.get("security", [])
            if path.startswith("/api/v1/public/") or (path, method) == (
                "/api/v1/auth/token/",
                "post",
            ):
                assert security in ([], [{}]), (path, method)
            else:
                assert {"tokenAuth": []} in security, (path, method)


def test_coin_probabilities_are_documented_as_open_unit_interval(schema):
    p_truth = schema["components"]["schemas"]["SurveyRequest"]["properties"]["p_truth"]
    assert (p_truth["minimum"], p_truth["maximum"]) == (0, 1)
    assert p_truth["exclusiveMinimum"] is True and p_truth["exclusiveMaximum"] is True


def test_read_only_fields_are_not_inputs(schema):
    request = schema["components"]["schemas"]["SurveyRequest"]["properties"]
    assert not {"id", "slug", "status", "epsilon", "response_count"} & set(request)
    assert set(schema["components"]["schemas"]["SurveyRequest"]["required"]) == {
        "title",
        "p_truth",
        "p_forced_yes",
        "questions",
    }


def test_csv_downloads_are_documented_as_csv(schema):
    for path in (
        "/api/v1/surveys/{survey_id}/estimates.csv",
        "/api/v1/surveys/{survey_id}/responses.csv",
        "/api/v1/surveys/{survey_id}/codebook.csv",
    ):
        assert list(schema["paths"][path]["get"]["responses"]["200"]["content"]) == ["text/csv"]


def test_bundled_downloads_are_documented_with_their_media_types(schema):
    for path, media_type in (
        ("/api/v1/surveys/{survey_id}/export.zip", "application/zip"),
        (
            "/api/v1/surveys/{survey_id}/export.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ),
    ):
        responses = schema["paths"][path]["get"]["responses"]
        assert list(responses["200"]["content"]) == [media_type]
        assert {"400", "401", "404"} <= set(responses)


def test_spss_and_stata_downloads_are_documented_with_their_media_types(schema):
    for path, media_type in (
        ("/api/v1/surveys/{survey_id}/responses.sav", "application/x-spss-sav"),
        ("/api/v1/surveys/{survey_id}/responses.dta", "application/x-stata-dta"),
    ):
        responses = schema["paths"][path]["get"]["responses"]
        assert list(responses["200"]["content"]) == [media_type]
        assert {"401", "404"} <= set(responses)


def test_the_question_schema_documents_types_and_their_parameters(schema):
    components = schema["components"]["schemas"]
    question = components["Question"]["properties"]
    (type_enum,) = question["type"]["allOf"]  # drf-spectacular names the enum a component
    assert components[type_enum["$ref"].rsplit("/", 1)[1]]["enum"] == [
        "yes_no",
        "choice",
        "numeric",
        "text",
    ]
    assert question["type"]["default"] == "yes_no"
    # Every yes/no design of the design table (surveys/designs.py), and CDM and SLD.
    assert set(question["design"]["properties"]["kind"]["enum"]) == {
        *design_kinds(),
        "cdm",
        "sld",
    }
    assert question["options"]["maxItems"] == 20 and question["options"]["minItems"] == 2
    assert question["min"]["type"] == question["max"]["type"] == "integer"
    assert question["epsilon"]["type"] == "number"
    assert question["design_name"]["readOnly"] is True
