"""Headless Chromium driven over the DevTools protocol on a pipe, for the report's tests.

Chromium started with ``--remote-debugging-pipe`` reads protocol commands from its file
descriptor 3 and writes replies and events to descriptor 4, each message JSON ended by a NUL
byte: no websocket and no port. :class:`Browser` opens one page, loads a URL, gathers every
console message, uncaught exception and log entry, measures elements and takes screenshots;
every wait is bounded, and the browser is killed by its own process group.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

CHROMIUM = Path("/usr/bin/chromium")


class BrowserError(RuntimeError):
    """The browser did not answer in time, or answered with an error."""


class Browser:
    """One headless Chromium with one page."""

    def __init__(self, timeout: float = 20.0, width: int = 1280, height: int = 900) -> None:
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._buffer = b""
        self._profile = tempfile.mkdtemp(prefix="arena-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser expects the pipe on descriptors 3 and 4; copies above 10 first, so
        # moving one into place never overwrites the other.
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)

        def place_pipes() -> None:
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        args = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}", "about:blank"]
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         close_fds=False, preexec_fn=place_pipes,
                                         start_new_session=True)
        finally:
            for fd in (to_browser_r, from_browser_w, high_r, high_w):
                os.close(fd)
        try:
            self._open_page()
        except BaseException:
            self.close()
            raise

    def _open_page(self) -> None:
        self.session = ""
        self.target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=self.target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=self.session)

    def new_page(self) -> None:
        """Close the page and open a fresh one, forgetting every event of the old: what a test
        sees of a browser another test used is what it would see of a browser of its own."""
        old = self.target
        self._open_page()
        self.call("Target.closeTarget", targetId=old)
        self.events = []

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    # ------------------------------------------------------------------ the protocol
    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data):]

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed its pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        value: dict[str, Any] = json.loads(message)
        return value

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its reply, keeping the events that come before."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            if "method" in reply:
                self._keep(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event ``method`` (of those not yet seen, or still to come)."""
        for event in self.events:
            if event["method"] == method:
                return event
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if "method" in message and self._keep(message) and message["method"] == method:
                return message

    def _keep(self, event: dict[str, Any]) -> bool:
        """Keep ``event`` if it is the page's (not that of a page closed before); whether kept."""
        if event.get("sessionId") != self.session:
            return False
        self.events.append(event)
        return True

    # ------------------------------------------------------------------ the page
    def load(self, url: str) -> None:
        """Open ``url`` and wait for its load event (not an earlier page's)."""
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", session=self.session, url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", session=self.session, expression=expression,
                          returnByValue=True)
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def problems(self) -> list[str]:
        """Every console error or warning, uncaught exception and error or warning log entry
        so far (a round trip first, so events already sent are in)."""
        self.evaluate("1")
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                found.append(f"uncaught: {details.get('exception', {}).get('description')}"
                             f" {details.get('text')}")
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error",
                                                                              "warning",
                                                                              "assert"):
                found.append(f"console.{params['type']}: "
                             f"{[a.get('value', a.get('description')) for a in params['args']]}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error",
                                                                              "warning"):
                found.append(f"log {params['entry']['level']}: {params['entry']['text']}")
        return found

    def screenshot(self, x: float, y: float, width: float,
                   height: float) -> npt.NDArray[np.uint8]:
        """The page's pixels in a rectangle (page coordinates), as rows x columns x RGB."""
        # optimizeForSpeed: every row gets the Up filter, which the decoder undoes at once.
        reply = self.call("Page.captureScreenshot", session=self.session, format="png",
                          captureBeyondViewport=True, optimizeForSpeed=True,
                          clip={"x": x, "y": y, "width": width, "height": height, "scale": 1})
        return decode_png(base64.b64decode(reply["data"]))

    def close(self) -> None:
        """Ask the browser to quit, then kill its process group whatever it did."""
        try:
            if self.proc.poll() is None:
                with contextlib.suppress(OSError):
                    self._send({"id": self._next_id + 1, "method": "Browser.close"})
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=3)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        finally:
            for fd in (self._to_browser, self._from_browser):
                with contextlib.suppress(OSError):
                    os.close(fd)
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SharedBrowser:
    """The Chromium of one test process, started for the first test that asks for one and
    started again only if a test left it dead."""

    def __init__(self) -> None:
        self.browser: Browser | None = None

    def fresh(self) -> Browser:
        """The browser with a fresh page."""
        if self.browser is not None and self.browser.alive:
            self.browser.new_page()
        else:
            if self.browser is not None:
                self.browser.close()
            self.browser = Browser()
        return self.browser

    def close(self) -> None:
        if self.browser is not None:
            self.browser.close()


@pytest.fixture(scope="session")
def shared_browser() -> Iterator[SharedBrowser]:
    """Chromium's start, about a second of CPU, made once per test process (see ``browser``)."""
    shared = SharedBrowser()
    try:
        yield shared
    finally:
        shared.close()


@pytest.fixture
def browser(shared_browser: SharedBrowser) -> Browser:
    """A headless Chromium on a fresh page, with no event of an earlier test's page: the test
    process's one browser, whose page each test that asks for it gets anew."""
    return shared_browser.fresh()


def decode_png(data: bytes) -> npt.NDArray[np.uint8]:
    """The RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, []
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    rows = raw.reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), dtype=np.uint8)
    prior = np.zeros(width * channels, dtype=np.int32)
    for r in range(height):
        kind, line = rows[r, 0], rows[r, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prior) & 255
        else:
            cur = _unfilter_sequential(int(kind), line, prior, channels)
        out[r] = cur
        prior = cur
    return out.reshape(height, width, channels)[:, :, :3]


def _unfilter_sequential(kind: int, line: npt.NDArray[np.int32], prior: npt.NDArray[np.int32],
                         bpp: int) -> npt.NDArray[np.int32]:
    """Undo the Sub (1), Average (3) or Paeth (4) filter, one pixel at a time (each depends on
    the pixel to its left)."""
    cur = line.copy()
    left = np.zeros(bpp, dtype=np.int32)
    up_left = np.zeros(bpp, dtype=np.int32)
    for i in range(0, len(line), bpp):
        up = prior[i:i + bpp]
        if kind == 1:
            pred = left
        elif kind == 3:
            pred = (left + up) // 2
        elif kind == 4:
            p = left + up - up_left
            pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - up_left)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, up_left))
        else:
            raise ValueError(f"unknown PNG filter {kind}")
        cur[i:i + bpp] = (line[i:i + bpp] + pred) & 255
        left = cur[i:i + bpp]
        up_left = up
    return cur
