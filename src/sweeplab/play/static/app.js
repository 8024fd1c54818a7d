// sweeplab play: draws what the server says and sends the player's actions. No rule logic lives
// here: every cell, the counter, the status and the final board come from the server's JSON.
// Seeds stay strings from the server to the page and back: a JavaScript number would round them.
"use strict";

const SEGMENTS = { // lit segments of each seven-segment character
  "0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc", "5": "afgcd", "6": "afgedc",
  "7": "abc", "8": "abcdefg", "9": "abcdfg", "-": "g", " ": "",
};
const CELL_CLASS = { "#": "hidden", "F": "flag", "?": "question", "*": "mine", "X": "mine exploded", "W": "wrongflag" };
const CELL_HTML = { "F": '<i class="flag"></i>', "*": '<i class="mine"></i>', "X": '<i class="mine"></i>',
                    "W": '<i class="mine"></i><i class="cross"></i>', "?": "?" };

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (method === "POST") {  // the server takes JSON POSTs only (another site cannot send one unasked)
    opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body === undefined ? {} : body);
  }
  let r;
  try { r = await fetch(path, opts); }
  catch (e) { const err = new Error("the server is not answering"); err.status = 0; throw err; }
  let data;
  try { data = await r.json(); } catch (e) { data = { error: `bad response (${r.status})` }; }
  if (!r.ok) { const err = new Error(data.error || r.statusText); err.status = r.status; throw err; }
  return data;
}

function makeLcd(el) {
  el.innerHTML = "";
  for (let i = 0; i < 3; i++) {
    const d = document.createElement("span");
    d.className = "digit";
    for (const s of "abcdefg") { const seg = document.createElement("i"); seg.className = s; d.appendChild(seg); }
    el.appendChild(d);
  }
}

function setLcd(el, value) {
  // Three digits as on Windows: 0..999, and -99..-1 with a leading minus.
  let text;
  if (value < 0) text = "-" + String(Math.min(99, -value)).padStart(2, "0");
  else text = String(Math.min(999, value)).padStart(3, "0");
  el.dataset.value = text;
  el.setAttribute("aria-label", `${el.id} ${text}`);
  [...el.children].forEach((d, i) => {
    const lit = SEGMENTS[text[i]] || "";
    for (const seg of d.children) seg.classList.toggle("on", lit.includes(seg.className[0]));
  });
}

function cellClass(ch) {
  if (ch >= "0" && ch <= "8") return "cell open n" + ch;
  return "cell " + CELL_CLASS[ch];
}

class BoardView {
  // The grid of cells: draws a cells string ("0".."8", "#", "F", "?", "*", "X", "W"), changing only what changed.
  constructor(el) { this.el = el; this.w = 0; this.h = 0; this.cells = ""; this.nodes = []; }
  resize(w, h) {
    if (w === this.w && h === this.h) return;
    this.w = w; this.h = h; this.cells = ""; this.nodes = [];
    this.el.style.setProperty("--w", w);
    this.el.closest(".window").style.setProperty("--w", w);
    const frag = document.createDocumentFragment();
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const c = document.createElement("div");
      c.dataset.x = x; c.dataset.y = y; c.setAttribute("role", "gridcell");
      frag.appendChild(c); this.nodes.push(c);
    }
    this.el.replaceChildren(frag);
  }
  draw(cells) {
    for (let i = 0; i < cells.length; i++) {
      const ch = cells[i];
      if (ch === this.cells[i]) continue;
      const n = this.nodes[i];
      const keep = n.classList.contains("cursor");
      n.className = cellClass(ch) + (keep ? " cursor" : "");
      n.innerHTML = ch >= "1" && ch <= "8" ? ch : (CELL_HTML[ch] || "");
      n.dataset.c = ch;
    }
    this.cells = cells;
  }
  node(x, y) { return (x >= 0 && y >= 0 && x < this.w && y < this.h) ? this.nodes[y * this.w + x] : null; }
  ch(x, y) { return this.cells[y * this.w + x]; }
}

function recordFigures(rec) {
  // A finished game's counters as the panel showed them at its end (the record keeps sweeplab.stats'
  // figures; records filed before a figure existed show "–" for it); a game quit or abandoned has no rates.
  const st = rec.record && rec.record.stats;
  if (!st) return "";
  const n = v => (typeof v === "number" ? v.toFixed(3) : "–"), c = v => (v === undefined ? "–" : String(v));
  const clicks = `clicks ${c(st.clicks)} (${c(st.left_clicks)} left, ${c(st.right_clicks)} right, ` +
    `${c(st.chords)} chord; ${c(st.wasted_clicks)} wasted)`;
  if (rec.status !== "won" && rec.status !== "lost") return `3BV ${c(st.bbbv_solved)}/${c(st.bbbv)} · ${clicks}`;
  return `3BV ${c(st.bbbv_solved)}/${c(st.bbbv)} · 3BV/s ${n(st.bbbv_per_second)} · IOE ${n(st.ioe)} · ` +
    `RQP ${n(st.rqp)} · correctness ${n(st.correctness)} · throughput ${n(st.throughput)} · ${clicks}`;
}

function fmtTime(s) { return (Math.round(s * 1000) / 1000).toFixed(3) + " s"; }
function fmtDate(t) { return new Date(t * 1000).toLocaleString(); }
function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function gameLabel(modeLabels, mode, level, w, h, m) {
  // "Windows 98, expert 30x16/99": the mode's name without its aside, the level and its size.
  const name = (modeLabels[mode] || mode || "").replace(/ \([^)]*\)$/, "");
  return `${name}, ${level} ${w}x${h}/${m}`;
}
// The look of every page, chosen in the Game menu and kept with the settings.
const SKINS = { win98: "Windows 98", win7: "Windows 7", dark: "Dark" };
function applySkin(skin) { document.documentElement.dataset.skin = skin in SKINS ? skin : "win98"; }
applySkin(JSON.parse(localStorage.getItem("sweeplab.settings") || "{}").skin);
// A small touch screen: the window zooms to fit it, and a tap/long-press toggle shows.
const PHONE = matchMedia("(pointer: coarse) and (max-width: 700px)").matches;
const TABLES = { best: "Best times", session: "Windows XP and 98 sessions (boards predictable as in Windows: kept apart)" };

async function drawBest(el, modeLabels) {
  // Two tables: the honest one, and the WinMine session modes' own.
  const { best } = await api("GET", "/api/best");
  if (!best.length) { el.textContent = "No best times yet."; return; }
  let html = "";
  for (const table of ["best", "session"]) {
    const rows = best.filter(b => b.table === table).map(b => `<tr data-level="${b.level}" data-mode="${b.mode}"><td>${b.level}</td>` +
      `<td>${esc(modeLabels[b.mode] || b.mode)}</td><td class="num">${fmtTime(b.elapsed)}</td><td class="num">${b.wins}</td>` +
      `<td>${b.player ? esc(b.player) : ""}</td><td>${fmtDate(b.finished_at)}</td></tr>`).join("");
    if (!rows) continue;
    html += `<div class="small">${TABLES[table]}</div><table class="classic" id="${table === "best" ? "best-table" : "session-table"}">` +
      `<tr><th>Level</th><th>Mode</th><th>Time</th><th>Wins</th><th>Name</th><th>When</th></tr>${rows}</table>`;
  }
  el.innerHTML = html;
}

async function drawStats(statsEl, topEl, modeLabels) {
  // Games played, won, win %, streaks per mode and level; the ten fastest of each table.
  const { statistics, top } = await api("GET", "/api/stats");
  const label = m => esc(modeLabels[m] || m);
  statsEl.innerHTML = statistics.length ? `<table class="classic" id="stats-table"><tr><th>Mode</th><th>Level</th>` +
    `<th>Played</th><th>Won</th><th>Win %</th><th>Streak</th><th>Best streak</th></tr>` +
    statistics.map(s => `<tr data-mode="${s.mode}" data-level="${s.level}"><td>${label(s.mode)}</td><td>${s.level}</td>` +
      `<td class="num">${s.played}</td><td class="num">${s.won}</td><td class="num">${s.win_percent.toFixed(1)}</td>` +
      `<td class="num">${s.streak}</td><td class="num">${s.best_streak}</td></tr>`).join("") + "</table>"
    : "No games finished yet.";
  if (!topEl) return;
  let html = "";
  for (const table of ["best", "session"]) {
    const groups = {};
    for (const t of top.filter(t => t.table === table)) (groups[`${t.mode}/${t.level}`] ||= []).push(t);
    for (const rows of Object.values(groups)) {
      html += `<div class="small">${TABLES[table]}: ${label(rows[0].mode)}, ${rows[0].level}</div>` +
        `<table class="classic top-table" data-mode="${rows[0].mode}" data-level="${rows[0].level}"><tr><th>#</th>` +
        `<th>Time</th><th>Name</th><th>When</th></tr>` + rows.map(t => `<tr data-id="${t.id}"><td class="num">${t.rank}</td>` +
        `<td class="num">${fmtTime(t.elapsed)}</td><td>${t.player ? esc(t.player) : ""}</td><td>${fmtDate(t.finished_at)}</td></tr>`).join("") +
        "</table>";
    }
  }
  topEl.innerHTML = html || "No best times yet.";
}

// ---------------------------------------------------------------------------------------------
class PlayPage {
  constructor() {
    this.$ = id => document.getElementById(id);
    this.board = new BoardView(this.$("board"));
    this.counter = this.$("counter"); this.timer = this.$("timer"); this.face = this.$("face");
    makeLcd(this.counter); makeLcd(this.timer);
    const saved = JSON.parse(localStorage.getItem("sweeplab.settings") || "{}");
    this.settings = Object.assign({ level: "beginner", custom: { width: 30, height: 24, mines: 200 }, marks: true,
                                    mode: null, hints: false, zoom: PHONE ? "fit" : 1.5,
                                    skin: "win98", counters: true }, saved);
    this.session = sessionStorage.getItem("sweeplab.session") ||
      (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
    sessionStorage.setItem("sweeplab.session", this.session);
    this.state = null; this.press = null; this.cursor = null; this.queue = Promise.resolve();
    this.received = 0; this.modes = null; this.modeLabels = {}; this.offline = false;
    this.counters = new Counters(this.$("counters"));
    this.bindMenu(); this.bindMouse(); this.bindKeys(); this.bindTouch();
    setInterval(() => this.tick(), 100);
    addEventListener("resize", () => this.fitZoom());
  }

  async start() {
    this.modes = await api("GET", "/api/modes");
    for (const m of this.modes.modes) this.modeLabels[m.name] = m.label;
    const avail = this.modes.modes.filter(m => m.available).map(m => m.name);
    if (!avail.includes(this.settings.mode)) this.settings.mode = this.modes.default;
    this.drawModes();
    this.applySettings();
    this.drawHelp();
    this.drawLast();
    // "play this seed again": ?seed=N&mode=M&level=L[&width&height&mines]; "play this board again": ?again=ID
    const q = new URLSearchParams(location.search);
    const extra = {};
    if (q.has("seed")) {
      extra.seed = q.get("seed");  // a string, as the server wants it: never through a Number
      if (q.has("mode")) this.settings.mode = q.get("mode");
      if (q.has("level")) this.settings.level = q.get("level");
      for (const k of ["width", "height", "mines"]) if (q.has(k)) this.settings.custom[k] = Number(q.get(k));
    } else if (q.has("again")) {
      extra.again = Number(q.get("again"));
    }
    if (q.has("seed") || q.has("again")) history.replaceState(null, "", "/");  // a reload then plays on, not again
    else if (await this.resume()) { drawBest(this.$("best-times"), this.modeLabels).catch(() => {}); return; }
    await this.newGame(extra);
    drawBest(this.$("best-times"), this.modeLabels).catch(() => {});
  }

  async resume() {
    // The game this tab was playing, if the server still has it (it keeps games across restarts).
    const id = sessionStorage.getItem("sweeplab.game");
    if (!id) return false;
    try {
      const s = await api("GET", `/api/games/${encodeURIComponent(id)}`);
      if (s.status === "won" || s.status === "lost") return false;
      this.show(s);
      this.note(`Your game goes on: ${gameLabel(this.modeLabels, s.mode, s.level, s.width, s.height, s.mines)}`);
      return true;
    } catch (e) {
      if (e.status === 410) this.note(`${e.message}`, true);
      return false;
    }
  }

  drawLast() {
    // The "Last game" panel as the last finished game left it (kept in this browser), after a reload too.
    const html = localStorage.getItem("sweeplab.last");
    if (html) this.$("last-game").innerHTML = html;
  }

  drawHelp() {
    this.$("help-modes").innerHTML = this.modes.modes.map(m => `<li><b>${esc(m.label)}</b>: ${esc(m.about)}` +
      (m.available ? "" : ` <i>(${esc(m.why)})</i>`) + "</li>").join("");
  }

  help(which) {
    for (const sec of this.$("help-body").querySelectorAll("section")) sec.hidden = which && sec.dataset.help !== which;
    this.$("help-dialog").showModal();
  }

  async statsDialog() {
    await drawStats(this.$("stats-body"), this.$("top-body"), this.modeLabels);
    this.$("stats-dialog").showModal();
  }

  save() { localStorage.setItem("sweeplab.settings", JSON.stringify(this.settings)); }

  drawModes() {
    const box = this.$("mode-items");
    box.innerHTML = "";
    for (const m of this.modes.modes) {
      const b = document.createElement("button");
      b.dataset.mode = m.name;
      b.textContent = m.label + (m.name === this.modes.default ? " (default)" : "");
      b.disabled = !m.available;
      if (!m.available) b.title = m.why;
      box.appendChild(b);
    }
  }

  applySettings() {
    if (this.settings.zoom === "fit") this.fitZoom();
    else this.setZoom(this.settings.zoom);
    applySkin(this.settings.skin);
    this.$("counters").hidden = !this.settings.counters;
    const menu = this.$("game-menu");
    for (const b of menu.querySelectorAll("[data-level]")) b.classList.toggle("checked", b.dataset.level === this.settings.level);
    for (const b of menu.querySelectorAll("[data-mode]")) b.classList.toggle("checked", b.dataset.mode === this.settings.mode);
    menu.querySelector('[data-cmd="marks"]').classList.toggle("checked", this.settings.marks);
    menu.querySelector('[data-cmd="hints"]').classList.toggle("checked", this.settings.hints);
    menu.querySelector('[data-cmd="counters"]').classList.toggle("checked", this.settings.counters);
    for (const b of menu.querySelectorAll("[data-skin]")) b.classList.toggle("checked", b.dataset.skin === this.settings.skin);
    menu.querySelector('[data-cmd="zoom"]').textContent = this.settings.zoom === "fit" ? "Zoom: fit the screen"
      : `Zoom: ${this.settings.zoom}x`;
    this.$("hint-button").hidden = !this.settings.hints;
  }

  async newGame(extra = {}) {
    let body = { mode: this.settings.mode, level: this.settings.level, marks: this.settings.marks,
                 session: this.session, ...extra };
    if (this.settings.level === "custom") Object.assign(body, this.settings.custom, extra);
    if (extra.again) body = { again: extra.again, session: this.session };  // the record says the rest
    const player = localStorage.getItem("sweeplab.player");
    if (player) body.player = player;
    this.queue = this.queue.then(async () => {
      try {
        const s = await api("POST", "/api/games", body);
        this.show(s);
        this.noteGame(s);
      } catch (e) { this.note(e.message, true); }
    });
    return this.queue;
  }

  noteGame(s) {
    // What the status bar says of a game just started: its mode, level and size.
    const label = gameLabel(this.modeLabels, s.mode, s.level, s.width, s.height, s.mines);
    const dflt = this.modes && this.modes.default_note && s.mode === this.modes.default && !s.practice;
    if (s.again) this.note(`Practice: the board of game ${s.again} again; not eligible for best times`, true);
    else if (s.practice) this.note(`Practice: ${label}, seed chosen, not eligible for best times`, true);
    else this.note(dflt ? this.modes.default_note : label, !!dflt);
  }

  show(state) {
    const fresh = !this.state || this.state.id !== state.id;
    this.state = state; this.received = performance.now(); this.offline = false;
    sessionStorage.setItem("sweeplab.game", state.id);
    this.board.resize(state.width, state.height);
    if (fresh) { this.board.cells = ""; this.clearHint(); this.fitZoom(); this.counters.start(state.id); }
    this.board.draw(state.cells);
    setLcd(this.counter, state.mines_left);
    this.tick();
    this.setFace();
    this.$("board").dataset.status = state.status;
    this.$("window").title = gameLabel(this.modeLabels, state.mode, state.level, state.width, state.height, state.mines);
    if (state.status === "won" || state.status === "lost") this.finished(state);
    if (window.sweeplabPractice) window.sweeplabPractice.shown(state);  // the odds and the solver (practice.js)
  }

  tick() {
    const s = this.state;
    if (!s) return;
    let t = s.timer;
    // while the server does not answer, the clock shows what it last knew (the server's clock runs on)
    const now = s.status === "playing" && !this.offline ? s.elapsed + (performance.now() - this.received) / 1000
      : s.status === "playing" ? s.elapsed : 0;
    if (s.status === "playing" && !this.offline) t = Math.min(999, Math.floor(now) + 1);
    setLcd(this.timer, t);
    if (this.settings.counters) this.counters.draw(s, now);
  }

  setFace(pressing = false) {
    const s = this.state;
    let f = "smile";
    if (s && s.status === "won") f = "cool";
    else if (s && s.status === "lost") f = "dead";
    else if (pressing) f = "surprised";
    this.face.dataset.face = f;
  }

  finished(s) {
    const st = s.stats;
    const what = s.status === "won" ? "Won" : "Lost";
    let extra = "";
    if (s.status === "won" && s.new_best) extra = " <b>New best time!</b>" + (s.table === "session" ? " (Windows XP/98 session table)" : "");
    else if (s.status === "won" && !s.eligible) extra = s.practice ? " (practice: not eligible for best times)"
      : s.hints_used ? " (hints used: not eligible for best times)" : " (custom boards have no best time)";
    const html = `<div id="result-line" data-status="${s.status}">${what} in <b>${fmtTime(st.time)}</b>${extra}</div>` +
      `<div>3BV <b id="r-bbbv">${st.bbbv}</b> (solved ${st.bbbv_solved}) · 3BV/s <b>${st.bbbv_per_second.toFixed(3)}</b>` +
      ` · IOE <b>${st.ioe.toFixed(3)}</b> · clicks ${st.clicks}</div>` +
      `<div>${s.seed === null ? "Seed kept private (a WinMine session's seed foretells its next boards)" : "Seed " + esc(s.seed)}` +
      ` · <a href="/records#${s.record_id}" target="_blank">record ${s.record_id}</a>` +
      ` · <a href="/?again=${s.record_id}" id="play-again">play this board again</a>` +
      (s.status === "lost" ? ` · <a href="/analyse#record=${s.record_id}" target="_blank" id="what-happened">what happened?</a>` : "") +
      "</div>" +
      (s.board_note ? `<div id="board-note">${esc(s.board_note)}</div>` : "");
    this.$("last-game").innerHTML = html;
    localStorage.setItem("sweeplab.last", html);  // the panel shows it again after a reload
    this.note(`${what}: time ${fmtTime(st.time)}, 3BV ${st.bbbv}, 3BV/s ${st.bbbv_per_second.toFixed(2)}, IOE ${st.ioe.toFixed(2)}`);
    drawBest(this.$("best-times"), this.modeLabels).catch(() => {});
    if (s.status === "won" && s.eligible && !localStorage.getItem("sweeplab.player")) this.askName(s);
  }

  async askName(s) {
    // Asked once, the first time a win makes the top 10, and remembered; it goes with every game after.
    const { top } = await api("GET", "/api/stats");
    if (!top.some(t => t.id === s.record_id)) return;
    const dlg = this.$("name-dialog");
    this.$("name-text").textContent = `You have one of the ten fastest ${s.level} times. Please enter your name.`;
    dlg.showModal();
    this.$("name-ok").onclick = async e => {
      e.preventDefault();
      const name = this.$("player-name").value.trim();
      if (!name) return;
      try {
        await api("POST", `/api/games/${s.id}/player`, { player: name, session: this.session });
        localStorage.setItem("sweeplab.player", name);
        dlg.close();
        drawBest(this.$("best-times"), this.modeLabels).catch(() => {});
      } catch (err) { this.$("name-text").textContent = err.message; }
    };
  }

  keepGame(what) {
    // A game in play thrown away counts as a loss, as in Windows 7: asked first, as the terminal game does.
    if (!this.state || this.state.status !== "playing") return false;
    if (confirm(`${what}? The game in play will count as a loss.`)) return false;
    this.note("Kept the game in play.");
    return true;
  }

  note(text, isNote = false) {
    const el = this.$("status");
    el.innerHTML = "";
    const span = document.createElement("span");
    if (isNote) span.className = "note";
    span.textContent = text;
    el.appendChild(span);
    this.fold();
  }

  fold() {
    // A note longer than the status bar keeps the window's size and gets a button that shows all of it.
    const el = this.$("status");
    el.classList.remove("open");
    el.querySelector(".more")?.remove();
    if (el.scrollHeight <= el.clientHeight + 1) return;
    const more = document.createElement("button");
    more.className = "more"; more.textContent = "more"; more.title = "show the whole note";
    more.onclick = () => { const open = el.classList.toggle("open"); more.textContent = open ? "less" : "more"; };
    el.prepend(more);
  }

  act(kind, x, y) {
    const s = this.state;
    if (!s || s.status === "won" || s.status === "lost") return this.queue;
    const id = s.id;
    this.clearHint();
    const counted = this.counters.click(kind);
    this.tick();  // the counters show the click in this frame
    this.queue = this.queue.then(async () => {
      if (!this.state || this.state.id !== id) { this.counters.undo(counted, kind); return; }  // a new game started meanwhile
      const done = this.working(kind === "open" && this.state.status === "ready");
      const before = this.state.cells;
      try {
        const after = await api("POST", `/api/games/${id}/actions`, { kind, x, y }).finally(done);
        this.counters.answered(kind, x, y, before, after.cells, after.width);
        this.show(after);
      } catch (e) { this.counters.undo(counted, kind); this.tick(); await this.failed(e, id); }
    });
    return this.queue;
  }

  working(firstClick) {
    // An answer that takes longer than a blink gets a sign of work: the board's cursor and a line in
    // the status bar (a first click may lay a dense no-guess board, or run before the first run's compile is done).
    const board = this.$("board"), status = this.$("status"), since = performance.now();
    let shown = null, ticking = null;
    const say = () => {
      const secs = Math.floor((performance.now() - since) / 1000);
      this.note((firstClick ? "Laying the board… (a dense no-guess board, or the first game after an install, " +
                              "takes a while)" : "Working…") + ` ${secs} s`);
      status.querySelector("span").classList.add("busy-note");
    };
    const timer = setTimeout(() => {
      shown = status.innerHTML;
      board.classList.add("busy");
      say();
      ticking = setInterval(say, 1000);
    }, 250);
    return () => {
      clearTimeout(timer); clearInterval(ticking);
      board.classList.remove("busy");
      if (shown !== null && status.querySelector(".busy-note")) { status.innerHTML = shown; this.fold(); }
    };
  }

  async failed(e, id) {
    // The server away: say so and wait for it (the game is kept there). A game it could not bring
    // back (410) or does not know (404): say so in words and start a new one.
    if (e.status === 0) {
      this.offline = true;
      this.note("The server is not answering. Your game is kept; it goes on when the server is back " +
                "(that click was not made).", true);
      while (this.state && this.state.id === id) {
        await new Promise(r => setTimeout(r, 1000));
        try { this.show(await api("GET", `/api/games/${id}`)); this.note("The server is back: your game goes on."); return; }
        catch (e2) { if (e2.status !== 0) return this.failed(e2, id); }
      }
      return;
    }
    if (e.status === 410 || e.status === 404) {
      const why = e.status === 410 ? e.message : "The server no longer has this game";
      await this.newGame();
      this.note(`${why}. A new game has started.`, true);
      return;
    }
    this.note(e.message, true);
  }

  // --- pressing: cells press down while held; the face is surprised ---------------------------
  pressedCells() {
    if (!this.press || this.press.x === null) return [];
    const { x, y, chord } = this.press;
    const out = [];
    for (let dy = chord ? -1 : 0; dy <= (chord ? 1 : 0); dy++)
      for (let dx = chord ? -1 : 0; dx <= (chord ? 1 : 0); dx++) {
        const n = this.board.node(x + dx, y + dy);
        if (n && (n.dataset.c === "#" || n.dataset.c === "?")) out.push(n);
      }
    return out;
  }
  drawPress() {
    for (const n of this.$("board").querySelectorAll(".pressed")) n.classList.remove("pressed");
    for (const n of this.pressedCells()) n.classList.add("pressed");
    this.setFace(!!this.press);
  }

  bindMouse() {
    const boardEl = this.$("board");
    const cellAt = e => {
      const t = e.target.closest(".cell");
      return t && boardEl.contains(t) ? { x: Number(t.dataset.x), y: Number(t.dataset.y) } : { x: null, y: null };
    };
    boardEl.addEventListener("contextmenu", e => e.preventDefault());
    boardEl.addEventListener("mousedown", e => {
      e.preventDefault();
      boardEl.focus({ preventScroll: true });
      const s = this.state;
      if (!s || s.status === "won" || s.status === "lost") return;
      const c = cellAt(e);
      if (c.x === null) return;
      this.setCursor(c.x, c.y, false);
      if (e.button === 2) {
        if (e.buttons & 1) this.press = { ...c, chord: true };  // both buttons: chord
        else if (!this.press) this.act("flag", c.x, c.y);        // right press flags at once, as on Windows
      } else if (e.button === 1 || (e.button === 0 && (e.shiftKey || (e.buttons & 2)))) {
        this.press = { ...c, chord: true };
      } else if (e.button === 0) {
        this.press = { ...c, chord: false };
      }
      this.drawPress();
    });
    boardEl.addEventListener("mouseover", e => {
      if (!this.press) return;
      const c = cellAt(e);
      this.press.x = c.x; this.press.y = c.y;
      this.drawPress();
    });
    boardEl.addEventListener("mouseleave", () => {
      if (!this.press) return;
      this.press.x = null; this.press.y = null;
      this.drawPress();
    });
    document.addEventListener("mouseup", e => {
      const p = this.press;
      if (!p) return;
      this.press = null;  // the first button up ends the press; the other button's release does nothing
      this.drawPress();
      if (p.x === null) return;
      if (p.chord) this.act("chord", p.x, p.y);
      else if (e.button === 0) this.act("open", p.x, p.y);
    });
    this.face.addEventListener("click", () => this.keepGame("Start a new game") || this.newGame());
    this.face.addEventListener("mousedown", () => this.face.classList.add("down"));
    document.addEventListener("mouseup", () => this.face.classList.remove("down"));
    this.$("hint-button").addEventListener("click", () => this.hint());
    this.$("counters-close").addEventListener("click", () => this.toggleCounters());
  }

  // --- touch: a tap opens (or chords an open number), a long press flags; the toggle swaps tap and press --
  bindTouch() {
    const boardEl = this.$("board"), toggle = this.$("touch-mode");
    const LONG_PRESS_MS = 400, SLOP_PX = 10;  // as long a press as Android's own; a move further is a scroll
    this.tapFlags = false;
    let touch = null;
    const cellOf = t => {
      const el = document.elementFromPoint(t.clientX, t.clientY);
      const c = el && el.closest(".cell");
      return c && boardEl.contains(c) ? { x: Number(c.dataset.x), y: Number(c.dataset.y) } : null;
    };
    const end = () => { if (touch) clearTimeout(touch.timer); touch = null; this.press = null; this.drawPress(); };
    const playing = () => this.state && this.state.status !== "won" && this.state.status !== "lost";
    const act = (x, y, longPress) => {
      const ch = this.board.ch(x, y);
      if (ch >= "1" && ch <= "8") return this.act("chord", x, y);
      if (ch !== "#" && ch !== "F" && ch !== "?") return;
      this.act(longPress !== this.tapFlags ? "flag" : "open", x, y);
    };
    if (matchMedia("(pointer: coarse)").matches || navigator.maxTouchPoints > 0) toggle.hidden = false;
    toggle.addEventListener("click", () => {
      this.tapFlags = !this.tapFlags;
      toggle.classList.toggle("on", this.tapFlags);
      toggle.innerHTML = this.tapFlags ? "Tap: <u>f</u>lag" : "Tap: open";
      toggle.setAttribute("aria-pressed", String(this.tapFlags));
    });
    boardEl.addEventListener("touchstart", e => {
      if (e.touches.length !== 1 || !playing()) { end(); return; }
      const t = e.touches[0], c = cellOf(t);
      if (!c) return;
      this.setCursor(c.x, c.y, false);
      touch = { ...c, x0: t.clientX, y0: t.clientY, fired: false };
      this.press = { ...c, chord: false }; this.drawPress();
      touch.timer = setTimeout(() => {
        if (!touch) return;
        touch.fired = true; this.press = null; this.drawPress();
        if (navigator.vibrate) navigator.vibrate(30);
        act(touch.x, touch.y, true);
      }, LONG_PRESS_MS);
    }, { passive: true });
    boardEl.addEventListener("touchmove", e => {
      if (!touch) return;
      const t = e.touches[0];
      if (Math.hypot(t.clientX - touch.x0, t.clientY - touch.y0) > SLOP_PX) end();  // a scroll, not a press
    }, { passive: true });
    boardEl.addEventListener("touchend", e => {
      if (!touch) return;
      e.preventDefault();  // no mouse events after it: the tap is handled here, once
      const { x, y, fired } = touch;
      end();
      if (!fired) act(x, y, false);
    });
    boardEl.addEventListener("touchcancel", end);
  }

  fitZoom() {
    // Zoom "fit" (the first choice on a phone): the window fills the screen's width, up to 3x; a board
    // wider than the screen at 1x (expert on a phone) is drawn smaller, and the page's own pinch zoom
    // brings a part of it close.
    if (this.settings.zoom !== "fit") return;
    const win = this.$("window"), now = Number(getComputedStyle(win).zoom) || 1;
    const base = win.getBoundingClientRect().width / now;
    const body = getComputedStyle(document.body);
    const room = document.documentElement.clientWidth - parseFloat(body.paddingLeft) - parseFloat(body.paddingRight);
    this.setZoom(Math.max(0.25, Math.min(3, Math.floor(room / base * 100) / 100)));
  }

  setZoom(zoom) {
    // The window takes the zoom; side boxes and dialogs never go below 1x, where their text would be too small.
    document.documentElement.style.setProperty("--zoom", zoom);
    document.documentElement.style.setProperty("--box-zoom", Math.max(1, zoom));
  }

  // --- keyboard: arrows move, space/enter open, f flag, c chord, F2 new, h hint ------------------
  setCursor(x, y, show = true) {
    const old = this.cursor && this.board.node(this.cursor.x, this.cursor.y);
    if (old) old.classList.remove("cursor");
    this.cursor = { x, y };
    const n = this.board.node(x, y);
    if (n && show) n.classList.add("cursor");
  }
  bindKeys() {
    document.addEventListener("keydown", e => {
      if (document.querySelector("dialog[open]")) return;
      if (e.key === "F2") { e.preventDefault(); if (!this.keepGame("Start a new game")) this.newGame(); return; }
      if (e.key === "F1") { e.preventDefault(); this.help(); return; }
      if (e.key === "Escape") { this.closeMenu(); return; }
      if (e.target.closest && e.target.closest(".menu-items, input")) return;
      const s = this.state;
      if (!s) return;
      const c = this.cursor || { x: Math.floor(s.width / 2), y: Math.floor(s.height / 2) };
      const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      if (e.key in moves) {
        e.preventDefault();
        const [dx, dy] = moves[e.key];
        this.setCursor(Math.max(0, Math.min(s.width - 1, c.x + dx)), Math.max(0, Math.min(s.height - 1, c.y + dy)));
        return;
      }
      const k = e.key.toLowerCase();
      const kind = { " ": "open", enter: "open", f: "flag", c: "chord" }[k];
      const level = { "1": "beginner", "2": "intermediate", "3": "expert" }[k];
      if (kind) { e.preventDefault(); this.setCursor(c.x, c.y); this.act(kind, c.x, c.y); }
      else if (level) { if (!this.keepGame("Change the level")) { this.settings.level = level; this.save(); this.applySettings(); this.newGame(); } }
      else if (k === "n") { if (!this.keepGame("Start a new game")) this.newGame(); }
      else if (k === "m") { if (!this.keepGame("Change the marks")) { this.settings.marks = !this.settings.marks; this.save(); this.applySettings(); this.newGame(); } }
      else if (k === "h") { this.settings.hints = !this.settings.hints; this.save(); this.applySettings(); }
      else if (k === "t" && this.settings.hints) this.hint();
      else if (k === "s") this.statsDialog();
      else if (k === "k") this.toggleCounters();
    });
  }

  // --- menu -----------------------------------------------------------------------------------
  closeMenu() {
    for (const [m, b] of [["game-menu", "game-menu-button"], ["help-menu", "help-menu-button"]]) {
      this.$(m).hidden = true; this.$(b).classList.remove("open");
    }
  }
  bindMenu() {
    const btn = this.$("game-menu-button"), menu = this.$("game-menu");
    const hbtn = this.$("help-menu-button"), hmenu = this.$("help-menu");
    for (const [b, m] of [[btn, menu], [hbtn, hmenu]]) {
      b.addEventListener("click", e => {
        e.stopPropagation();
        const open = m.hidden; this.closeMenu();
        m.hidden = !open; b.classList.toggle("open", open);
      });
    }
    document.addEventListener("click", e => {
      if (!menu.contains(e.target) && e.target !== btn && !hmenu.contains(e.target) && e.target !== hbtn) this.closeMenu();
    });
    hmenu.addEventListener("click", e => {
      const b = e.target.closest("button");
      if (!b) return;
      this.closeMenu(); this.help(b.dataset.help);
    });
    menu.addEventListener("click", e => {
      const b = e.target.closest("button");
      if (!b || b.disabled) return;
      this.closeMenu();
      if (b.dataset.level === "custom") return this.customDialog();
      const what = { level: "Change the level", mode: "Change the mode", new: "Start a new game", marks: "Change the marks" };
      if ((b.dataset.level || b.dataset.mode || b.dataset.cmd in what) &&
          this.keepGame(what[b.dataset.level ? "level" : b.dataset.mode ? "mode" : b.dataset.cmd])) return;
      if (b.dataset.level) { this.settings.level = b.dataset.level; this.save(); this.applySettings(); return this.newGame(); }
      if (b.dataset.mode) { this.settings.mode = b.dataset.mode; this.save(); this.applySettings(); return this.newGame(); }
      const cmd = b.dataset.cmd;
      if (cmd === "new") return this.newGame();
      if (cmd === "marks") { this.settings.marks = !this.settings.marks; this.save(); this.applySettings(); return this.newGame(); }
      if (cmd === "hints") { this.settings.hints = !this.settings.hints; this.save(); this.applySettings(); }
      if (cmd === "counters") this.toggleCounters();
      if (b.dataset.skin) { this.settings.skin = b.dataset.skin; this.save(); this.applySettings(); }
      if (cmd === "stats") return this.statsDialog();
      if (cmd === "analyse" && this.state) return window.open(`/analyse#game=${encodeURIComponent(this.state.id)}`, "_blank");
      if (cmd === "zoom") {
        const zooms = ["fit", 1, 1.5, 2, 2.5];
        this.settings.zoom = zooms[(zooms.indexOf(this.settings.zoom) + 1) % zooms.length];
        this.save(); this.applySettings();
      }
    });
  }

  toggleCounters() {
    this.settings.counters = !this.settings.counters; this.save(); this.applySettings(); this.tick();
  }

  customDialog() {
    const dlg = this.$("custom-dialog"), form = this.$("custom-form");
    const mode = this.modes.modes.find(m => m.name === this.settings.mode);
    // The limits of this mode, in the server's words (the generator's own numbers, nowhere else)
    this.$("custom-limits").textContent = mode && mode.limits ? `${mode.label}: ${mode.limits.text}` : "";
    this.$("custom-error").textContent = "";
    for (const k of ["width", "height", "mines"]) form.elements[k].value = this.settings.custom[k];
    this.customLimit(mode);
    form.oninput = () => this.customLimit(mode);
    dlg.showModal();
    dlg.onclose = null;
    this.$("custom-ok").onclick = async e => {
      e.preventDefault();
      const custom = {};
      for (const k of ["width", "height", "mines"]) custom[k] = Number(form.elements[k].value);
      const body = { mode: this.settings.mode, level: "custom", marks: this.settings.marks, session: this.session, ...custom };
      if (this.keepGame("Change the level")) return;
      try {
        const state = await api("POST", "/api/games", body);  // the server checks the limits and explains them
        this.settings.level = "custom"; this.settings.custom = custom; this.save(); this.applySettings();
        this.show(state); this.noteGame(state); dlg.close();
      } catch (err) { this.$("custom-error").textContent = err.message; }
    };
  }

  customLimit(mode) {
    // The most mines this mode allows on the size typed, from the generator's own table, as the player types.
    const form = this.$("custom-form"), lim = mode && mode.limits;
    let line = "";
    if (lim && lim.max_mines) {
      const w = Number(form.elements.width.value), h = Number(form.elements.height.value);
      const row = lim.max_mines[h - lim.height[0]], top = row && row[w - lim.width[0]];
      if (Number.isInteger(w) && Number.isInteger(h) && top !== undefined) {
        line = `On ${w}×${h}: ${lim.mines[0]} to ${top} mines (${lim.why}).`;
        form.elements.mines.max = top;
      } else form.elements.mines.removeAttribute("max");
    }
    this.$("custom-limits").textContent = (mode && lim ? `${mode.label}: ${lim.text}` : "") + (line ? " " + line : "");
  }

  // --- hints ------------------------------------------------------------------------------------
  clearHint() { for (const n of this.$("board").querySelectorAll("[class*=hint-]")) n.classList.remove("hint-safe", "hint-mine", "hint-guess", "hint-why"); }
  async hint() {
    const s = this.state;
    if (!s || s.status === "won" || s.status === "lost") return;
    try {
      const h = await api("POST", `/api/games/${s.id}/hint`);
      this.clearHint();
      const cls = h.kind === "safe" ? "hint-safe" : h.kind === "mine" ? "hint-mine" : "hint-guess";
      for (const [x, y] of h.cells) { const n = this.board.node(x, y); if (n) n.classList.add(cls); }
      for (const [x, y] of h.why || []) { const n = this.board.node(x, y); if (n) n.classList.add("hint-why"); }
      const p = h.kind === "guess" && h.probability !== null ? ` (safe with probability ${(100 * h.probability).toFixed(1)}%)` : "";
      this.note(`Hint: ${h.kind}${p}: ${h.reason}`);
      s.hints_used = h.hints_used;
    } catch (e) { this.note(e.message, true); }
  }
}

// ---------------------------------------------------------------------------------------------
class RecordsPage {
  constructor() {
    this.$ = id => document.getElementById(id);
    this.offset = 0; this.limit = 25; this.frames = []; this.i = 0; this.playing = null;
    this.board = new BoardView(this.$("board"));
    makeLcd(this.$("counter")); makeLcd(this.$("timer"));
    this.$("prev-page").onclick = () => { this.offset = Math.max(0, this.offset - this.limit); this.list(); };
    this.$("next-page").onclick = () => { this.offset += this.limit; this.list(); };
    this.$("r-first").onclick = () => this.go(0);
    this.$("r-prev").onclick = () => this.go(this.i - 1);
    this.$("r-next").onclick = () => this.go(this.i + 1);
    this.$("r-last").onclick = () => this.go(this.frames.length - 1);
    this.$("r-play").onclick = () => this.play();
    this.$("r-slider").oninput = e => this.go(Number(e.target.value));
    for (const f of ["f-mode", "f-level", "f-status", "f-style"]) this.$(f).onchange = () => { this.offset = 0; this.list(); };
  }
  async start() {
    const modes = await api("GET", "/api/modes");
    this.labels = Object.fromEntries(modes.modes.map(m => [m.name, m.label]));
    for (const m of modes.modes) this.$("f-mode").add(new Option(m.label, m.name));
    await drawBest(this.$("best-times"), this.labels);
    await drawStats(this.$("stats-body"), this.$("top-body"), this.labels);
    await this.list();
    const id = Number(location.hash.slice(1));
    if (id) this.open(id);
  }
  async list() {
    // a game given up (quit) or not made again (abandoned) was not played out: no rate of it
    const rate = (r, v) => r.status === "quit" || r.status === "abandoned"
      ? '<td class="num" title="not played out">–</td>' : `<td class="num">${v.toFixed(2)}</td>`;
    const q = new URLSearchParams({ limit: this.limit, offset: this.offset });
    for (const [f, name] of [["f-mode", "mode"], ["f-level", "level"], ["f-status", "status"], ["f-style", "style"]])
      if (this.$(f).value) q.set(name, this.$(f).value);
    const { records, total } = await api("GET", `/api/records?${q}`);
    this.$("page-info").textContent = total ? ` ${this.offset + 1}–${this.offset + records.length} of ${total} ` : " none yet ";
    this.$("prev-page").disabled = this.offset === 0;
    this.$("next-page").disabled = this.offset + records.length >= total;
    const rows = records.map(r => `<tr data-id="${r.id}"><td class="num">${r.id}</td><td>${fmtDate(r.finished_at)}</td>` +
      `<td>${this.labels[r.mode] || r.mode}</td><td>${r.level} ${r.width}x${r.height}/${r.mines}</td><td>${r.status}</td>` +
      `<td class="num">${r.elapsed.toFixed(3)}</td><td class="num">${r.bbbv}</td>${rate(r, r.bbbv_per_second)}` +
      `${rate(r, r.ioe)}<td>${[r.style === "nf" ? "NF" : "", r.hints ? "hints" : "", r.practice ? "practice" : ""].filter(Boolean).join(", ")}` +
      `</td><td>${r.player ? esc(r.player) : ""}</td></tr>`).join("");
    this.$("record-list").innerHTML = `<table class="classic" id="records-table"><tr><th>#</th><th>When</th><th>Mode</th>` +
      `<th>Level</th><th>Result</th><th>Time</th><th>3BV</th><th>3BV/s</th><th>IOE</th><th></th><th>Name</th></tr>${rows}</table>`;
    for (const tr of this.$("record-list").querySelectorAll("tr[data-id]")) tr.onclick = () => this.open(Number(tr.dataset.id));
  }
  async open(id) {
    const [rec, rp] = await Promise.all([api("GET", `/api/records/${id}`), api("GET", `/api/records/${id}/replay`)]);
    location.hash = String(id);
    for (const tr of this.$("record-list").querySelectorAll("tr[data-id]")) tr.classList.toggle("sel", Number(tr.dataset.id) === id);
    this.rec = rec; this.frames = rp.frames;
    this.$("window").hidden = false;
    this.board.resize(rp.width, rp.height);
    this.board.cells = "";
    this.$("r-slider").max = this.frames.length - 1;
    // the title bar holds what fits a beginner board; the mode and level go under the board
    this.$("replay-title").textContent = `Game ${id}`;
    this.$("replay-title").title = `Replay of game ${id} · ${this.labels[rec.mode] || rec.mode} · ${rec.level}`;
    const q = new URLSearchParams({ seed: rec.seed, mode: rec.mode, level: rec.level });  // rec.seed: a string
    if (rec.level === "custom") { q.set("width", rec.width); q.set("height", rec.height); q.set("mines", rec.mines); }
    const again = rec.status === "won" || rec.status === "lost"
      ? ` · <a href="/?again=${rec.id}" id="r-again">play this board again</a> (practice)` : "";
    this.$("r-seed").innerHTML = `${esc(gameLabel(this.labels, rec.mode, rec.level, rec.width, rec.height, rec.mines))} · ` +
      (rec.seed === null ? "Seed kept private (a WinMine session's seed foretells its next boards)"
      : `Seed ${esc(rec.seed)} · <a href="/?${q}" id="r-seed-link">play this seed again</a>`) + again;
    this.$("r-figures").innerHTML = recordFigures(rec);
    this.go(0);
  }
  go(i) {
    if (!this.frames.length) return;
    this.i = Math.max(0, Math.min(this.frames.length - 1, i));
    const f = this.frames[this.i];
    this.board.draw(f.cells);
    setLcd(this.$("counter"), f.mines_left);
    setLcd(this.$("timer"), f.timer || 0);
    this.$("face").dataset.face = f.status === "won" ? "cool" : f.status === "lost" ? "dead" : "smile";
    this.$("r-slider").value = this.i;
    const a = f.action ? `${f.action[0]} column ${f.action[1] + 1}, row ${f.action[2] + 1} at ${fmtTime(this.since(f))}` : "start";
    this.$("r-info").textContent = `move ${this.i} of ${this.frames.length - 1}: ${a}`;
  }
  since(f) {
    // A move's time on the game's clock, which starts at the first click (as the timer shows it).
    const first = this.frames.length > 1 ? this.frames[1].t : 0;
    return Math.max(0, f.t - first);
  }
  play() {
    if (this.playing) { clearTimeout(this.playing); this.playing = null; this.$("r-play").textContent = "Play"; return; }
    if (this.i >= this.frames.length - 1) this.go(0);
    this.$("r-play").textContent = "Pause";
    const step = () => {
      if (this.i >= this.frames.length - 1) { this.playing = null; this.$("r-play").textContent = "Play"; return; }
      const wait = Math.min(1500, Math.max(60, (this.frames[this.i + 1].t - this.frames[this.i].t) * 1000));
      this.playing = setTimeout(() => { this.go(this.i + 1); step(); }, wait);
    };
    step();
  }
}

const page = document.body.dataset.page === "records" ? new RecordsPage() : new PlayPage();
window.sweeplab = page;  // for the console and the end-to-end tests
page.start();
