// Replay files on the records page: upload one (.avf, .rmv, .mvf, .evf) or open the one given to
// `sweeplab play --replay`; it plays in the page's viewer with its timing, and every click the server
// judged is marked on its cell: outlined green when it was certain, yellow to red by its risk when it
// was a guess; hovering a marked cell shows the exact probability it held a mine.
// A record of a game played here plays with its mouse path (the one its page recorded, or for a game
// without one, made up from its moves, and the viewer says which): the cursor
// and its trail over the board, at 0.25x to 8x, stepped click by click (every press and release).
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

  // --- the mouse path: cursor and trail over the board ------------------------------------------------
  const SVG = "http://www.w3.org/2000/svg", TRAIL_S = 1.0, PRESSES = new Set(["lc", "rc", "mc"]);
  const BUTTONS = new Set(["lc", "lr", "rc", "rr", "mc", "mr"]);
  let path = null;  // {kind, events: [[kind, s, x, y]], frame_times, evf_level}
  let pt = 0, timer = null, fromClock = false;
  const overlay = document.createElementNS(SVG, "svg");
  overlay.id = "r-path";
  overlay.style.cssText = "position:absolute;pointer-events:none;overflow:visible";
  overlay.innerHTML = '<polyline id="r-trail" fill="none" stroke="#0050ff" stroke-opacity="0.6" stroke-width="1.5"/>' +
    '<g id="r-marks"></g><path id="r-cursor" d="M0 0 L0 11 L3 8 L5 12 L7 11 L5 7 L9 7 Z" fill="#fff" stroke="#000" ' +
    'stroke-width="1"/>';
  const boardEl = $("board");
  boardEl.parentElement.style.position = "relative";
  boardEl.after(overlay);
  const info = document.createElement("div");
  info.id = "r-path-info";
  $("r-links").after(info);

  const frameTime = i => path ? path.frame_times[i] || 0
    : (page.frames.length > 1 && i > 0 ? Math.max(0, page.frames[i].t - page.frames[1].t) : 0);
  const ending = () => Math.max(frameTime(page.frames.length - 1), path && path.events.length ? path.events[path.events.length - 1][1] : 0);
  function lastAt(list, t, key) {  // the index of the last item whose time is at most t (-1: none)
    let lo = 0, hi = list.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (key(list[mid]) <= t + 1e-9) lo = mid + 1; else hi = mid; }
    return lo - 1;
  }
  const frameAt = t => Math.max(0, lastAt(page.frames.map((f, i) => i), t, frameTime));
  const eventAt = t => lastAt(path.events, t, e => e[1]);

  function drawPath() {
    const ev = path ? path.events : [];
    overlay.style.display = ev.length ? "" : "none";
    const k = ev.length ? eventAt(pt) : -1;
    if (!ev.length) { info.textContent = ""; return; }
    const w = page.board.w * path.cell, h = page.board.h * path.cell;
    overlay.setAttribute("viewBox", `0 0 ${w} ${h}`);
    overlay.setAttribute("width", w); overlay.setAttribute("height", h);
    overlay.style.left = `${boardEl.offsetLeft + boardEl.clientLeft}px`;
    overlay.style.top = `${boardEl.offsetTop + boardEl.clientTop}px`;
    const pts = [], marks = [];
    for (let j = k; j >= 0 && ev[j][1] > pt - TRAIL_S && pts.length < 400; j--) {
      pts.push(`${ev[j][2]},${ev[j][3]}`);
      if (PRESSES.has(ev[j][0])) marks.push(`<circle cx="${ev[j][2]}" cy="${ev[j][3]}" r="3" fill="${ev[j][0] === "rc" ? "#e00000" : "#0050ff"}"/>`);
    }
    $("r-trail").setAttribute("points", pts.join(" "));
    $("r-marks").innerHTML = marks.join("");
    const c = ev[Math.max(0, k)];
    $("r-cursor").setAttribute("transform", `translate(${c[2]} ${c[3]})`);
    $("r-cursor").style.display = k < 0 ? "none" : "";
    overlay.dataset.event = String(k);
    info.textContent = `mouse path ${path.kind === "recorded" ? "as recorded while playing" : path.kind === "made up"
      ? "made up from the moves (no recorded path: played before paths were kept, by keys or touch, or resumed)"
      : "none"} · ` +
      `${pt.toFixed(3)} s · event ${k + 1} of ${ev.length}` + (k >= 0 ? ` (${c[0]} at ${c[2]}, ${c[3]})` : "");
  }

  const go = page.go.bind(page);
  page.go = i => {
    go(i); mark();
    if (!fromClock) pt = frameTime(page.i);
    drawPath();
  };
  function seek(t) {  // the path's clock to t: the frame of that time, the cursor where it was
    pt = Math.max(0, Math.min(ending(), t));
    fromClock = true;
    try { page.go(frameAt(pt)); } finally { fromClock = false; }
  }
  const speed = () => Number($("r-speed").value);
  function stop() { clearTimeout(timer); timer = null; $("r-play").textContent = "Play"; }
  let last = 0;  // the page's clock at the playback's last step
  const advance = () => { const now = performance.now(); seek(pt + (now - last) / 1000 * speed()); last = now; };
  page.play = () => {
    if (timer) { advance(); stop(); return; }  // paused where the clock is now, not at the last step
    if (pt >= ending() - 1e-9) seek(0);
    $("r-play").textContent = "Pause";
    last = performance.now();
    const step = () => {
      advance();
      if (pt >= ending() - 1e-9) { stop(); return; }
      timer = setTimeout(step, 16);
    };
    timer = setTimeout(step, 16);
  };
  function clickStep(dir) {  // to the next (or previous) press or release of a button
    if (!path || !path.events.length) { page.go(page.i + dir); return; }
    const ev = path.events;
    let j = eventAt(pt) + (dir > 0 ? 1 : -1);
    while (j >= 0 && j < ev.length && !BUTTONS.has(ev[j][0])) j += dir;
    if (j < 0) seek(0); else if (j < ev.length) seek(ev[j][1]);
  }
  $("r-click-next").onclick = () => clickStep(1);
  $("r-click-prev").onclick = () => clickStep(-1);

  function links(rec) {
    // links to pass around (record ids only), the EVF file, and what EVF calls its level
    const el = $("r-links");
    if (!rec) { el.innerHTML = ""; return; }
    const base = `${location.protocol}//${location.host}`;
    const size = `${rec.width}x${rec.height}/${rec.mines}`;
    const level = path && path.evf_level !== rec.level ? ` (EVF names levels by size: its beginner is 8x8/10, ` +
      `so this ${size} game reads back as ${path.evf_level})` : "";
    el.innerHTML = `Replay link: <a id="r-replay-link" href="/replay/${rec.id}">${base}/replay/${rec.id}</a>` +
      (rec.status === "won" || rec.status === "lost" ? ` · board link (practice): <a id="r-board-link" href="/board/${rec.id}">` +
        `${base}/board/${rec.id}</a>` : "") +
      ` · <a id="r-evf" href="/api/records/${rec.id}/evf" download>EVF file</a>${esc(level)}`;
  }
  const esc = t => String(t).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);

  // a replay link followed from this page changes only the hash: open the record it names
  addEventListener("hashchange", () => {
    const id = Number(location.hash.slice(1));
    if (Number.isInteger(id) && id > 0 && (!page.rec || page.rec.id !== id)) page.open(id);
  });
  const open = page.open.bind(page);
  page.open = async id => {
    stop(); path = null;
    await open(id);
    try { path = await (await fetch(`/api/records/${id}/path`)).json(); if (!path.events) path = null; }
    catch (e) { path = null; }
    links(page.rec);
    page.go(0);
  };

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
    // the file names its level by size, as the rankings do: 9x9/10, Windows 7's beginner, is custom there
    const nine = s.level === "custom" && s.width === 9 && s.height === 9 && s.mines === 10
      ? " (custom in the file's level names, whose beginner is 8x8/10; beginner in Windows 7 and sweeplab)" : "";
    $("r-seed").textContent = `${s.program} · ${s.level} ${s.width}x${s.height}/${s.mines}${nine} · ${s.player || "unknown player"} · ${s.won ? "won" : "lost"} in ${s.time.toFixed(3)} s · ` +
      `3BV ${s.bbbv} · ${s.bbbv_per_second.toFixed(3)} 3BV/s · clicks ${s.left}/${s.right}/${s.chords} · IOE ${s.ioe.toFixed(3)}` +
      (v.check.length ? ` · differs from ms-toollib: ${v.check.join("; ")}` : "");
    summary.textContent = `judged ${j.judged} clicks: ${j.guesses} guesses (${j.forced} forced, ${j.needless} needless, ` +
      `${j.fifty_fifties} forced 50/50s), luck ${(100 * j.luck).toFixed(2)}%, largest risk ${(100 * j.largest_risk).toFixed(1)}%`;
    for (const tr of document.querySelectorAll("#record-list tr.sel")) tr.classList.remove("sel");
    stop(); path = null; links(null);
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
  window.sweeplabReplay = { show, upload, seek, get view() { return view; }, get path() { return path; },
                            get time() { return pt; }, get playing() { return timer !== null; } };  // for the console and the tests
})();
