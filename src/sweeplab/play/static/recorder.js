// The player's mouse path, recorded as it plays: moves, presses and releases with their times (ms from
// the moment the game was shown) and board pixels (16 to a cell, from the board's top left; off the
// board at (columns * 16, rows * 16), as EVF asks). Once the game is won or lost the path goes to the
// server (POST /api/games/ID/path), which keeps it as the game's replay and EVF.
// Moves are coalesced to one per MOVE_MS (the last position in each window, at its own time), so a
// path costs a handful of events a frame; `busy` adds up the time the handlers take, for the tests.
// Only a game recorded from its first click is sent, and the server keeps it only if its clicks make
// the game's moves: a game resumed after a reload, or played by touch or keys, keeps the path the
// server makes up from its moves.
"use strict";

(function () {
  const page = window.sweeplab;
  if (!page || document.body.dataset.page === "records") return;
  const CELL = 16, MOVE_MS = 16, MAX_EVENTS = 20000, CLICK_ROOM = 2000;  // the server's cap; clicks keep room
  const KIND = { mv: 0, lc: 1, lr: 2, rc: 3, rr: 4, mc: 5, mr: 6 };
  const PRESS = ["lc", "mc", "rc"], RELEASE = ["lr", "mr", "rr"];
  const boardEl = document.getElementById("board");
  let rec = null;  // {id, t0, path, x, y, t, pending, presses}
  // path: the mouse's path length in board pixels from the first left press on (as ms-toollib counts it)
  const stats = { busy: 0, events: 0, path: 0, sent: null, error: null };

  function where(clientX, clientY) {
    // board pixels of the cell grid, measured on its first and last cells (the page may be zoomed)
    const nodes = page.board.nodes, w = page.board.w, h = page.board.h;
    const a = nodes[0].getBoundingClientRect(), b = nodes[nodes.length - 1].getBoundingClientRect();
    const x = Math.floor((clientX - a.left) / (b.right - a.left) * w * CELL);
    const y = Math.floor((clientY - a.top) / (b.bottom - a.top) * h * CELL);
    return x < 0 || y < 0 || x >= w * CELL || y >= h * CELL ? [w * CELL, h * CELL] : [x, y];
  }

  function push(kind, clientX, clientY, now) {
    const n = rec.path.length / 4;
    if (n >= MAX_EVENTS || (kind === "mv" && n >= MAX_EVENTS - CLICK_ROOM)) return;
    const [x, y] = where(clientX, clientY);
    if (kind === "mv" && x === rec.x && y === rec.y) return;
    const t = Math.max(rec.t, Math.round(now - rec.t0));
    if (n === 0) rec.path.push(KIND[kind], t, x, y);
    else {
      rec.path.push(KIND[kind], t - rec.t, x - rec.x, y - rec.y);
      if (rec.started) stats.path += Math.hypot(x - rec.x, y - rec.y);
    }
    if (kind === "lc") rec.started = true;
    rec.x = x; rec.y = y; rec.t = t; rec.last = now;
    stats.events = n + 1;
  }

  function flush() {
    if (rec.pending) { const p = rec.pending; rec.pending = null; push("mv", p[0], p[1], p[2]); }
  }

  function timed(f) {
    return e => {
      if (!rec || rec.done) return;
      const s = performance.now();
      f(e, s);
      stats.busy += performance.now() - s;
    };
  }

  document.addEventListener("mousemove", timed((e, now) => {
    rec.pending = [e.clientX, e.clientY, now];
    if (now - rec.last >= MOVE_MS) flush();
  }), true);
  // Shift with the left button chords in this game; the replay formats know that chord as the middle
  // button's, so it is recorded as a middle press and release.
  boardEl.addEventListener("mousedown", timed((e, now) => {
    if (e.button > 2) return;
    flush();
    const middle = e.button === 1 || (e.button === 0 && e.shiftKey && !(e.buttons & 2));
    if (e.button === 0) rec.shiftLeft = middle;
    push(middle ? "mc" : PRESS[e.button], e.clientX, e.clientY, now);
    rec.presses++;
  }), true);
  document.addEventListener("mouseup", timed((e, now) => {
    if (e.button > 2 || !rec.presses) return;
    flush();
    push(e.button === 0 && rec.shiftLeft ? "mr" : RELEASE[e.button], e.clientX, e.clientY, now);
    if (e.button === 0) rec.shiftLeft = false;
  }), true);

  async function send(r) {
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(r.id)}/path`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ path: r.path }) });
      const body = await res.json();
      if (res.ok) stats.sent = body; else stats.error = body.error;
    } catch (e) { stats.error = "the server is not answering"; }
  }

  function seen(state) {
    // a fresh game starts a path; a game over sends the one recorded from its first click
    if (!rec || rec.id !== state.id) {
      rec = state.status === "ready" ? { id: state.id, t0: performance.now(), path: [], x: -1, y: -1, t: 0,
                                         last: -Infinity, pending: null, presses: 0, shiftLeft: false, started: false, done: false } : null;
      stats.sent = null; stats.error = null; stats.events = 0; stats.path = 0;
    }
    if (rec && !rec.done && (state.status === "won" || state.status === "lost")) {
      rec.done = true;
      if (rec.presses) send(rec);
    }
  }

  const show = page.show.bind(page);
  page.show = state => { show(state); seen(state); };
  window.sweeplabRecorder = { stats, get path() { return rec && rec.path; } };  // for the console and the tests
})();
