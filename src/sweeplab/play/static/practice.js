// Practice with the solver: in a practice game, the exact odds of the player's own view drawn over the
// live board, the move the solver would play and why, and the solver playing one step or the rest of
// the game. Every number comes from the server (/api/practice/...), which analyses only what the player
// sees and refuses a game that may count for best times; here such a game is offered a practice game.
"use strict";

const STEP_MS = 300;  // between two of the solver's moves when it plays to the end: each one seen

class Practice {
  constructor(page) {
    this.page = page;
    this.open = localStorage.getItem("sweeplab.practice") === "on";
    this.odds = false; this.best = false;
    this.playing = null;    // the game id the solver is playing to the end, or null
    this.answer = null;     // the last odds answer
    this.drawn = "";        // the cells whose odds the board shows ("" for none)
    this.game = null;       // the game the panel speaks of
    this.asking = false;
    this.pending = Promise.resolve();  // the odds question in flight: a step waits for it (one analysis at a time)
    this.seq = 0;           // odds answers drawn (the end-to-end tests wait on it)
    this.build();
    if (page.state) this.shown(page.state);
  }

  $(id) { return document.getElementById(id); }

  build() {
    const item = document.createElement("button");
    item.id = "practice-menu"; item.textContent = "Practice with the solver...";
    item.addEventListener("click", () => { this.open = !this.open; this.save(); this.sync(); });
    this.$("game-menu").querySelector('[data-cmd="analyse"]').after(item);
    const box = document.createElement("div");
    box.className = "box"; box.id = "practice"; box.hidden = !this.open;
    box.innerHTML = `<h2>Practice with the solver</h2>
      <p class="small">The exact odds of what you see, the move the solver would play and why, and the solver
        playing for you. Practice games only (a seed you chose, or a board played again): never a best time.</p>
      <div id="p-off"><p class="small" id="p-off-why"></p>
        <button class="btn" id="p-new">New practice game</button></div>
      <div id="p-on">
        <label><input type="checkbox" id="p-odds"> Show odds</label>
        <label><input type="checkbox" id="p-best"> Best move</label>
        <div class="p-buttons"><button class="btn" id="p-step">Solver: one step</button>
          <button class="btn" id="p-play">Solver: play to the end</button></div>
        <div id="p-did" class="small"></div>
        <div id="p-why" class="small"></div>
        <div class="small p-legend"><span class="p-swatch p-safe"></span> S safe
          <span class="p-swatch p-mine"></span> M a mine <span class="p-swatch p-grad"></span> mine probability in %
          <span class="p-swatch p-move"></span> best move</div>
      </div>`;
    this.$("window").after(box);
    this.$("p-new").addEventListener("click", () => this.newPractice());
    this.$("p-odds").addEventListener("change", e => { this.odds = e.target.checked; this.redraw(); });
    this.$("p-best").addEventListener("change", e => { this.best = e.target.checked; this.redraw(); });
    this.$("p-step").addEventListener("click", () => this.step());
    this.$("p-play").addEventListener("click", () => this.playToEnd());
    // Space and Enter on these buttons are theirs, not the board's (which would open the cursor's cell)
    box.addEventListener("keydown", e => { if (e.key === " " || e.key === "Enter") e.stopPropagation(); });
  }

  save() { localStorage.setItem("sweeplab.practice", this.open ? "on" : "off"); }

  practice(s) { return !!s && s.practice && s.status !== "won" && s.status !== "lost"; }

  sync() {
    // The panel as the game in play allows: its controls in a practice game, else the way to one.
    const s = this.page.state, on = this.practice(s);
    this.$("practice").hidden = !this.open;
    this.$("practice-menu").classList.toggle("checked", this.open);
    this.$("p-on").hidden = !(s && s.practice);
    this.$("p-off").hidden = !!(s && s.practice);
    this.$("p-off-why").textContent = "This game may count for best times, so the solver stays out of it.";
    for (const id of ["p-odds", "p-best", "p-step"]) this.$(id).disabled = !on || (id === "p-step" && !!this.playing);
    this.$("p-play").disabled = !on;
    this.$("p-play").textContent = this.playing ? "Stop the solver" : "Solver: play to the end";
  }

  newPractice() {
    // The mode and level chosen in the menu, on a seed drawn here: a seed the player chose is practice.
    if (this.page.keepGame("Start a practice game")) return;
    const seed = String(crypto.getRandomValues(new Uint32Array(1))[0]);  // fits every mode's seeds
    return this.page.newGame({ seed });
  }

  // --- the odds over the board ------------------------------------------------------------------------
  shown(s) {
    // Called by the page each time it draws the game: odds of an earlier position never stay drawn.
    if (this.drawn !== s.cells) {
      this.clear();
      for (const n of this.page.$("board").querySelectorAll(".p-last")) n.classList.remove("p-last");
      if (this.practice(s) && (this.odds || this.best)) this.ask();
    }
    if (s.id !== this.game) { this.game = s.id; this.$("p-did").textContent = ""; }
    if (!this.practice(s)) this.$("p-why").textContent = "";
    this.sync();
  }

  redraw() {
    const s = this.page.state;
    this.clear();
    if (!this.practice(s) || !(this.odds || this.best)) { this.$("p-why").textContent = ""; return; }
    if (this.answer && this.answer.cells === s.cells && this.answer.game === s.id) this.draw(this.answer);
    else this.ask();
  }

  ask() {
    // One question at a time; when the board moved on meanwhile, the latest position is asked next.
    if (this.asking) return this.pending;
    this.pending = this.askNow();
    return this.pending;
  }

  async askNow() {
    const s = this.page.state;
    this.asking = true;
    try {
      const r = await api("POST", `/api/practice/${encodeURIComponent(s.id)}/odds`, { session: this.page.session });
      r.game = s.id;
      this.answer = r;
      const now = this.page.state;
      if (now && now.id === s.id && now.cells === r.cells && (this.odds || this.best)) this.draw(r);
    } catch (e) {
      if (e.status !== 409) this.$("p-why").textContent = e.message;  // 409: the game ended meanwhile
    } finally {
      this.asking = false;
    }
    const now = this.page.state;
    if (this.practice(now) && (this.odds || this.best) && this.drawn !== now.cells) await this.askNow();
  }

  clear() {
    const board = this.page.$("board");
    for (const o of board.querySelectorAll(".p-ov")) o.remove();
    for (const n of board.querySelectorAll(".p-best, .p-named")) n.classList.remove("p-best", "p-named");
    for (const n of board.querySelectorAll("[data-p]")) { delete n.dataset.p; delete n.dataset.odds; }
    this.drawn = "";
  }

  draw(r) {
    this.clear();
    const w = r.position.width, nodes = this.page.board.nodes;
    const local = r.status === "too_complex" && r.local ? r.local : { safe: [], mines: [] };
    const flat = list => new Set((list || []).map(([x, y]) => y * w + x));
    const safe = flat((r.safe || []).concat(local.safe)), mines = flat((r.mines_certain || []).concat(local.mines));
    for (let i = 0; i < nodes.length; i++) {
      const ch = r.cells[i], n = nodes[i];
      if (ch !== "#" && ch !== "F" && ch !== "?") continue;
      const x = i % w, y = (i / w) | 0;
      const p = r.probability ? r.probability[y][x] : null;
      const state = safe.has(i) ? "safe" : mines.has(i) ? "mine" : "";
      n.dataset.p = p === null ? "" : String(p);
      n.dataset.odds = state;
      if (!this.odds || (p === null && !state)) continue;
      const ov = document.createElement("span");
      ov.className = "p-ov" + (state ? " p-" + state : "");
      if (state) ov.textContent = state === "safe" ? "S" : "M";
      else {
        // green to red along the square root, as on the analysis board: the usual risks stay apart
        ov.style.background = `hsla(${Math.round(120 * (1 - Math.sqrt(p)))}, 85%, 55%, .75)`;
        ov.textContent = pct(p);
      }
      n.appendChild(ov);
    }
    const m = r.move;
    if (this.best && m) {
      for (const [x, y] of m.cells) nodes[y * w + x].classList.add("p-best");
      for (const [x, y] of m.named || []) nodes[y * w + x].classList.add("p-named");
    }
    this.$("p-why").textContent = r.status !== "ok" ? r.message || "" : this.best && m ? `Best move: ${m.reason}` : "";
    this.drawn = r.cells;
    document.body.dataset.practiceSeq = String(++this.seq);
  }

  // --- the solver's moves ---------------------------------------------------------------------------
  step() {
    // The solver's next move, made in the game in its turn with the player's clicks (the page's queue).
    const s = this.page.state;
    if (!this.practice(s)) return Promise.resolve(false);
    const id = s.id;
    let made = false;
    this.page.clearHint();
    this.page.queue = this.page.queue.then(async () => {
      await this.pending;  // one analysis at a time from this tab: the odds first, then the step
      if (!this.practice(this.page.state) || this.page.state.id !== id) return;
      try {
        const r = await api("POST", `/api/practice/${encodeURIComponent(id)}/step`, { session: this.page.session });
        this.page.show(r.state);
        const m = r.move, n = this.page.board.node(m.x, m.y);
        if (n) n.classList.add("p-last");
        const what = m.kind === "flag" ? "takes the flag off" : "opens";
        this.$("p-did").textContent = `The solver ${what} column ${m.x + 1}, row ${m.y + 1}. ${m.reason}`;
        made = true;
      } catch (e) { this.page.note(e.message, true); }
    });
    return this.page.queue.then(() => made);
  }

  async playToEnd() {
    // Step after step, each one drawn, until the game ends, another starts, or the player stops it.
    if (this.playing) { this.playing = null; this.sync(); return; }
    const id = this.page.state && this.page.state.id;
    this.playing = id; this.sync();
    while (this.playing === id && this.practice(this.page.state) && this.page.state.id === id) {
      if (!await this.step() || !this.practice(this.page.state)) break;
      await new Promise(done => setTimeout(done, STEP_MS));
    }
    if (this.playing === id) this.playing = null;
    this.sync();
  }
}

function pct(p) {  // as `sweeplab solve` and the analysis board write it: never 0 or 100 unless certain
  const v = 100 * p;
  return v < 0.5 ? "<1" : v >= 99.5 ? ">99" : String(Math.round(v));
}

if (document.body.dataset.page === "play") window.sweeplabPractice = new Practice(window.sweeplab);
