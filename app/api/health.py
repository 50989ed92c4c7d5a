"""/healthz: the process answers, its metadata database is reachable, and how much disk is left
for uploads and frames (no auth)."""

from __future__ import annotations

from fastapi import APIRouter
from lossforensics.api.deps import SettingsDep, StoreDep
from lossforensics.api.schemas import Health
from lossforensics.store.space import free_bytes

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, summary="Liveness and database reachability")
def healthz(store: StoreDep, settings: SettingsDep) -> dict:
    store.ping()
    return {
        "status": "ok",
        "auth": settings.auth_enabled,
        "free_bytes": free_bytes(settings.data_dir),
    }
