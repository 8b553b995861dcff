import socket


def act(observation, legal_actions, rng):
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    return legal_actions[0]
