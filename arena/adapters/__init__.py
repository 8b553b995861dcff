"""GENSTRAT games inside other frameworks: PettingZoo, Gymnasium, TextArena and Inspect AI.

One module per framework, each importing its framework at module level, so that a process that
never imports an adapter never imports the framework (the frameworks are optional extras:
``pip install genstrat[pettingzoo]``, ``[gymnasium]``, ``[textarena]``, ``[inspect]``).
This package's ``__init__`` imports none of them; ``arena.adapters.common`` (naming a game,
what a seat sees as text and as numbers, action ids) needs only numpy and the project.

- ``pettingzoo_env``: a PettingZoo AEC environment, both seats of one deal (``env``, ``raw_env``);
- ``gymnasium_env``: one seat against a built-in opponent (``GenstratEnv``, registered as
  ``genstrat/HeadsUp-v0``);
- ``textarena_env``: a TextArena two-player environment (registered as ``GenStrat-v0`` and
  per-preset ids);
- ``inspect_task``: an Inspect AI task, a model against the reference field with the paper
  protocol, scored on the anchored scale (``inspect eval arena/adapters/inspect_task.py@genstrat``).

docs/ADAPTERS.md shows each in use.  Nothing in ``engines``, ``quality``, ``releases``,
``assets`` or ``pipelines`` imports this package (``tests/arena/adapters`` checks it).
"""
