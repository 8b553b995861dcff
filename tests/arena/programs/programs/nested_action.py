def act(observation, legal_actions, rng):
    action = []
    for _ in range(900):  # as deep as JSON goes through both ends, but not repr in the host
        action = [action]
    return action
