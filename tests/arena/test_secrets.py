"""``arena.secrets``: what the harness records is redacted; a transcript keeps its layout."""

from __future__ import annotations

from arena.secrets import MAX_SCRUBBED_CHARS, REDACTED, redact_credentials, scrub

KEY = "sk-" + "Zz09" * 6


def test_redact_credentials_keeps_lines_and_length_of_everything_else() -> None:
    text = f'{{"action": "call"}}\n\nI hold {KEY}\nOPENAI_API_KEY=abc123def and my-secret-value'
    out = redact_credentials(text, ("my-secret-value",))
    assert out == (
        f'{{"action": "call"}}\n\nI hold {REDACTED}\nOPENAI_API_KEY={REDACTED} and {REDACTED}'
    )
    long = "word " * 200
    assert redact_credentials(long, ()) == long  # never cut


def test_scrub_is_the_same_redaction_on_one_bounded_line() -> None:
    text = f"line one {KEY}\nline two " + "x" * 400
    scrubbed = scrub(text, ())
    assert "\n" not in scrubbed and len(scrubbed) == MAX_SCRUBBED_CHARS
    assert scrubbed.startswith(f"line one {REDACTED} line two")
