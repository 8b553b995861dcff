"""Jobs of the code location.

``main_job`` materializes the whole asset graph (with the checks of every asset); ``make run``
executes it and the nightly schedule (issue 7) will target it. The profile (``demo`` or
``paper``) is not part of the job: it comes from the ``profile`` resource.
"""

from __future__ import annotations

import dagster as dg

MAIN_JOB_NAME = "main_job"

main_job = dg.define_asset_job(
    name=MAIN_JOB_NAME,
    selection=dg.AssetSelection.all(),
    description="Materialize every asset of the graph and run their checks.",
)

JOBS = [main_job]
