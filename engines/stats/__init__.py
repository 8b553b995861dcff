"""Statistics of GENSTRAT (Sections 6-7, Appendices E-H): from a match corpus to leaderboards,
per-game strengths, robustness checks, composite complexity and capability profiles.

Modules, one concept each: ``simulate`` (planted-strength corpora), ``runs`` (complete paired
deals as sufficient statistics), ``bootstrap`` (resampling: clustered over runs for these
statistics, weighted over deals for the ablations), ``leaderboard`` (sum-to-zero least squares,
tiers), ``pergame`` (alpha_{m,g}), ``pairwise`` (head-to-head tables, win-indicator
Bradley-Terry), ``ranks`` (Kendall, Spearman), ``robustness``, ``composite``, ``profiles``,
``plots`` and ``analysis`` (everything in one call).
"""

from engines.stats.analysis import Analysis, AnalysisConfig, analyse
from engines.stats.leaderboard import overall_leaderboard
from engines.stats.planted import SimulationConfig, simulate_corpus

__all__ = [
    "Analysis",
    "AnalysisConfig",
    "SimulationConfig",
    "analyse",
    "overall_leaderboard",
    "simulate_corpus",
]
