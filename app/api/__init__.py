"""The HTTP API: `create_app(settings)` builds it; one router module per resource, shared
dependencies in deps.py, the error-to-status table in errors.py."""

from lossforensics.api.app import create_app

__all__ = ["create_app"]
