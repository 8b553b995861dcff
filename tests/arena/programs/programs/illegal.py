def act(observation, legal_actions, rng):
    return "all in"
