def act(observation, legal_actions, rng):
    with open("/tmp/genstrat-sandbox-escape.txt", "w") as handle:
        handle.write("escaped")
    return legal_actions[0]
