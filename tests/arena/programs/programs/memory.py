def act(observation, legal_actions, rng):
    hog = bytearray(4 * 1024 * 1024 * 1024)
    return legal_actions[len(hog) % len(legal_actions)]
