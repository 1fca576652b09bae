"""``arena serve``: a live page of a tournament's or league's folder, served with Tornado.

Routes: ``/`` the page; ``/state.json`` the folder's snapshot (:class:`FolderWatch`);
``/events`` the same snapshot as server-sent events, one each time it changes; ``/games/ID``
the replay page of a finished game, made on request by :func:`arena.report.view.view_page`
and kept in memory (a few, the latest used). Nothing else is served: a game is found by its id
in the journal, never by a path from the request.

One watcher reads the folder every :data:`POLL_S` seconds (a ``stat`` of its files, the
journal read again only when they changed) and pushes a changed snapshot to every open page:
SQLite tells no one when a row is committed, so someone has to look, and one reader serving
every page costs the folder the same however many pages are open. The pages need no timer of
their own, and a browser's ``EventSource`` reconnects by itself if the server restarts.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from pathlib import Path

import tornado.httpserver
import tornado.iostream
import tornado.log
import tornado.netutil
import tornado.web

from arena.engine import UnknownGameError
from arena.report.view import view_page
from arena.report.watch import FolderWatch
from arena.runner.game.record import GameRecord
from arena.runner.play.journal import JournalError

#: How often the watcher looks at the folder's files, in seconds.
POLL_S = 0.4
#: Replay pages kept in memory, the latest used.
PAGES_KEPT = 24
#: A comment line sent on an idle event stream this often, so proxies keep it open.
KEEPALIVE_S = 15.0
#: A game id as the journal writes them (``r001-t0001-s0``, a league's ``g000042``...).
GAME_ID = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}"


class Live:
    """The state the handlers share: the folder's watch, the open event streams and the
    replay pages made so far. Everything runs on the server's event loop, except the
    journal reads and the replays, which go to one worker thread so a slow one never holds up
    the page."""

    def __init__(self, watch: FolderWatch) -> None:
        self.watch = watch
        self.error = ""  # why the journal did not read, the last time it did not
        self.streams: set[asyncio.Queue[str]] = set()
        self.pages: OrderedDict[str, str] = OrderedDict()
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="arena-serve")
        self._lock = asyncio.Lock()

    def snapshot(self) -> str:
        return json.dumps({**self.watch.state, "version": self.watch.version,
                           "error": self.error}, separators=(",", ":"))

    async def refresh(self) -> None:
        """Read the folder again if it changed, and tell every stream when the snapshot did."""
        async with self._lock:
            loop = asyncio.get_running_loop()
            try:
                changed = await loop.run_in_executor(self.worker, self.watch.refresh)
                error = ""
            except JournalError as exc:
                changed, error = False, str(exc)
            if changed or error != self.error:
                self.error = error
                text = self.snapshot()
                for queue in self.streams:
                    queue.put_nowait(text)

    async def page(self, game_id: str) -> str | None:
        """The replay page of ``game_id``, or None if it is no finished game of the folder."""
        if game_id in self.pages:
            self.pages.move_to_end(game_id)
            return self.pages[game_id]
        path = self.watch.record(game_id)
        if path is None:
            await self.refresh()  # a game finished since the last look
            path = self.watch.record(game_id)
        if path is None:
            return None
        page = await asyncio.get_running_loop().run_in_executor(self.worker, _replay, path)
        self.pages[game_id] = page
        while len(self.pages) > PAGES_KEPT:
            self.pages.popitem(last=False)
        return page

    async def watch_forever(self) -> None:
        while True:
            await self.refresh()
            await asyncio.sleep(POLL_S)


def _replay(path: Path) -> str:
    try:
        return view_page(GameRecord.load(path))
    except (OSError, ValueError, UnknownGameError) as exc:
        raise tornado.web.HTTPError(500, f"{path.name} cannot be replayed: {exc}") from None


class _Handler(tornado.web.RequestHandler):
    live: Live

    def initialize(self, live: Live) -> None:
        self.live = live

    def set_default_headers(self) -> None:
        # The page loads nothing from elsewhere and is never framed by another site.
        self.set_header("Content-Security-Policy", "default-src 'self'; style-src 'self' "
                        "'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Cache-Control", "no-store")


class _Page(_Handler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(files("arena.report").joinpath("serve_page.html").read_text("utf-8"))


class _State(_Handler):
    async def get(self) -> None:
        await self.live.refresh()
        self.set_header("Content-Type", "application/json")
        self.write(self.live.snapshot())


class _Events(_Handler):
    async def get(self) -> None:
        self.set_header("Content-Type", "text/event-stream")
        queue: asyncio.Queue[str] = asyncio.Queue()
        queue.put_nowait(self.live.snapshot())
        self.live.streams.add(queue)
        try:
            while True:
                try:
                    text = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                    if not text:  # the server is stopping
                        break
                    self.write(f"data: {text}\n\n")
                except TimeoutError:
                    self.write(": still here\n\n")
                await self.flush()
        except tornado.iostream.StreamClosedError:
            pass  # the page was closed
        finally:
            self.live.streams.discard(queue)


class _Game(_Handler):
    async def get(self, game_id: str) -> None:
        page = await self.live.page(game_id)
        if page is None:
            raise tornado.web.HTTPError(404, reason="No such finished game")
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(page)


def application(live: Live) -> tornado.web.Application:
    """The routes over ``live``; any other path is a 404."""
    args = {"live": live}
    return tornado.web.Application([
        (r"/", _Page, args),
        (r"/state\.json", _State, args),
        (r"/events", _Events, args),
        (rf"/games/({GAME_ID})", _Game, args),
    ], compress_response=True, log_function=_log)


def _log(handler: tornado.web.RequestHandler) -> None:
    """Only the server's own failures reach the terminal, not every request."""
    if handler.get_status() >= 500:
        tornado.log.access_log.error("%d %s", handler.get_status(),
                                     handler._request_summary())


async def serve(folder: Path, host: str, port: int,
                started: Callable[[str], None], stop: asyncio.Event | None = None) -> None:
    """Serve ``folder``'s live page on ``host``:``port`` (0: a free port) until ``stop`` is set
    (None: until cancelled), calling ``started`` with the page's address once it listens.
    Raises JournalError if the folder is no tournament or league, OSError if the address
    cannot be bound."""
    live = Live(FolderWatch(folder))
    sockets = tornado.netutil.bind_sockets(port, address=host, family=socket.AF_UNSPEC)
    server = tornado.httpserver.HTTPServer(application(live))
    server.add_sockets(sockets)
    # The address first: the watcher's first reading (the whole journal) follows at once.
    watcher = asyncio.create_task(live.watch_forever())
    try:
        bound = sockets[0].getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        started(f"http://{shown}:{bound[1]}/")
        await (stop.wait() if stop is not None else asyncio.Event().wait())
    finally:
        watcher.cancel()
        server.stop()
        for queue in live.streams:
            queue.put_nowait("")
        await server.close_all_connections()
        live.worker.shutdown(wait=False, cancel_futures=True)

