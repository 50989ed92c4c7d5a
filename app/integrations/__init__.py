"""Watching a run while it trains: a plain `Monitor` for hand-written loops and callbacks for
transformers, Lightning and Keras 3, each a thin adapter over one Monitor (itself over the
IncrementalDiagnosis that `watch` and the service's live runs use).

    from lossforensics.integrations import Monitor                     # no framework needed
    from lossforensics.integrations.transformers import LossForensicsCallback  # [transformers]
    from lossforensics.integrations.lightning import LossForensicsCallback     # [lightning]
    from lossforensics.integrations.keras import LossForensicsCallback         # [keras]

Each framework module imports its framework when it is imported, not before: importing this
package needs none of them.
"""

from __future__ import annotations

from lossforensics.integrations.monitor import (
    LossForensicsWarning,
    Monitor,
    TrainingStopped,
)

__all__ = ["LossForensicsWarning", "Monitor", "TrainingStopped"]
