"""/healthz: the process answers and its metadata database is reachable (no auth)."""

from __future__ import annotations

from fastapi import APIRouter
from lossforensics.api.deps import SettingsDep, StoreDep
from lossforensics.api.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, summary="Liveness and database reachability")
def healthz(store: StoreDep, settings: SettingsDep) -> dict:
    store.ping()
    return {"status": "ok", "auth": settings.auth_enabled}
