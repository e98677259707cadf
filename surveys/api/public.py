"""Public endpoints: what a respondent's browser needs, and the single submission path."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import selectors, services
from .throttling import ResponseSubmissionThrottle


class PublicQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()


class PublicSurveySerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    intro = serializers.CharField()
    language = serializers.CharField()
    status = serializers.CharField()
    accepting_responses = serializers.BooleanField(source="is_open")
    p_truth = serializers.FloatField()
    p_forced_yes = serializers.FloatField()
    epsilon_per_answer = serializers.FloatField()
    epsilon_total = serializers.FloatField()
    questions = PublicQuestionSerializer(many=True)


class SubmissionSerializer(serializers.Serializer):
    """Shape only; meaning (question ids, booleans, survey state) is checked by the service."""

    submission_id = serializers.UUIDField()
    answers = serializers.DictField(child=serializers.JSONField(), allow_empty=False)

    def to_internal_value(self, data):
        if isinstance(data, dict):
            extra = sorted(set(data) - {"submission_id", "answers"})
            if extra:
                # Refuse anything beyond the randomized bits: a client must not leak more.
                raise serializers.ValidationError({extra[0]: ["Unexpected field."]})
        return super().to_internal_value(data)


class PublicSurveyView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(responses=PublicSurveySerializer, operation_id="public_survey_retrieve")
    def get(self, request, slug):
        survey = selectors.survey_by_slug(slug=slug)
        privacy = selectors.survey_privacy(survey=survey)
        data = {
            "slug": survey.slug,
            "title": survey.title,
            "intro": survey.intro,
            "language": survey.language,
            "status": survey.status,
            "is_open": survey.is_open,
            "p_truth": survey.p_truth,
            "p_forced_yes": survey.p_forced_yes,
            "epsilon_per_answer": privacy.per_answer_epsilon,
            "epsilon_total": privacy.total_epsilon,
            "questions": selectors.survey_questions(survey=survey),
        }
        return Response(PublicSurveySerializer(data).data)


class PublicResponseView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [ResponseSubmissionThrottle]

    @extend_schema(
        request=SubmissionSerializer,
        responses={
            201: inline_serializer(
                "SubmissionAccepted",
                {"submission_id": serializers.UUIDField(), "status": serializers.CharField()},
            )
        },
        operation_id="public_response_create",
    )
    def post(self, request, slug):
        survey = selectors.survey_by_slug(slug=slug)
        body = SubmissionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        outcome = services.submission_record(
            survey=survey,
            submission_id=body.validated_data["submission_id"],
            answers=body.validated_data["answers"],
        )
        # A replay answers exactly as the first time did, so a client retry is harmless.
        return Response(
            {"submission_id": str(outcome.submission_id), "status": "recorded"}, status=201
        )
