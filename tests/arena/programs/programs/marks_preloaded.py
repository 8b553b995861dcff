import sys
import typing


def act(observation, legal_actions, rng):
    # typing was loaded before this move (the sandbox preloads it); a mark left on it, or a
    # module replaced in sys.modules, does not survive: every move starts fresh
    marked = hasattr(typing, "genstrat_mark") or sys.modules.get("collections") is None
    typing.genstrat_mark = True
    sys.modules["collections"] = None
    return "remembered" if marked else legal_actions[0]
