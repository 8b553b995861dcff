"""Engine throughput against OpenSpiel, side by side in one process.

Usage: python benchmarks/engine_throughput.py [--deals N] [--repeats R] [--json]
Same measurement as ``genstrat bench engine``: ratios of medians of alternating runs.
"""

from __future__ import annotations

import sys

from pipelines.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "engine", *sys.argv[1:]]))
