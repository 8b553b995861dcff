"""Exact solvers for small GBGs, by way of OpenSpiel.

The benchmark needs ground truth on the games it generates: the value of a game, how
exploitable a strategy is, and an equilibrium to compare agents against.  Rather than
re-implement CFR, best responses and the sequence-form LP, ``openspiel_bridge`` exposes any
``GameSpec`` as a Python ``pyspiel`` game so that OpenSpiel's own algorithms (Lanctot et al.
2019, "OpenSpiel: A Framework for Reinforcement Learning in Games") run on it unchanged.
"""
