"""Headless Chromium driven over the DevTools protocol: open a page, wait for what it renders,
click, read the DOM and take a screenshot, the way a user looks at the UI.

A plain ``chromium --screenshot`` cannot click; an asset page shows a Markdown metadata entry
(the leaderboard's plot) behind its "Show Markdown" button, so the tests that must see the plot
drive the browser through this. Only ``websockets`` (the DevTools protocol is JSON over a
websocket) and the Debian ``chromium`` are needed; the browser is stopped on exit.
"""

from __future__ import annotations

import base64
import json
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

# How the tests run Chromium: headless, nothing fetched from the network, no first-run prompts.
HEADLESS_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
DEVTOOLS_FLAGS = ("--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0")


class BrowserError(AssertionError):
    """The page did not do what the test waited for."""


class Page:
    """One tab, spoken to over its DevTools websocket."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.next_id = 0

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call a DevTools method and return its result (events in between are dropped)."""
        self.next_id += 1
        ask = self.next_id
        self.socket.send(json.dumps({"id": ask, "method": method, "params": params}))
        while True:
            reply = json.loads(self.socket.recv(timeout=120))
            if reply.get("id") != ask:
                continue
            if "error" in reply:
                raise BrowserError(f"{method}: {reply['error'].get('message')}")
            result: dict[str, Any] = reply.get("result", {})
            return result

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, what: str, timeout_s: float = 90.0) -> Any:
        """Poll ``expression`` until it is truthy; its value."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.25)
        raise BrowserError(f"the page did not show {what} within {timeout_s:.0f} s")

    def goto(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'", f"{url} loaded")

    def click_text(self, text: str, timeout_s: float = 90.0) -> None:
        """Click the first button or link whose text is ``text`` once it is on the page."""
        finder = (
            "[...document.querySelectorAll('button, a, [role=button]')]"
            f".find(e => e.textContent.trim() === {json.dumps(text)})"
        )
        self.wait_for(f"!!({finder})", f"a {text!r} button", timeout_s)
        self.evaluate(f"({finder}).click(), true")

    def press_text(self, text: str, timeout_s: float = 90.0, within: str = "body") -> None:
        """Click, with the mouse, the first enabled button or link under the CSS selector
        ``within`` whose text is ``text``, once it is on the page: a press and a release at its
        centre (``Input.dispatchMouseEvent``), the events a person's click sends."""
        finder = (
            f"[...document.querySelector({json.dumps(within)})"
            ".querySelectorAll('button, a, [role=button]')]"
            f".find(e => e.textContent.trim() === {json.dumps(text)} && !e.disabled)"
        )
        self.wait_for(f"!!({finder})", f"an enabled {text!r} button", timeout_s)
        self.click_at(finder)

    def click_at(self, finder: str) -> None:
        """A mouse click at the centre of the element ``finder`` (a JavaScript expression)."""
        self.evaluate(f"({finder}).scrollIntoView({{block: 'center'}}), true")
        box = self.evaluate(
            f"(() => {{ const r = ({finder}).getBoundingClientRect(); "
            "return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def type_text(self, text: str) -> None:
        """Type ``text`` into the focused field, as a keyboard does (``Input.insertText``)."""
        self.send("Input.insertText", text=text)

    def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                nativeVirtualKeyCode=13,
                text="\r" if kind == "keyDown" else "",
            )

    def text(self) -> str:
        """The page's visible text."""
        return str(self.evaluate("document.body.innerText"))

    def screenshot(self, shot: Path) -> Path:
        data = self.send("Page.captureScreenshot", format="png")["data"]
        shot.write_bytes(base64.b64decode(data))
        return shot


@contextmanager
def browser(chromium: str, profile: Path, size: tuple[int, int]) -> Iterator[Page]:
    """A headless Chromium with a window of ``size`` and a fresh profile folder; its first tab."""
    profile.mkdir(parents=True, exist_ok=True)
    width, height = size
    window = f"--window-size={width},{height}"
    process = subprocess.Popen(
        [chromium, *HEADLESS_FLAGS, *DEVTOOLS_FLAGS, f"--user-data-dir={profile}", window],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port = devtools_port(profile, process)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as reply:
            targets = json.load(reply)
        tab = next(t for t in targets if t.get("type") == "page")
        with connect(tab["webSocketDebuggerUrl"], max_size=None, open_timeout=30) as socket:
            page = Page(socket)
            page.send("Page.enable")
            page.send(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            yield page
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def devtools_port(profile: Path, process: subprocess.Popen[bytes], timeout_s: float = 60) -> int:
    """The port Chromium chose (``--remote-debugging-port=0`` writes it to its profile)."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BrowserError(f"chromium exited with status {process.returncode} at start")
        if marker.is_file():
            first = marker.read_text().split("\n", 1)[0].strip()
            if first.isdigit():
                return int(first)
        time.sleep(0.1)
    raise BrowserError(f"chromium did not open its DevTools port within {timeout_s:.0f} s")
