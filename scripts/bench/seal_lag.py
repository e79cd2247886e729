#!/usr/bin/env python3
"""How long an acknowledged event waits to be sealed into the column store (issue 34, "sealing
keeps up"): `serve --engine segments` under an open-loop load at RATE events/s for SECONDS, while
this script watches the segment directory every 20 ms. A segment is created when the previous one
is closed for a seal, and removed only after its events are in published chunks, so the time from
a segment's first sighting to its removal bounds the wait of every event written into it (to
within the 20 ms poll). Segment 1 is left out: it is open, empty, while handz-load prepares.

    scripts/bench/seal_lag.py BIN_DIR CATALOG [RATE] [SECONDS]     (defaults 50000, 30)
"""
import os, re, subprocess, sys, tempfile, threading, time

bin_dir, catalog = sys.argv[1], sys.argv[2]
rate = sys.argv[3] if len(sys.argv) > 3 else "50000"
seconds = sys.argv[4] if len(sys.argv) > 4 else "30"
work = tempfile.mkdtemp(prefix="handz-seal-lag.")
log = open(os.path.join(work, "server.log"), "w")
server = subprocess.Popen([os.path.join(bin_dir, "handz-analytics"), "serve", "--catalog", catalog, "--port", "0", "--log-level", "warning",
                           "--max-concurrent-requests", "512", "--engine", "segments"], cwd=work, stdout=log, stderr=subprocess.STDOUT)
try:
    port = None
    for _ in range(200):
        text = open(os.path.join(work, "server.log")).read()
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", text)
        if match:
            port = match.group(1)
            break
        time.sleep(0.05)
    assert port, "the server did not start"
    segments = os.path.join(work, "handz-events.sqlite.segments")
    seen, lifetimes, stop = {}, [], threading.Event()

    def watch():
        while not stop.is_set():
            now = time.monotonic()
            # Segment 1 is opened at start and waits, empty, while handz-load builds its bodies.
            names = {n for n in os.listdir(segments) if n.endswith(".hzlog") and int(n[:16], 16) > 1}
            for name in names:
                seen.setdefault(name, now)
            for name in [n for n in seen if n not in names]:
                lifetimes.append(now - seen.pop(name))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    load = subprocess.run([os.path.join(bin_dir, "handz-load"), "--url", f"http://127.0.0.1:{port}", "--keys", os.path.join(work, "handz-keys.json"),
                           "--catalog", catalog, "--connections", "64", "--seconds", seconds, "--rate", rate],
                          capture_output=True, text=True)
    time.sleep(3)
    stop.set()
    watcher.join()
    print(load.stdout.strip())
    lifetimes.sort()
    if lifetimes:
        p = lambda q: lifetimes[min(len(lifetimes) - 1, int(q * len(lifetimes)))]
        print(f"segments sealed and removed: {len(lifetimes)}; time from creation to removal: median {p(0.5):.2f} s, "
              f"p99 {p(0.99):.2f} s, max {lifetimes[-1]:.2f} s; still present after the load: {len(seen)}")
finally:
    server.terminate()
    server.wait(timeout=60)
    subprocess.run(["rm", "-rf", work])
