def act(observation, legal_actions, rng):
    passive = [a for a in legal_actions if a in ("check", "call")]
    return passive[0] if passive else rng.choice(legal_actions)
