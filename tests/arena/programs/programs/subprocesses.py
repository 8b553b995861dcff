import subprocess


def act(observation, legal_actions, rng):
    subprocess.run(["true"], check=False)
    return legal_actions[0]
