/* editor.js — extflow serve's editor, added to the chart page (stages/out/chart.html) by the
 * server (tools/cmd-serve.c). The page does no algebra: each action is sent to the server,
 * which checks it against the model and keeps it (docs/ss.md, "The editor").
 * Keys on a selected class: d (then click the target), D (the same between two named
 * classes: a product differential, which Leibniz carries along the products), p (permanent),
 * m (a product type); u undo, r redo; Escape cancels. Buttons: Undo, Redo, Save (the history), Load (a history file). */
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const header = document.querySelector("header");
  const bar = document.createElement("span");
  bar.id = "ssbar";
  bar.innerHTML = '<button id="ss-undo" title="undo the last action (u)">Undo</button>' +
    '<button id="ss-redo" title="redo (r)">Redo</button>' +
    '<a id="ss-save" download="history.jsonl">Save</a>' +
    '<label title="replace the history with a file">Load <input id="ss-load" type="file" accept=".jsonl,.save,.txt" hidden></label>' +
    '<button id="ss-resolve" title="resolve DIR to a larger stem in the background (and d2, when DIR has it)">Resolve further</button>' +
    '<span id="ss-msg" role="status"></span>';
  header.append(bar);
  const msg = document.getElementById("ss-msg");
  document.getElementById("ss-save").href = "/history?token=" + encodeURIComponent(token);
  const say = (text, bad) => { msg.textContent = text; msg.style.color = bad ? "#a33" : "#264"; };

  /* The page to come back to after a reload (the server's answer changes the data). */
  const saved = sessionStorage.getItem("extflow-page");
  if (saved && window.extflowChart && extflowChart.setPage) {
    try { extflowChart.setPage(saved === "inf" ? Infinity : +saved); } catch (e) { /* that page is gone */ }
  }
  function reload(note) {
    const p = window.extflowChart ? extflowChart.page() : 2;
    sessionStorage.setItem("extflow-page", p === Infinity ? "inf" : String(p));
    if (note) sessionStorage.setItem("extflow-note", note);
    location.reload();
  }
  const note = sessionStorage.getItem("extflow-note");
  if (note) { say(note, false); sessionStorage.removeItem("extflow-note"); }

  async function post(path, body, done) {
    say("…", false);
    try {
      const r = await fetch(path + "?token=" + encodeURIComponent(token), { method: "POST", body: body || "" });
      const j = await r.json().catch(() => ({ error: "HTTP " + r.status }));
      if (r.ok) reload(done);
      else say(j.error || ("HTTP " + r.status), true);
    } catch (e) { say("the server does not answer: " + e, true); }
  }
  const action = (name, body, done) => post("/action", JSON.stringify({ version: 1, action: { [name]: body } }), done);

  /* A class's vector: e_i, or what the user types when its group has several classes. */
  function vector(c, what) {
    const v = new Array(c.dim).fill(0);
    v[c.i] = 1;
    if (c.dim === 1) return v;
    const t = prompt(what + " over E2(" + c.n + "," + c.s + "), " + c.dim + " coefficients", v.join(" "));
    if (t === null) return null;
    const w = t.trim().split(/[\s,]+/).map(Number);
    if (w.length !== c.dim || w.some(x => !Number.isInteger(x) || x < 0)) { say("a vector of " + c.dim + " coefficients", true); return null; }
    return w;
  }
  let current = null, pendingSource = null, pendingNamed = false;
  window.addEventListener("extflow-select", ev => {
    const c = ev.detail;
    if (pendingSource && c) {
      const src = pendingSource;
      pendingSource = null;
      const r = c.s - src.s;
      if (c.n !== src.n - 1 || r < 2) { say("a d_r goes from (n, s) to (n - 1, s + r), r >= 2: not to (" + c.n + "," + c.s + ")", true); return; }
      const x = vector(src, "the source"), y = x && vector(c, "the target");
      if (!x || !y) return;
      if (pendingNamed) {
        const a = prompt("the source's name", src.name || ""), b = a && prompt("the target's name", c.name || "");
        if (!a || !b) return;
        action("AddProductDifferential", { source: { permanent: false, b: { coords: [src.n, src.s] }, class: x, name: a },
                                           target: { permanent: false, b: { coords: [c.n, c.s] }, class: y, name: b } },
               "d" + r + "(" + a + ") = " + b + " entered");
        return;
      }
      action("AddDifferential", { r, b: { coords: [src.n, src.s] }, source: x, target: y },
             "d" + r + " from (" + src.n + "," + src.s + ") entered");
      return;
    }
    current = c;
  });
  document.addEventListener("keydown", ev => {
    if (ev.target instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "Escape") { pendingSource = null; say("", false); return; }
    if (ev.key === "u") { post("/undo", "", "undone"); return; }
    if (ev.key === "r") { post("/redo", "", "redone"); return; }
    if (!current) { if ("dDpm".includes(ev.key)) say("select a class first", true); return; }
    const c = current;
    if (ev.key === "d" || ev.key === "D") {
      pendingSource = c;
      pendingNamed = ev.key === "D";
      say("d: now click the target, on (" + (c.n - 1) + ", s + r); Escape cancels", false);
    } else if (ev.key === "p") {
      const x = vector(c, "the permanent class");
      if (x) action("AddPermanentClass", { b: { coords: [c.n, c.s] }, class: x }, "(" + c.n + "," + c.s + ") permanent");
    } else if (ev.key === "m") {
      const name = prompt("the product type's name", c.name || "");
      if (!name) return;
      const x = vector(c, "the class");
      if (!x) return;
      const permanent = confirm("Is " + name + " a permanent cycle?");
      action("AddProductType", { permanent, b: { coords: [c.n, c.s] }, class: x, name }, "products by " + name + " shown");
    }
  });
  /* Resolve further: the server resolves in the background; its progress from /state. */
  async function watch() {
    const j = await fetch("/state?token=" + encodeURIComponent(token)).then(r => r.json()).catch(() => null);
    if (j && j.resolving) {
      say("resolving to stem " + j.resolving.stem + ": " + j.resolving.stage_files + " bidegrees' files, " +
          Math.round(j.resolving.seconds) + " s", false);
      setTimeout(watch, 1000);
    } else if (j) reload(j.resolved || "resolved");
    else setTimeout(watch, 2000);
  }
  document.getElementById("ss-resolve").addEventListener("click", async () => {
    const t = prompt("resolve to stem", "");
    if (!t || !/^\d+$/.test(t.trim())) return;
    const r = await fetch("/resolve?token=" + encodeURIComponent(token), { method: "POST", body: JSON.stringify({ stem: +t }) });
    const j = await r.json().catch(() => ({}));
    if (r.status === 202) watch();
    else say(j.error || ("HTTP " + r.status), true);
  });
  document.getElementById("ss-undo").addEventListener("click", () => post("/undo", "", "undone"));
  document.getElementById("ss-redo").addEventListener("click", () => post("/redo", "", "redone"));
  document.getElementById("ss-load").addEventListener("change", async ev => {
    const f = ev.target.files[0];
    if (f) post("/load", await f.text(), "history loaded");
  });
})();
