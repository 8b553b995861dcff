calls = []


def act(observation, legal_actions, rng):
    calls.append(1)  # module state does not survive: every move starts fresh
    return legal_actions[0] if len(calls) == 1 else "remembered"
