"""Django REST framework's own messages that this API can send, listed for our catalogs.

DRF ships Korean only as ``ko_KR``, which Django never loads for the site's ``ko``, so a Korean
respondent would read "Request was throttled." in English. Listing the messages here puts
them in locale/*/django.po (``makemessages`` extracts them), and Django prefers the project's
LOCALE_PATHS catalogs over the packages', so DRF's text is shown translated. Nothing imports
this module at run time; tests/surveys/views/test_translations.py checks that every entry is still
a message DRF uses, and that each is translated.
"""

from django.utils.translation import gettext_noop

DRF_MESSAGES = (
    # rest_framework/exceptions.py
    gettext_noop("A server error occurred."),
    gettext_noop("Invalid input."),
    gettext_noop("Malformed request."),
    gettext_noop("Incorrect authentication credentials."),
    gettext_noop("Authentication credentials were not provided."),
    gettext_noop("You do not have permission to perform this action."),
    gettext_noop("Not found."),
    gettext_noop('Method "{method}" not allowed.'),
    gettext_noop("Could not satisfy the request Accept header."),
    gettext_noop('Unsupported media type "{media_type}" in request.'),
    gettext_noop("Request was throttled."),
    gettext_noop("Expected available in {wait} second."),
    gettext_noop("Expected available in {wait} seconds."),
    # rest_framework/authentication.py (token authentication)
    gettext_noop("Invalid token header. No credentials provided."),
    gettext_noop("Invalid token header. Token string should not contain spaces."),
    gettext_noop("Invalid token header. Token string should not contain invalid characters."),
    gettext_noop("Invalid token."),
    gettext_noop("User inactive or deleted."),
    # rest_framework/fields.py and serializers.py (the field types the API uses)
    gettext_noop("This field is required."),
    gettext_noop("This field may not be null."),
    gettext_noop("Invalid data. Expected a dictionary, but got {datatype}."),
    gettext_noop("This field may not be blank."),
    gettext_noop("Not a valid string."),
    gettext_noop("Ensure this field has no more than {max_length} characters."),
    gettext_noop("Ensure this field has at least {min_length} characters."),
    gettext_noop("Surrogate characters are not allowed: U+{code_point:X}."),
    gettext_noop("A valid integer is required."),
    gettext_noop("A valid number is required."),
    gettext_noop("Ensure this value is less than or equal to {max_value}."),
    gettext_noop("Ensure this value is greater than or equal to {min_value}."),
    gettext_noop("String value too large."),
    gettext_noop("Must be a valid UUID."),
    gettext_noop("Must be a valid boolean."),
    gettext_noop('"{input}" is not a valid choice.'),
    gettext_noop('Expected a dictionary of items but got type "{input_type}".'),
    gettext_noop("This dictionary may not be empty."),
    gettext_noop('Expected a list of items but got type "{input_type}".'),
    gettext_noop("This list may not be empty."),
)
