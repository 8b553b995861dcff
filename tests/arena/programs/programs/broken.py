def act(observation, legal_actions, rng)
    return legal_actions[0]
