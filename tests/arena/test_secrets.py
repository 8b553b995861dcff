"""``arena.secrets``: what the harness records is redacted; a transcript keeps its layout and
its words."""

from __future__ import annotations

from arena.secrets import MAX_SCRUBBED_CHARS, REDACTED, redact_all, scrub

KEY = "sk-" + "Zz09" * 6


def test_redact_all_keeps_lines_and_everything_else() -> None:
    text = f'{{"action": "call"}}\n\nI hold {KEY}\nOPENAI_API_KEY=abc123def and my-secret-value'
    out = redact_all(text, ("my-secret-value",))
    assert out == (
        f'{{"action": "call"}}\n\nI hold {REDACTED}\nOPENAI_API_KEY={REDACTED} and {REDACTED}'
    )
    long = "word " * 200
    assert redact_all(long, ()) == long  # never cut


def test_a_reply_keeps_its_words_without_the_assignment_rule() -> None:
    reply = f'{{"monkey": 3, "action": "bet"}} {KEY} my-secret-value'
    assert redact_all(reply, ("my-secret-value",), assignments=False) == (
        f'{{"monkey": 3, "action": "bet"}} {REDACTED} {REDACTED}'
    )
    assert '"monkey": [redacted]' in redact_all(reply, ())  # error text: the rule applies


def test_scrub_is_the_same_redaction_on_one_bounded_line() -> None:
    text = f"line one {KEY}\nline two " + "x" * 400
    scrubbed = scrub(text, ())
    assert "\n" not in scrubbed and len(scrubbed) == MAX_SCRUBBED_CHARS
    assert scrubbed.startswith(f"line one {REDACTED} line two")
