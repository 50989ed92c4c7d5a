"""The ONE table from the library's error codes to HTTP statuses, rendered as RFC 9457
problem+json.

Every problem carries the error `code` plus `message`, `file`, `line` and `byte` as extension
members, so a client rebuilds the typed error with `classifiers.errors.error_from_dict`.
FastAPI's request validation errors become 422 `bad_input` problems (with the pydantic `errors`
list); unknown routes and methods become problems too; anything unexpected is logged and answered
as a 500 problem rather than a bare traceback.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from lossforensics.classifiers.errors import LossForensicsError
from lossforensics.store.space import is_full, storage_full
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("lossforensics.api")

PROBLEM_JSON = "application/problem+json"

STATUS_BY_CODE: dict[str, int] = {
    "error": 400,
    "bad_input": 400,
    "empty_input": 422,
    "unknown_format": 415,
    "corrupt_input": 422,
    "no_logs": 422,
    "unsafe_archive": 400,
    "too_large": 413,
    "invalid_frame": 422,
    "invalid_role": 422,
    "not_found": 404,
    "conflict": 409,
    "unauthorized": 401,
    "forbidden": 403,
    "storage_full": 507,
    "probe_failed": 422,
}

_CODE_BY_HTTP_STATUS = {
    404: "not_found",
    401: "unauthorized",
    413: "too_large",
    415: "unknown_format",
}


def status_for(exc: LossForensicsError) -> int:
    """The status of the nearest class in the error's ancestry that the table names."""
    for cls in type(exc).__mro__:
        code = getattr(cls, "code", None)
        if code in STATUS_BY_CODE:
            return STATUS_BY_CODE[code]
    return 400


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    instance: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """A problem+json response; `extra` become extension members."""
    body = {
        "type": f"urn:lossforensics:error:{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **({"instance": instance} if instance else {}),
        **extra,
    }
    return JSONResponse(
        jsonable_encoder(body), status_code=status, media_type=PROBLEM_JSON, headers=headers
    )


async def _library_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LossForensicsError)
    status = status_for(exc)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return problem(
        status,
        exc.code,
        str(exc),
        instance=request.url.path,
        headers=headers,
        message=exc.message,
        file=exc.file,
        line=exc.line,
        byte=exc.byte,
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {
            "loc": list(e.get("loc", ())),
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in exc.errors()
    ]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    detail = f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
    return problem(
        422,
        "bad_input",
        detail,
        instance=request.url.path,
        message=detail,
        file=None,
        line=None,
        byte=None,
        errors=errors,
    )


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _CODE_BY_HTTP_STATUS.get(exc.status_code, "bad_input")
    detail = str(exc.detail)
    return problem(
        exc.status_code,
        code,
        detail,
        instance=request.url.path,
        headers=getattr(exc, "headers", None),
        message=detail,
        file=None,
        line=None,
        byte=None,
    )


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    if is_full(exc):  # a full disk is the server's condition, not a bug: say so (507)
        log.error("disk full on %s %s: %s", request.method, request.url.path, exc)
        return await _library_error(request, storage_full("the request's data"))
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem(
        500,
        "error",
        "internal error (logged on the server)",
        instance=request.url.path,
        message="internal error",
        file=None,
        line=None,
        byte=None,
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(LossForensicsError, _library_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
