"""Why an operation of blindrsa refused its input: a code callers branch on, never the text."""

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why an operation refused its input; callers branch on these, never on the message."""

    #: Not base64url, not the length the key requires, or not an RSA public key.
    MALFORMED = "malformed"
    #: The key is smaller than MIN_MODULUS_BITS.
    KEY_TOO_SMALL = "key_too_small"
    #: A sealed private key that the secret does not open (wrong secret, other context,
    #: damaged bytes).
    KEY_UNREADABLE = "key_unreadable"
    #: The blinded message, as an integer, is not below the modulus (RSASP1's range check).
    MESSAGE_OUT_OF_RANGE = "message_out_of_range"
    #: The signature computed did not verify: a fault, never returned (RFC 9474 §4.3).
    SIGNING_FAILED = "signing_failed"
    #: The signature does not verify for this message and key.
    INVALID_SIGNATURE = "invalid_signature"
    #: The encoded message shares a factor with the modulus (RFC 9474 §4.2 step 4).
    INVALID_INPUT = "invalid_input"
    #: The blinding factor has no inverse modulo n (RFC 9474 §4.2 step 6).
    BLINDING_FAILED = "blinding_failed"
    #: The key is too small for the PSS encoding (RFC 8017 §9.1.1 step 3).
    ENCODING_FAILED = "encoding_failed"


class BlindSignatureError(Exception):
    """An input refused by this module; ``code`` says why."""

    def __init__(self, message, *, code):
        super().__init__(message)
        self.message = message
        self.code = ErrorCode(code)
