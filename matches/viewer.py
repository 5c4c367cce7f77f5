"""The browser viewer's server (``ggp view``, ``ggp match --view``, ``ggp
study --view``): the standard library's threading HTTP server on loopback,
serving the page (``matches/static``: one HTML file, a script and a
stylesheet, no build step, nothing fetched from elsewhere) and its JSON.

=====================  ===============================================
``/``                  the page (its routes: ``#/``, ``#/match/ID``,
                       ``#/live``, ``#/study``)
``/api/matches``       the match list (:class:`matches.views.Library`)
``/api/match/ID``      one match, step by step (:func:`views.match_view`)
``/api/study``         the study's tables (:func:`views.study_view`)
``/api/plot/NAME``     a plot the study drew (PNG)
``/api/events``        the running match or study, pushed as server-sent
                       events: each event is the whole document again
=====================  ===============================================

A request that fails answers ``{"problem": "..."}`` in one sentence; the
server and the other pages go on.
"""

from __future__ import annotations

import json
import mimetypes
import threading
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

from matches.views import Damaged, Library, Live, match_view, study_view

STATIC = Path(__file__).with_name("static")
#: Seconds between keep-alive comments on an idle event stream.
KEEPALIVE = 10.0
#: Match documents kept in memory (records do not change once stored).
CACHED = 32


class Viewer:
    """Serves the page for ``library`` (a :class:`Library`), a study folder
    (``study``) and a running match or study (``live``, a :class:`Live`).
    ``port`` 0 takes any free port; :attr:`url` says which."""

    def __init__(
        self,
        library: Library | None = None,
        study=None,
        live: Live | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        self.library, self.study, self.live = library or Library(), study, live
        self._views: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self.httpd = ThreadingHTTPServer((host, port), _handler(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> Viewer:
        """Serve from a background thread."""
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, daemon=True, name="ggp-viewer"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # the event streams end at their next keep-alive
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- the documents -----------------------------------------------------------
    def matches(self) -> dict:
        return {
            "matches": self.library.matches(),
            "live": self.live.kind if self.live is not None else None,
            "study": self.study is not None
            or (self.live is not None and self.live.kind == "study"),
        }

    def match(self, match_id: str) -> dict:
        with self._lock:
            if match_id in self._views:
                self._views.move_to_end(match_id)
                return self._views[match_id]
        view = match_view(self.library.record(match_id))
        with self._lock:
            self._views[match_id] = view
            while len(self._views) > CACHED:
                self._views.popitem(last=False)
        return view

    def study_document(self) -> dict:
        if self.live is not None and self.live.kind == "study" and self.live.document:
            return self.live.document
        if self.study is None:
            raise Damaged("no study here: give one with ggp view --study DIR")
        return study_view(self.study)

    def plot(self, name: str) -> Path:
        folder = Path(self.study) if self.study is not None else None
        path = folder / name if folder is not None else None
        if path is None or path.suffix != ".png" or path.parent != folder or not path.is_file():
            raise Damaged(f"no plot {name}")
        return path


def _handler(viewer: Viewer):
    class Handler(BaseHTTPRequestHandler):
        server_version = "ggp-viewer"

        def log_message(self, *args):  # quiet: the terminal belongs to the match
            pass

        def do_GET(self):
            path = unquote(urlparse(self.path).path)
            try:
                if path in ("/", "/index.html"):
                    self._file(STATIC / "index.html")
                elif path.startswith("/static/"):
                    name = path[len("/static/") :]
                    if "/" in name or not (STATIC / name).is_file():
                        raise Damaged(f"no file {name}")
                    self._file(STATIC / name)
                elif path == "/api/matches":
                    self._json(viewer.matches())
                elif path.startswith("/api/match/"):
                    self._json(viewer.match(path[len("/api/match/") :]))
                elif path == "/api/study":
                    self._json(viewer.study_document())
                elif path.startswith("/api/plot/"):
                    self._file(viewer.plot(path[len("/api/plot/") :]))
                elif path == "/api/events":
                    self._events()
                else:
                    raise Damaged(f"no page {path}")
            except Damaged as exc:
                self._json({"problem": str(exc)}, 404)
            except (BrokenPipeError, ConnectionResetError):
                pass
            except Exception as exc:  # noqa: BLE001 - one sentence to the page, never a trace
                self._json({"problem": f"{type(exc).__name__}: {exc}"}, 500)

        def _json(self, data, status=200):
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _file(self, path: Path):
            body = path.read_bytes()
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _events(self):
            live = viewer.live
            if live is None:
                raise Damaged("nothing is running: start one with ggp match --view")
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            seen = 0
            while not viewer.stopping.is_set():
                version, document = live.wait(seen, KEEPALIVE)
                if version > seen and document is not None:
                    seen = version
                    self.wfile.write(b"data: " + json.dumps(document).encode() + b"\n\n")
                else:
                    self.wfile.write(b": idle\n\n")
                self.wfile.flush()

    return Handler


def headless_chromium(size=(1200, 900)):
    """A headless Chromium driven by selenium, for the viewer's browser tests
    and its screenshots (``docs/screenshots.py``): Debian's ``chromium`` and
    ``chromedriver`` (``apt-get install chromium chromium-driver``), no sandbox
    (CI runs as root) and no background traffic (the machines have no network).
    Raises RuntimeError, saying what is missing, when it cannot start."""
    import shutil

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (binary and driver):
        raise RuntimeError("no Chromium here: apt-get install chromium chromium-driver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise RuntimeError("selenium is not installed: pip install -e '.[test]'") from None
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={size[0]},{size[1]}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)
