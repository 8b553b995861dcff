def act(observation, legal_actions, rng):
    raise RuntimeError("strategy bug")
