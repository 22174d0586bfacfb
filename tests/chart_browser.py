#!/usr/bin/env python3
"""chart_browser.py — drives a headless Chromium over the DevTools protocol, through a pipe
(--remote-debugging-pipe: no network port, no npm package), to check and photograph
DIR/chart.html.

    chart_browser.py check CHART.HTML DIMS  TAP lines (no plan); exit 1 on a failure
    chart_browser.py synth CHART.HTML OUT.HTML CLASSES   OUT: CHART's page with a made-up document
                                  of about CLASSES classes over stems 0..160, s <= 82, and
                                  twice as many h0/h1/h2 lines (stem 160's size, without
                                  resolving it)
    chart_browser.py inject CHART.HTML DOC.JSON OUT.HTML   OUT: CHART's page with the document DOC
                                  (e.g. tests/ref/chart-stem160.json, a real stem-160 run's)
    chart_browser.py differ A.PNG B.PNG [X0 Y0 X1 Y1]  the share of pixels (in that box) that differ
    chart_browser.py perf CHART.HTML    JSON: load time, dots, and the slowest frame of 20 pan steps
    chart_browser.py hover CHART.HTML N S I   the tooltip's text when hovering the class x_(N,S,I)
    chart_browser.py edit URL           extflow serve's editor at URL driven through sseq's editor
                                  scenario on S_2 (tests/t-serve-browser.sh): keys and clicks
                                  as a user gives them; JSON: the history's length after each
                                  step, the console errors, and the pages shown at the end
    chart_browser.py legend CHART.HTML  JSON: the legend's labels, in order, and the console errors
    chart_browser.py heading CHART.HTML JSON: the window's title, the heading and the line beside it,
                                  and the console errors
    chart_browser.py pages CHART.HTML   JSON: for each entry of the page selector (E2, E3, ..., E∞,
                                  chosen as a user does), the filled dots per bidegree "n,s";
                                  and the console errors
    chart_browser.py shot CHART.HTML OUT.PNG [WIDTH HEIGHT [FIND]]
                                  a screenshot of the page as it opens, or after finding
                                  FIND (as the page's Find box does) and hovering over it

CHROMIUM (default: chromium, else chromium-browser) names the browser."""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = float(os.environ.get("CHART_BROWSER_TIMEOUT", "60"))


class Browser:
    def __init__(self, width=1200, height=760):
        exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise SystemExit("no chromium")
        self.profile = tempfile.mkdtemp(prefix="extflow-chromium.")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def fds():   # the child reads commands on fd 3 and writes replies on fd 4
            r, w = os.dup(to_child_r), os.dup(from_child_w)   # above 4, so dup2 clobbers neither
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + self.profile,
             "--window-size=%d,%d" % (width, height), "about:blank"],
            preexec_fn=fds, close_fds=False,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("CHART_BROWSER_DEBUG") else subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_child], [], [], left)[0]:
                raise TimeoutError("no answer from chromium in %.0f s" % TIMEOUT)
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method):
        deadline = time.monotonic() + TIMEOUT
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def wait_for(self, expr):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.eval(expr):
                return True
            time.sleep(0.05)
        return False

    def open(self, path):
        self.call("Page.navigate", {"url": "file://" + os.path.abspath(path)})
        self.wait_event("Page.loadEventFired")

    def mouse(self, kind, x, y):
        p = {"type": kind, "x": x, "y": y, "button": "left" if kind != "mouseMoved" else "none"}
        if kind != "mouseMoved":
            p["clickCount"] = 1
        self.call("Input.dispatchMouseEvent", p)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def errors(self):
        """Console errors and uncaught exceptions seen so far."""
        self.call("Runtime.evaluate", {"expression": "0"})   # drain what is queued
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("text", "exception"))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: %s" % [a.get("value", a.get("description")) for a in p.get("args", [])])
            elif e["method"] == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append("log: " + p["entry"].get("text", ""))
        return out

    def screenshot(self, out):
        png = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(out, "wb") as f:
            f.write(base64.b64decode(png))

    def close(self):
        try:
            self.session = None
            self.call("Browser.close")
        except Exception:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def check(html, dims):
    n = [0]
    failed = [False]

    def ok(cond, what):
        n[0] += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", n[0], what))
        failed[0] |= not cond

    b = Browser()
    try:
        b.open(html)
        ready = b.wait_for("typeof window.extflowChart === 'object'")
        errs = b.errors()
        ok(ready and not errs, "the page loads with no console error %s" % (errs or ""))
        st = b.eval("extflowChart.stats()") or {}
        ok(st.get("dotsDrawn") == dims and st.get("classes") == dims,
           "dots drawn: %s, classes: %s; ext.csv's dims: %d" % (st.get("dotsDrawn"), st.get("classes"), dims))
        layers = b.eval("extflowChart.layers()")
        ok(all(L["drawn"] == L["lines"] for L in layers if L["on"]),
           "every layer shown draws all its lines in the whole-chart view: %s"
           % ", ".join("%s %d/%d" % (L["name"], L["drawn"], L["lines"]) for L in layers))
        p = b.eval("extflowChart.classPosition(1, 1, 0)")
        b.mouse("mouseMoved", p["x"], p["y"])
        b.wait_for("document.getElementById('tip').style.display === 'block'")
        text = b.eval("document.getElementById('tip').textContent") or ""
        ok("x_(1,1,0) = h1" in text and "bidegree (1, 1)" in text and "h1 · h1 = " in text,
           "hovering the dot at (1,1) shows h1, its bidegree and its products: %s" % text[:140].replace("\n", " | "))
        before = st.get("linesDrawn", {}).get("h1", 0)
        box = b.eval("(() => { const r = document.querySelector('input[data-layer=\"h1\"]').getBoundingClientRect();"
                     " return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()")
        b.click(box["x"], box["y"])
        gone = b.wait_for("extflowChart.stats().linesDrawn.h1 === 0 && extflowChart.stats().linesDrawn.h0 > 0")
        ok(before > 0 and gone, "clicking h1 in the legend hides its %d lines (h0's stay)" % before)
        b.click(box["x"], box["y"])
        back = b.wait_for("extflowChart.stats().linesDrawn.h1 === %d" % before)
        ok(back, "clicking it again brings them back")
        b.eval("(() => { const q = document.getElementById('q'); q.value = '7,1';"
               " document.getElementById('find').requestSubmit(); })()")
        found = b.wait_for("document.getElementById('info').textContent.startsWith('x_(7,1,0) = h3')")
        ok(found, "finding the bidegree 7,1 selects h3")
        c = b.eval("(() => { const r = document.getElementById('chart').getBoundingClientRect();"
                   " return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()")
        s0 = b.eval("extflowChart.view().scale")
        b.call("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": c["x"], "y": c["y"], "deltaX": 0, "deltaY": -300})
        zoomed = b.wait_for("extflowChart.view().scale > %r" % s0)
        v0 = b.eval("extflowChart.view()")
        b.mouse("mouseMoved", c["x"], c["y"])
        b.mouse("mousePressed", c["x"], c["y"])
        b.mouse("mouseMoved", c["x"] + 80, c["y"] + 30)
        b.mouse("mouseReleased", c["x"] + 80, c["y"] + 30)
        v1 = b.eval("extflowChart.view()")
        ok(zoomed and abs(v1["ox"] - v0["ox"] - 80) < 1 and abs(v1["oy"] - v0["oy"] - 30) < 1,
           "the wheel zooms in, dragging pans by the distance dragged")
        svg = b.eval("extflowChart.svg()") or ""
        png = b.eval("document.getElementById('chart').toDataURL('image/png').slice(0, 22)")
        ok(svg.startswith("<svg") and "<circle" in svg and png == "data:image/png;base64,",
           "the view exports as SVG and PNG")
        errs = b.errors()
        ok(not errs, "no console error after all that %s" % (errs or ""))
    finally:
        b.close()
    return 1 if failed[0] else 0


def png_gray(path):
    """(width, height, rows of grey levels) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    import struct
    import zlib
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and not interlace, "unsupported PNG " + path
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, rows, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([(line[x] + line[x + 1] + line[x + 2]) // 3 for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def png_differ(a, b, box=None, level=64):
    """The share of pixels (inside box = (x0, y0, x1, y1), else everywhere) whose grey levels
    differ by more than level: antialiasing shifts pass, a missing layer of lines does not."""
    wa, ha, ra = png_gray(a)
    wb, hb, rb = png_gray(b)
    if (wa, ha) != (wb, hb):
        return 1.0
    x0, y0, x1, y1 = box or (0, 0, wa, ha)
    bad = sum(abs(p - q) > level for y in range(y0, y1) for p, q in zip(ra[y][x0:x1], rb[y][x0:x1]))
    return bad / max(1, (x1 - x0) * (y1 - y0))


def synth(src, out, classes):
    import random
    import re
    rnd = random.Random(160)
    page = open(src).read()
    m = re.search(r'(<script type="application/json" id="extflow-data">)(.*?)(</script>)', page, re.S)
    doc = json.loads(m.group(2))
    maxn, maxs = 160, 82
    cells = [(n, s) for s in range(maxs + 1) for n in range(maxn + 1) if s <= n // 2 + 2]
    dims = {}
    while sum(dims.values()) < classes:
        c = rnd.choice(cells)
        dims[c] = dims.get(c, 0) + 1
    doc["classes"] = [[n, s, i] for (n, s) in sorted(dims, key=lambda c: (c[1], c[0])) for i in range(dims[(n, s)])]
    doc["range"] = {"kind": "stem", "stem": maxn, "max_s": maxs, "max_n": maxn}
    for j, p in enumerate(doc["products"][:3]):
        st = (1 << j) - 1
        p["pairs"] = [[n, s, rnd.randrange(dims[(n, s)]), rnd.randrange(dims[(n + st, s + 1)])]
                      for (n, s) in dims for _ in range(1) if (n + st, s + 1) in dims]
    body = json.dumps(doc).replace("<", "\\u003c")
    with open(out, "w") as f:
        f.write(page[:m.start(2)] + body + page[m.end(2):])
    print(len(doc["classes"]), sum(len(p["pairs"]) for p in doc["products"]))


def inject(src, doc_path, out):
    """OUT: CHART's page (the current one) with the JSON document DOC in place of its own."""
    import re
    page = open(src).read()
    m = re.search(r'(<script type="application/json" id="extflow-data">)(.*?)(</script>)', page, re.S)
    doc = json.load(open(doc_path))
    body = json.dumps(doc).replace("<", "\\u003c")
    with open(out, "w") as f:
        f.write(page[:m.start(2)] + body + page[m.end(2):])
    print(len(doc["classes"]), sum(len(p["pairs"]) for p in doc["products"]))


def perf(html):
    b = Browser()
    try:
        b.open(html)
        b.wait_for("typeof window.extflowChart === 'object'")
        st = b.eval("extflowChart.stats()")
        c = b.eval("(() => { const r = document.getElementById('chart').getBoundingClientRect();"
                   " return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()")
        v0 = b.eval("extflowChart.view()")
        b.mouse("mouseMoved", c["x"], c["y"])
        b.mouse("mousePressed", c["x"], c["y"])
        worst = 0
        for k in range(1, 21):
            b.mouse("mouseMoved", c["x"] + 10 * k, c["y"] + 3 * k)
            b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            worst = max(worst, b.eval("extflowChart.stats().frameMs"))
        b.mouse("mouseReleased", c["x"] + 200, c["y"] + 60)
        v1 = b.eval("extflowChart.view()")
        return {"loadMs": round(st["loadMs"]), "classes": st["classes"], "dotsDrawn": st["dotsDrawn"],
                "firstFrameMs": round(st["frameMs"], 1), "worstPanFrameMs": round(worst, 1),
                "pannedBy": [round(v1["ox"] - v0["ox"], 1), round(v1["oy"] - v0["oy"], 1)],
                "errors": b.errors()}
    finally:
        b.close()


def page_dots(b):
    """For each entry of the page selector, chosen as a user does: the filled dots per
    bidegree "n,s", how many of them are drawn, and the layers shown."""
    out = {}
    for v in b.eval("[...document.getElementById('page').options].map(o => o.value)") or []:
        b.eval("(() => { const s = document.getElementById('page'); s.value = %s;"
               " s.dispatchEvent(new Event('change')); })()" % json.dumps(v))
        b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        out[v] = {"live": b.eval("extflowChart.liveDots()"), "drawn": b.eval("extflowChart.stats().liveDrawn"),
                  "layers": [L["name"] for L in b.eval("extflowChart.layers()") if L["on"]]}
    return out


def editor_scenario(url):
    """sseq's editor scenario through extflow serve's page: d on four classes (one of a group of
    two, by its vector), two permanent classes, four product types, two product differentials,
    undo and redo; returns the steps' history lengths, the errors and the pages shown."""
    b = Browser()
    steps, errors = [], []
    try:
        def load(u):
            b.call("Page.navigate", {"url": u})
            b.wait_for("typeof window.extflowChart === 'object' && document.getElementById('ssbar') !== null")

        def actions():
            return b.eval("fetch('/state' + location.search).then(r => r.json()).then(j => j.actions)")

        def act(do, answers=()):
            """do() with prompt and confirm answered; waits for the page the answer reloads."""
            before = actions()
            b.eval("window.prompt = (m, d) => { const a = %s; return a.length ? a.shift() : d; };"
                   "window.__answers = %s; window.confirm = () => true; window.__old = 1;"
                   % ("window.__answers", json.dumps(list(answers))))
            do()
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:
                try:
                    if b.eval("window.__old === undefined && typeof window.extflowChart === 'object' &&"
                              " document.readyState === 'complete'"):
                        break
                except RuntimeError:
                    pass            # the page is being replaced
                msg = b.eval("(document.getElementById('ss-msg') || {}).style && "
                             "document.getElementById('ss-msg').style.color === 'rgb(170, 51, 51)' ? "
                             "document.getElementById('ss-msg').textContent : ''")
                if msg:
                    errors.append(msg)
                    break
                time.sleep(0.05)
            steps.append([before, actions()])

        def click(n, s, i):
            p = b.eval("extflowChart.classPosition(%d, %d, %d)" % (n, s, i))
            b.click(p["x"], p["y"])

        def key(k):
            b.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": k, "text": k,
                                              "modifiers": 8 if k.isupper() else 0})
            b.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": k, "modifiers": 8 if k.isupper() else 0})

        def diff(src, tgt, k="d", answers=()):
            act(lambda: (click(*src), key(k), click(*tgt)), answers)

        load(url)
        diff((15, 1, 0), (14, 3, 0))
        diff((15, 2, 0), (14, 5, 0))
        diff((17, 4, 0), (16, 6, 0))
        diff((18, 4, 1), (17, 6, 0))                  # the class [0, 1]: its vector as offered
        for c in ((0, 0, 0), (8, 3, 0)):
            act(lambda c=c: (click(*c), key("p")))
        for c, name in (((8, 3, 0), "c_0"), ((9, 5, 0), "Ph_1"), ((14, 4, 0), "d_0"), ((20, 4, 0), "g")):
            act(lambda c=c: (click(*c), key("m")), [name])
        diff((17, 4, 0), (16, 6, 0), "D", ["e_0", "h_1^2 d_0"])
        diff((18, 4, 1), (17, 6, 0), "D", ["0 1", "1", "f_0", "h_0^2 e_0"])
        act(lambda: b.eval("document.getElementById('ss-undo').click()"))
        act(lambda: b.eval("document.getElementById('ss-redo').click()"))
        load(url)                                      # a reload shows what the server keeps
        pages = {v: p["live"] for v, p in page_dots(b).items()}
        return {"steps": steps, "errors": errors + b.errors(), "pages": pages}
    finally:
        b.close()


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "synth":
        synth(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "inject":
        inject(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    if len(sys.argv) in (4, 8) and sys.argv[1] == "differ":
        box = tuple(int(v) for v in sys.argv[4:8]) if len(sys.argv) == 8 else None
        print("%.5f" % png_differ(sys.argv[2], sys.argv[3], box))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "perf":
        print(json.dumps(perf(sys.argv[2])))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        return check(sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "edit":
        print(json.dumps(editor_scenario(sys.argv[2])))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "legend":
        b = Browser()
        try:
            b.open(sys.argv[2])
            b.wait_for("typeof window.extflowChart === 'object'")
            labels = b.eval("[...document.querySelectorAll('#legend label')].map(l => l.textContent)")
            print(json.dumps({"labels": labels, "errors": b.errors()}))
        finally:
            b.close()
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "heading":
        b = Browser()
        try:
            b.open(sys.argv[2])
            b.wait_for("typeof window.extflowChart === 'object'")
            got = b.eval("[document.title, document.getElementById('heading').textContent, "
                         "document.getElementById('meta').textContent]")
            print(json.dumps({"title": got[0], "heading": got[1], "meta": got[2], "errors": b.errors()}))
        finally:
            b.close()
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "pages":
        b = Browser()
        try:
            b.open(sys.argv[2])
            b.wait_for("typeof window.extflowChart === 'object'")
            print(json.dumps({"pages": page_dots(b), "errors": b.errors()}))
        finally:
            b.close()
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "hover":
        b = Browser()
        try:
            b.open(sys.argv[2])
            b.wait_for("typeof window.extflowChart === 'object'")
            p = b.eval("extflowChart.classPosition(%d, %d, %d)" % tuple(int(v) for v in sys.argv[3:6]))
            b.mouse("mouseMoved", p["x"], p["y"])
            b.wait_for("document.getElementById('tip').style.display === 'block'")
            print(b.eval("document.getElementById('tip').textContent") or "")
        finally:
            b.close()
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "shot":
        w, h = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (1200, 760)
        b = Browser(w, h)
        try:
            b.open(sys.argv[2])
            b.wait_for("typeof window.extflowChart === 'object'")
            if len(sys.argv) > 6:
                b.eval("(() => { document.getElementById('q').value = %s;"
                       " document.getElementById('find').requestSubmit(); })()" % json.dumps(sys.argv[6]))
                b.wait_for("document.getElementById('info').textContent.startsWith('x_(')")
                n, s, i = map(int, b.eval("document.getElementById('info').textContent")[3:].split(")")[0].split(","))
                time.sleep(0.2)
                p = b.eval("extflowChart.classPosition(%d, %d, %d)" % (n, s, i))
                b.mouse("mouseMoved", p["x"], p["y"])
            time.sleep(0.3)
            b.screenshot(sys.argv[3])
            st = b.eval("extflowChart.stats()")
            st["plot"] = b.eval("extflowChart.plotArea()")
            print(json.dumps(st))
        finally:
            b.close()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
