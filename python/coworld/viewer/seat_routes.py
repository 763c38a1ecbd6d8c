"""The routes of human seats: `/seat/TOKEN` (the page), `/seat/TOKEN/view` (the seat's
payload as JSON) and `/seat/TOKEN/move` (play). A token that names no seat is a 404;
a token reaches its own seat's payload and nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from ..seats.human import HumanTable, Refused

STATIC = Path(__file__).parent / "static"
#: Answers never cached: a payload is one moment of one seat.
NO_STORE = {"cache-control": "no-store"}


def seat_routes(table: HumanTable) -> list[Route]:
    def seat_of(request: Request) -> int | None:
        return table.seat_of(request.path_params["token"])

    def unknown() -> JSONResponse:
        return JSONResponse({"error": "no seat has this link"}, status_code=404, headers=NO_STORE)

    async def page(request: Request) -> Any:
        if seat_of(request) is None:
            return unknown()
        return FileResponse(STATIC / "seat.html", headers=NO_STORE)

    async def view(request: Request) -> JSONResponse:
        seat = seat_of(request)
        if seat is None:
            return unknown()
        return JSONResponse(table.payload(seat), headers=NO_STORE)

    async def move(request: Request) -> JSONResponse:
        seat = seat_of(request)
        if seat is None:
            return unknown()
        try:
            body = json.loads(await request.body() or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = None
        try:
            return JSONResponse(table.submit(seat, body), headers=NO_STORE)
        except Refused as refused:
            return JSONResponse(refused.body, status_code=refused.status, headers=NO_STORE)

    return [
        Route("/seat/{token}", page),
        Route("/seat/{token}/view", view),
        Route("/seat/{token}/move", move, methods=["POST"]),
    ]
