"""The API's field types: JSON types are not coerced, bounds come from ``surveys.limits``."""

import math

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ...limits import CONFIDENCE_MAX, CONFIDENCE_MIN

# --- strict scalar fields: JSON types are not coerced (true is not 1, "0.5" is not 0.5) ------


class StrictCharField(serializers.CharField):
    default_error_messages = {"invalid": _("Must be a string.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    default_error_messages = {"invalid": _("Must be a finite number.")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": _("Must be a whole number.")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": _("Must be true or false.")}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


@extend_schema_field(
    {
        "type": "number",
        "format": "double",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": 1,
        "exclusiveMaximum": True,
    }
)
class ProbabilityField(StrictFloatField):
    """A coin probability, strictly inside (0, 1)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not 0 < value < 1:
            raise serializers.ValidationError(
                _("Must be strictly between 0 and 1, got %(v)r.") % {"v": value}
            )
        return value


@extend_schema_field(
    {
        "type": "number",
        "format": "double",
        "minimum": CONFIDENCE_MIN,
        "maximum": CONFIDENCE_MAX,
    }
)
class ConfidenceField(serializers.FloatField):
    """A confidence level in [CONFIDENCE_MIN, CONFIDENCE_MAX], i.e. [0.5, 0.999999]; parses
    numbers, or text when it comes from a query."""

    def __init__(self, *, strict=True, **kwargs):
        self.strict = strict
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if self.strict and (isinstance(data, bool) or not isinstance(data, int | float)):
            self.fail("invalid")
        value = super().to_internal_value(data)
        if not CONFIDENCE_MIN <= value <= CONFIDENCE_MAX:
            raise serializers.ValidationError(
                _("Must be from 0.5 to 0.999999, got %(v)r.") % {"v": value}
            )
        return value


class RejectUnknownFieldsMixin:
    """A misspelt field is an error, not silently ignored (read-only fields may be echoed back)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({unknown[0]: [_("Unknown field.")]})
        return super().to_internal_value(data)


def finite(value):
    """The number, or None when it is not finite (JSON has no inf or NaN)."""
    return value if isinstance(value, int | float) and math.isfinite(value) else None


# --- errors -------------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="A one-line summary for people.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages by field; empty when no field is at fault.",
    )
