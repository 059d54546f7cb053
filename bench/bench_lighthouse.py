"""Lighthouse (mobile) on the site's heaviest pages, served gzipped as a static host serves them
(run by hand, not a test).

    python bench/bench_lighthouse.py _build/html                   # Dust's Suppression page, 3 runs
    python bench/bench_lighthouse.py _build/html --runs 5 --page docs/index.html
    python bench/bench_lighthouse.py _build/html --heaviest 2      # also the 2 biggest section pages

Needs Lighthouse from npm (not a project dependency): install it in a scratch folder outside
the repository, ``npm install lighthouse@12`` there, and pass ``--lighthouse
<that folder>/node_modules/.bin/lighthouse`` (or put it on PATH, or set ``LIGHTHOUSE``).
Chromium is ``/usr/bin/chromium`` unless ``CHROME_PATH`` says otherwise.

The built folder is served from localhost by a small server of our own: every text file
(HTML, CSS, JavaScript, JSON, SVG) gzipped when the browser accepts it, `.mjs` as
JavaScript, nothing cached by the browser between runs (Lighthouse clears its storage).
Lighthouse runs with its default mobile settings (a mid-range phone, simulated slow 4G and
a 4x slower CPU), so the absolute times are Lighthouse's estimates, not this machine's; each
figure is the median of ``--runs`` runs.  The machine is shared: say so beside the figures.

Prints, per page: performance score, cumulative layout shift, largest contentful paint,
total blocking time, first contentful paint, speed index, and the bytes transferred.
"""
from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import ClassVar

TEXT = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt", ".inv"}
RULE_ANCHOR = 'id="dust-tactics:suppression"'
AUDITS = [("cumulative-layout-shift", "CLS", "{:.3f}"), ("largest-contentful-paint", "LCP ms", "{:.0f}"),
          ("total-blocking-time", "TBT ms", "{:.0f}"), ("first-contentful-paint", "FCP ms", "{:.0f}"),
          ("speed-index", "SI ms", "{:.0f}"), ("total-byte-weight", "bytes", "{:.0f}")]


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files; a text file gzipped (level 6, as nginx's default) for a client that
    accepts it, as any static host serves a site."""
    extensions_map: ClassVar[dict] = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                                      ".mjs": "text/javascript", ".js": "text/javascript", ".svg": "image/svg+xml"}
    _gz: ClassVar[dict] = {}        # (path, mtime, size) -> gzipped bytes

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            return super().send_head()
        ext = os.path.splitext(path)[1]
        if ext not in TEXT or "gzip" not in self.headers.get("Accept-Encoding", "") or not os.path.isfile(path):
            return super().send_head()
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
        body = self._gz.get(key)
        if body is None:
            with open(path, "rb") as f:
                body = self._gz[key] = gzip.compress(f.read(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)


def serve(folder: Path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def find_lighthouse(given: str | None) -> str:
    exe = given or os.environ.get("LIGHTHOUSE") or shutil.which("lighthouse")
    if not exe or not Path(exe).exists() and not shutil.which(exe):
        sys.exit("Lighthouse not found: `npm install lighthouse@12` in a scratch folder and pass "
                 "--lighthouse <folder>/node_modules/.bin/lighthouse")
    return exe


def run_once(exe: str, url: str, out: Path) -> dict:
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    cmd = [exe, url, "--quiet", "--only-categories=performance", "--output=json", f"--output-path={out}",
           "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 or not out.is_file():
        raise SystemExit(f"lighthouse failed on {url}:\n{proc.stderr[-2000:]}")
    report = json.loads(out.read_text(encoding="utf-8"))
    row = {"performance": round(100 * (report["categories"]["performance"]["score"] or 0))}
    for audit, label, _ in AUDITS:
        row[label] = report["audits"][audit].get("numericValue")
    shifts = report["audits"].get("layout-shifts", {}).get("details", {}).get("items", [])
    row["shifted"] = [(i.get("node", {}).get("selector", "?"), round(i.get("score", 0), 3)) for i in shifts[:5]]
    return row


def pages_to_measure(site: Path, given: list, heaviest: int) -> list:
    if given:
        return given
    books = site / "docs" / "books"
    pages = [p for p in books.rglob("*.html") if not p.relative_to(books).parts[0].startswith("_")]
    rule = next((p for p in sorted(pages) if RULE_ANCHOR in p.read_text(encoding="utf-8")), None)
    out = [rule.relative_to(site).as_posix()] if rule else []
    for p in sorted(pages, key=lambda p: -p.stat().st_size)[:heaviest]:
        rel = p.relative_to(site).as_posix()
        if rel not in out:
            out.append(rel)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", type=Path, help="the built site (the html output folder)")
    ap.add_argument("--page", action="append", default=[],
                    help="a page, relative to the site (repeatable; instead of the default pages)")
    ap.add_argument("--heaviest", type=int, default=0, help="with the default page: also the N biggest book pages")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lighthouse", help="the lighthouse executable")
    ap.add_argument("--json", type=Path, help="write every run's figures there")
    args = ap.parse_args(argv)
    site = args.site.resolve()
    exe = find_lighthouse(args.lighthouse)
    server = serve(site)
    base = f"http://127.0.0.1:{server.server_port}"
    results = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for rel in pages_to_measure(site, args.page, args.heaviest):
                html = (site / rel).stat().st_size
                runs = [run_once(exe, f"{base}/{rel}", Path(tmp) / f"r{i}.json") for i in range(args.runs)]
                results[rel] = runs
                med = {k: statistics.median(r[k] for r in runs) for k in ["performance"] + [a[1] for a in AUDITS]}
                print(f"{rel}  ({html / 1024:.0f} KB of HTML, {args.runs} run(s), median)")
                print(f"  performance {med['performance']:.0f}  " + "  ".join(
                    f"{label} {fmt.format(med[label])}" for _, label, fmt in AUDITS))
                print(f"  performance by run: {[r['performance'] for r in runs]}; CLS by run: "
                      f"{[round(r['CLS'], 3) for r in runs]}")
                worst = max(runs, key=lambda r: r["CLS"])
                if worst["shifted"]:
                    print(f"  what shifted (worst run): {worst['shifted']}")
    finally:
        server.shutdown()
        server.server_close()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
