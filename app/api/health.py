"""/healthz: the process answers, its metadata database is reachable, and how much disk is left
for uploads and frames (no auth).

Answered on the event loop, the database ping on a thread of its own: while the shared thread
pool is busy (reads of frames, many report requests in flight) a liveness probe does not queue
behind them.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from fastapi import APIRouter
from lossforensics.api.deps import SettingsDep, StoreDep
from lossforensics.api.schemas import Health
from lossforensics.store.space import free_bytes

router = APIRouter(tags=["health"])

_PING = ThreadPoolExecutor(1, thread_name_prefix="lossforensics-healthz")


@router.get("/healthz", response_model=Health, summary="Liveness and database reachability")
async def healthz(store: StoreDep, settings: SettingsDep) -> dict:
    await asyncio.get_running_loop().run_in_executor(_PING, store.ping)
    return {
        "status": "ok",
        "auth": settings.auth_enabled,
        "free_bytes": free_bytes(settings.data_dir),  # one statvfs call
    }
