"""Connects to a port on the host's loopback interface (the test puts it in the observation)."""

import socket


def act(observation, legal_actions, rng):
    socket.create_connection(("127.0.0.1", observation["port"]), timeout=1).sendall(b"escaped")
    return legal_actions[0]
