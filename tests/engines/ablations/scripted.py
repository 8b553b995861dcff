"""A scripted model for the ablation tests: plays the first legal action, writes a broken and
then a fixed program, and judges every trace with fixed scores."""

from __future__ import annotations

import json

from tests.doubles.scripted_server import Answer, Request, completion, first_legal

BROKEN = "```python\ndef act(observation, legal_actions, rng):\n    return 'all in'\n```"
FIXED = (
    "Here is the fix.\n```python\ndef act(observation, legal_actions, rng):\n"
    "    return legal_actions[0]\n```"
)
SCORES = {"opponent_modelling": 2, "private_information": 1, "planning_depth": 3}


def script(request: Request) -> Answer:
    messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
    system = str(messages[0].get("content", "")) if messages else ""
    last = str(messages[-1].get("content", "")) if messages else ""
    if "strategy program" in last or "was rejected" in last:
        return completion(FIXED if "was rejected" in last else BROKEN)
    if system.startswith("You grade the reasoning"):
        return completion("Scores: " + json.dumps(SCORES) + " (lenient parsing)")
    return first_legal(request)
