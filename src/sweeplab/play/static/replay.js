// Replay files on the records page: upload one (.avf, .rmv, .mvf, .evf) or open the one given to
// `sweeplab play --replay`; it plays in the page's viewer with its timing, and every click the server
// judged is marked on its cell: outlined green when it was certain, yellow to red by its risk when it
// was a guess; hovering a marked cell shows the exact probability it held a mine.
"use strict";

(function () {
  const page = window.sweeplab;
  if (!page || document.body.dataset.page !== "records") return;
  const $ = id => document.getElementById(id);
  let view = null;

  // the upload control, above the list of finished games
  const box = document.createElement("div");
  box.className = "replay-upload";
  box.innerHTML = `<label>Open a replay file (.avf .rmv .mvf .evf): <input type="file" id="replay-file" ` +
    `accept=".avf,.rmv,.mvf,.evf"></label> <span id="replay-error" class="error"></span>`;
  $("record-list").before(box);
  const summary = document.createElement("div");
  summary.id = "replay-summary";
  $("r-info").after(summary);

  function colour(c) {
    if (!c.guess) return "#00a000";
    const r = Math.min(1, c.risk * 2);  // 0 -> yellow, 1/2 or more -> red
    return `rgb(255, ${Math.round(200 * (1 - r))}, 0)`;
  }

  function describe(i, c) {
    const what = c.first ? "first click: free in every recording program"
      : !c.guess ? "certain: no layout has a mine there"
        : (c.fifty_fifty ? "forced 50/50" : c.forced ? "forced guess (no certain safe cell anywhere)"
          : `needless guess (${c.safe_elsewhere} certain safe cell${c.safe_elsewhere === 1 ? "" : "s"} elsewhere)`);
    const p = c.first ? "" : ` P(mine) = ${c.risk_exact} = ${(100 * c.risk).toFixed(1)}%;`;
    return `action ${i}: ${c.kind} column ${c.x + 1}, row ${c.y + 1} at ${c.t.toFixed(3)} s;${p} ${what}` +
      (c.hit ? "; hit a mine" : "");
  }

  function mark() {
    for (const n of page.board.nodes) { n.style.boxShadow = ""; n.removeAttribute("title"); delete n.dataset.risk; }
    if (!view || page.frames !== view.frames) return;
    for (const [key, c] of Object.entries(view.judged)) {
      const i = Number(key);
      if (i >= page.i) continue;  // frame k shows the game after action k - 1
      const n = page.board.node(c.x, c.y);
      if (!n) continue;
      const now = i === page.i - 1;
      n.style.boxShadow = `inset 0 0 0 ${now ? 3 : 2}px ${colour(c)}`;
      n.dataset.risk = c.first ? "first" : String(c.risk);
      n.title = describe(i, c);
    }
  }

  const go = page.go.bind(page);
  page.go = i => { go(i); mark(); };

  function show(v) {
    view = v;
    page.frames = v.frames;
    page.rec = null;
    $("window").hidden = false;
    page.board.resize(v.width, v.height);
    page.board.cells = "";
    $("r-slider").max = v.frames.length - 1;
    const s = v.stats, j = v.judgement;
    $("replay-title").textContent = v.name;  // what fits the title bar; the rest under the board
    $("replay-title").title = `Replay of ${v.name} · ${s.program} · ${s.level} ${s.width}x${s.height}/${s.mines}`;
    $("r-seed").textContent = `${s.program} · ${s.level} ${s.width}x${s.height}/${s.mines} · ${s.player || "unknown player"} · ${s.won ? "won" : "lost"} in ${s.time.toFixed(3)} s · ` +
      `3BV ${s.bbbv} · ${s.bbbv_per_second.toFixed(3)} 3BV/s · clicks ${s.left}/${s.right}/${s.chords} · IOE ${s.ioe.toFixed(3)}` +
      (v.check.length ? ` · differs from ms-toollib: ${v.check.join("; ")}` : "");
    summary.textContent = `judged ${j.judged} clicks: ${j.guesses} guesses (${j.forced} forced, ${j.needless} needless, ` +
      `${j.fifty_fifties} forced 50/50s), luck ${(100 * j.luck).toFixed(2)}%, largest risk ${(100 * j.largest_risk).toFixed(1)}%`;
    for (const tr of document.querySelectorAll("#record-list tr.sel")) tr.classList.remove("sel");
    page.go(0);
  }

  async function upload(file) {
    $("replay-error").textContent = "";
    const r = await fetch(`/api/replays?name=${encodeURIComponent(file.name)}`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: await file.arrayBuffer() });
    const body = await r.json();
    if (!r.ok) { $("replay-error").textContent = body.error; return; }
    show(body);
  }

  $("replay-file").onchange = e => { if (e.target.files.length) upload(e.target.files[0]); };
  if (location.hash === "#replay") {
    fetch("/api/replays/preloaded").then(r => r.json().then(b => r.ok ? show(b) : ($("replay-error").textContent = b.error)));
  }
  window.sweeplabReplay = { show, upload, get view() { return view; } };  // for the console and the tests
})();
