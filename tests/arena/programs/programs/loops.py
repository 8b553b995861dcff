def act(observation, legal_actions, rng):
    while True:
        pass
