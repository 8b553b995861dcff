"""The games the adapter tests run every framework's checker on (issue 45, "Done when")."""

from __future__ import annotations

from engines.gbg.generator import GenerationConfig

PRESETS = ("kuhn", "leduc", "example4643")
OPENSPIEL = ("openspiel:kuhn_poker", "openspiel:leduc_poker", "openspiel:connect_four")

# 20 generated games across the complexity dial, 0.5 to 4.0 in equal steps, each its own seed.
DIAL = tuple(round(0.5 + 3.5 * k / 19, 3) for k in range(20))
GENERATED = tuple((str(300 + k), GenerationConfig(complexity=c)) for k, c in enumerate(DIAL))


def generated_id(case: tuple[str, GenerationConfig]) -> str:
    return f"seed{case[0]}-c{case[1].complexity}"
