def act(observation, legal_actions, rng):
    with open("notes.txt", "w") as handle:  # inside the scratch folder: allowed
        handle.write("ok")
    return legal_actions[0]
