"""LLM players for Werewolf (issue 47, item 2): prompts from a player's view, replies read back,
Game Arena's harness rules, and games between models and bots with their transcripts.

``prompts`` renders a view (pure); ``players`` asks a model through ``arena.llm.player.LLMPlayer``
(the project's providers, transport, response cache and budgets) or a built-in bot; ``games``
plays scheduled games and writes their transcripts.  docs/WEREWOLF.md states the rules.
"""
