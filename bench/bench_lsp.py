"""Benchmark run by hand (not a timed test): `python bench/bench_lsp.py`.

`rules lsp` (this checkout's code) on the real books, driven over its stdio:

* hover latency on an idle server (the floor), on VOID's 113 kB source;
* the same hover during a storm of edits: single-character edits typed into that
  file every STORM_EVERY seconds (faster than anyone types: key repeat), a hover
  every 0.1 s from another thread; latency from sending to the answer, median, p95
  and max, as a ratio to the idle floor, for every answer and for those with a
  result (a hover still waiting when a newer one arrives is answered as superseded);
  how many times the book was checked during the storm (debounced: ideally none);
  and the time from the last edit to the diagnostics of the last version;
* a 3 MB document (over the language's 2 MB limit): time to its diagnostic, hover on it;
* a 1.9 MB document (just under): time to its diagnostics, hover after an edit.

BENCH_STORM (edits, default 400) and BENCH_STORM_EVERY (seconds, default 0.01) set the storm.
"""
from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))      # this checkout's code, as the server runs it

from rules_dsl.faces.lsp_framing import FrameReader  # noqa: E402
STORM = int(os.environ.get("BENCH_STORM", "400"))
STORM_EVERY = float(os.environ.get("BENCH_STORM_EVERY", "0.01"))


class Server:
    def __init__(self, books: Path, cache: Path):
        env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache),
                   PYTHONPATH=os.pathsep.join([str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
        self.proc = subprocess.Popen([sys.executable, "-m", "rules_dsl", "lsp"], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.cond = threading.Condition()
        self.send_lock = threading.Lock()
        self.answers: dict = {}          # id -> (time, message)
        self.published: list = []        # (time, uri, version, diagnostics)
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for body in FrameReader(functools.partial(os.read, self.proc.stdout.fileno())):
            msg = json.loads(body)
            now = time.perf_counter()
            with self.cond:
                if "id" in msg and "method" not in msg:
                    self.answers[msg["id"]] = (now, msg)
                elif msg.get("method") == "textDocument/publishDiagnostics":
                    p = msg["params"]
                    self.published.append((now, p["uri"], p.get("version"), p["diagnostics"]))
                self.cond.notify_all()

    def send(self, msg):
        body = json.dumps(msg).encode()
        with self.send_lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def request(self, method, params, wait=True):
        with self.cond:
            self.next_id += 1
            rid = self.next_id
        sent = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if not wait:
            return rid, sent
        with self.cond:
            self.cond.wait_for(lambda: rid in self.answers, 600)
            at, msg = self.answers[rid]
        return at - sent, msg

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics_for(self, uri, version, after=0.0):
        with self.cond:
            self.cond.wait_for(lambda: any(u == uri and (v or 0) >= version and t >= after
                                           for t, u, v, _ in self.published), 600)
            return next((t, d) for t, u, v, d in self.published if u == uri and (v or 0) >= version and t >= after)

    def stop(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        return self.proc.wait(timeout=60)


def ms(x):
    return f"{x * 1000:7.1f} ms"


def main():
    books = REPO / "rulebooks"
    void = (books / "void.rules").resolve()
    text = void.read_text(encoding="utf-8")
    uri = void.as_uri()
    lines = text.split("\n")
    hover_line = next(i for i, line in enumerate(lines) if "mechanic cd_check_passes(" in line)
    hover_at = {"line": hover_line, "character": lines[hover_line].index("cd_check_passes") + 3}
    hover_params = {"textDocument": {"uri": uri}, "position": hover_at}

    with tempfile.TemporaryDirectory() as tmp:
        s = Server(books, Path(tmp) / "cache")
        s.request("initialize", {"processId": os.getpid(), "rootUri": books.as_uri(), "capabilities": {}})
        s.notify("initialized", {})
        t0 = time.perf_counter()
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}})
        t_open, _ = s.diagnostics_for(uri, 1)
        print(f"open void.rules ({len(text) // 1000} kB), first diagnostics: {ms(t_open - t0)}")

        idle = [s.request("textDocument/hover", hover_params)[0] for _ in range(30)]
        floor = statistics.median(idle)
        print(f"hover, idle server           median {ms(floor)}  max {ms(max(idle))}  (N={len(idle)})")

        # the storm: type `# storm ...` on a new last line, one character per edit
        last = len(lines) - 1          # the text ends with a newline: the last line is empty
        typed = ("# a storm of edits, typed as fast as keys repeat " * 20)[:STORM]
        hovers, stop = [], threading.Event()

        def hover_loop():
            while not stop.is_set():
                hovers.append(s.request("textDocument/hover", hover_params, wait=False))
                time.sleep(0.1)
        before = len(s.published)
        hover_thread = threading.Thread(target=hover_loop)
        storm_start = time.perf_counter()
        hover_thread.start()
        version = 1
        for k, ch in enumerate(typed):
            version += 1
            s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": last, "character": k}, "end": {"line": last, "character": k}}, "text": ch}]})
            time.sleep(STORM_EVERY)
        storm_end = time.perf_counter()
        stop.set()
        hover_thread.join()
        t_final, diags = s.diagnostics_for(uri, version)
        with s.cond:
            s.cond.wait_for(lambda: all(rid in s.answers for rid, _ in hovers), 600)
            lat = sorted(s.answers[rid][0] - sent for rid, sent in hovers)
            answered = sorted(s.answers[rid][0] - sent for rid, sent in hovers if "result" in s.answers[rid][1])
            during = [p for p in s.published[before:] if p[1] == uri and p[0] <= storm_end]

        def spread(xs):
            return (f"median {ms(statistics.median(xs))}  p95 {ms(xs[int(0.95 * (len(xs) - 1))])}  max {ms(xs[-1])}"
                    f"  (median {statistics.median(xs) / floor:.0f}x idle)") if xs else "none"
        print(f"storm: {len(typed)} edits in {storm_end - storm_start:.2f} s, {len(lat)} hovers during it, "
              f"{len(answered)} answered with a result, {len(lat) - len(answered)} superseded by a newer one")
        print(f"hover, during the storm, every answer   {spread(lat)}")
        print(f"hover, during the storm, with a result  {spread(answered)}")
        print(f"book checked during the storm: {len(during)} times; "
              f"last edit -> its diagnostics: {ms(t_final - storm_end)} ({len(diags)} diagnostics)")

        # documents of several megabytes, in a scratch folder book
        scratch = Path(tmp) / "scratch"
        scratch.mkdir()
        rule = 'rule r{0} "R {0}" {{\n  """Prose of rule {0}, long enough to make the file grow quickly."""\n}}\n'
        for label, count in (("3.3 MB", 34_000), ("1.9 MB", 20_000)):
            big = scratch / f"big{count}.rules"
            body = 'section huge "Huge" {\n' + "".join(rule.format(i) for i in range(count)) + "}\n"
            big_uri = big.as_uri()
            t0 = time.perf_counter()
            s.notify("textDocument/didOpen", {"textDocument": {"uri": big_uri, "languageId": "rules", "version": 1,
                                                               "text": body}})
            t_big, d = s.diagnostics_for(big_uri, 1)
            first = d[0]["message"].split("\n")[0] if d else "no diagnostics"
            print(f"open a {label} document: diagnostics after {ms(t_big - t0)}: {first}")
            h, _ = s.request("textDocument/hover", {"textDocument": {"uri": big_uri}, "position": {"line": 5, "character": 6}})
            s.notify("textDocument/didChange", {"textDocument": {"uri": big_uri, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": 2, "character": 2}, "end": {"line": 2, "character": 2}}, "text": "x"}]})
            h2, _ = s.request("textDocument/hover", {"textDocument": {"uri": big_uri}, "position": {"line": 5, "character": 6}})
            print(f"  hover on it {ms(h)}; the first hover after an edit {ms(h2)}")
            s.notify("textDocument/didClose", {"textDocument": {"uri": big_uri}})
        print(f"exit code after shutdown and exit: {s.stop()}")


if __name__ == "__main__":
    main()
