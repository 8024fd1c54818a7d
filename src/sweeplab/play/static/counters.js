// sweeplab play: the counters panel beside the board (time, 3BV done, 3BV/s, clicks, IOE; at the end
// the server's exact figures). While a game is played the panel uses only what the player has seen:
// the page's own clicks and the open cells. The server's figures come with the finished game only.
"use strict";

const COUNTER_ROWS = [  // [id, label, title]
  ["time", "Time", "seconds since the first click"],
  ["bbbv", "3BV", "the clicks the board needs at least, without flags (known at the end)"],
  ["done", "3BV done", "while playing: open cells counted as the 3BV they are seen to be"],
  ["bbbvs", "3BV/s", "3BV done / time"],
  ["clicks", "Clicks", "left + right + chord"],
  ["left", "Left", "left clicks"], ["right", "Right", "right clicks"], ["chords", "Chord", "chords"],
  ["wasted", "Wasted", "clicks that did nothing; while playing, a first flag on a cell counts as done"],
  ["ioe", "IOE", "3BV done / clicks"],
  ["rqp", "RQP", "time² / 3BV (at the end)"],
  ["correctness", "Correctness", "effective clicks / clicks (at the end)"],
  ["throughput", "Throughput", "3BV / effective clicks (at the end)"],
  ["path", "Path", "the mouse's path from the first left press, in board pixels (16 to a cell), as ms-toollib counts it"],
];

function seen3bv(cells, w, h) {
  // The 3BV the open cells are seen to be: each group of open zeros (one opening) and each open number
  // with no open zero beside it. It reads the open cells only, so it tells nothing of a hidden one: a
  // number on the border of a still hidden opening counts 1 until that opening is open. At a win every
  // safe cell is open and it is the board's 3BV.
  const zero = i => cells[i] === "0";
  const open = i => cells[i] >= "0" && cells[i] <= "8";
  const group = new Int32Array(w * h);
  const nbrs = i => {
    const x = i % w, y = (i - x) / w, out = [];
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
      const u = x + dx, v = y + dy;
      if ((dx || dy) && u >= 0 && v >= 0 && u < w && v < h) out.push(v * w + u);
    }
    return out;
  };
  let count = 0;
  for (let s = 0; s < w * h; s++) {
    if (!zero(s) || group[s]) continue;
    count++; group[s] = count;
    const stack = [s];
    while (stack.length) for (const j of nbrs(stack.pop())) if (zero(j) && !group[j]) { group[j] = count; stack.push(j); }
  }
  for (let i = 0; i < w * h; i++) if (open(i) && !zero(i) && !nbrs(i).some(zero)) count++;
  return count;
}

class Counters {
  // The page's own click counts for one game, kept in the tab (sessionStorage) so a reload keeps them.
  constructor(el) {
    this.el = el;
    el.querySelector("tbody").innerHTML = COUNTER_ROWS.map(([id, label, title]) =>
      `<tr title="${title}"><th>${label}</th><td class="num" id="c-${id}"></td></tr>`).join("");
    this.v = {};
    for (const [id] of COUNTER_ROWS) this.v[id] = el.querySelector(`#c-${id}`);
    this.game = null;
  }

  start(id) {
    // The counts of game `id`: this tab's, when it played it before a reload; else none yet.
    if (this.game && this.game.id === id) return;
    const kept = JSON.parse(sessionStorage.getItem("sweeplab.counters") || "null");
    this.game = kept && kept.id === id ? kept : { id, left: 0, right: 0, chords: 0, wasted: 0, flagged: [] };
  }

  keep() { sessionStorage.setItem("sweeplab.counters", JSON.stringify(this.game)); }

  click(kind) {
    // Counted as the click is made (the panel is drawn in the same frame); returns the counts it went to,
    // for `undo` when the server did not make it.
    const g = this.game;
    if (g) g[kind === "open" ? "left" : kind === "flag" ? "right" : "chords"]++;
    return g;
  }

  undo(g, kind) {
    if (g) g[kind === "open" ? "left" : kind === "flag" ? "right" : "chords"]--;
  }

  answered(kind, x, y, before, after, w) {
    // Wasted, from what the player sees: an open or chord that opened nothing; a right click that did not
    // put a flag on a cell never flagged before (whether a first flag sits on a mine shows at the end).
    const g = this.game, i = y * w + x;
    if (!g) return;
    let opened = false;
    for (let j = 0; j < after.length && !opened; j++) opened = before[j] !== after[j] && after[j] >= "0" && after[j] <= "8";
    if (kind === "flag") {
      const first = after[i] === "F" && before[i] !== "F" && !g.flagged.includes(i);
      if (first) g.flagged.push(i); else g.wasted++;
    } else if (!opened) g.wasted++;
    this.keep();
  }

  draw(s, now) {
    // `s` the game's state from the server, `now` the seconds on its clock as the page reckons them.
    const g = this.game;
    if (!s || !g) return;
    const set = (id, text) => { if (this.v[id].textContent !== text) this.v[id].textContent = text; };
    const over = s.status === "won" || s.status === "lost";
    const rec = window.sweeplabRecorder;  // the page's own mouse: nothing of the board
    set("path", rec && rec.path ? String(Math.round(rec.stats.path)) : "–");
    this.el.dataset.exact = String(over);
    if (over && s.stats) {
      const st = s.stats;
      set("time", st.time.toFixed(3)); set("bbbv", String(st.bbbv)); set("done", String(st.bbbv_solved));
      set("bbbvs", st.bbbv_per_second.toFixed(3)); set("clicks", String(st.clicks));
      set("left", String(st.left_clicks)); set("right", String(st.right_clicks)); set("chords", String(st.chords));
      set("wasted", String(st.wasted_clicks)); set("ioe", st.ioe.toFixed(3)); set("rqp", st.rqp.toFixed(3));
      set("correctness", st.correctness.toFixed(3)); set("throughput", st.throughput.toFixed(3));
      return;
    }
    if (this.seen !== s.cells) { this.seen = s.cells; this.done = seen3bv(s.cells, s.width, s.height); }  // once a move
    const clicks = g.left + g.right + g.chords, done = this.done;
    set("time", now.toFixed(1)); set("bbbv", "?"); set("done", String(done));
    set("bbbvs", now > 0 ? (done / now).toFixed(2) : "0.00"); set("clicks", String(clicks));
    set("left", String(g.left)); set("right", String(g.right)); set("chords", String(g.chords));
    set("wasted", String(g.wasted)); set("ioe", clicks ? (done / clicks).toFixed(2) : "0.00");
    for (const id of ["rqp", "correctness", "throughput"]) set(id, "–");
  }
}
