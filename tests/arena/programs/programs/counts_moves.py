"""Issue 43, item 10: keeps a count of the moves it has seen in three places a move's namespace
does not hold (a module attribute, builtins, a file in its scratch folder) and plays by it, so
that its moves depend on what came before in its process."""

import builtins
import json
from pathlib import Path


def act(observation, legal_actions, rng):
    json.moves_seen = getattr(json, "moves_seen", 0) + 1
    builtins.moves_seen = getattr(builtins, "moves_seen", 0) + 1
    notes = Path("/scratch/moves_seen")
    on_disk = int(notes.read_text()) + 1 if notes.exists() else 1
    notes.write_text(str(on_disk))
    return legal_actions[(json.moves_seen + builtins.moves_seen + on_disk) % len(legal_actions)]
