// The analysis board: a position is edited here and sent to the server, which analyses it; this page
// draws what the server says (certain cells, each hidden cell's mine probability, the move and why,
// perfect play) and holds no rule logic. The URL's hash carries the position (the server's code), so
// a link shares it; #record=ID, #game=ID and #cells=... open a finished game, a game in play (as the
// player sees it) or a replay's step.
"use strict";

(function () {
  const $ = id => document.getElementById(id);
  const CLASS = { "#": "hidden", "F": "flag" };
  const S = {
    w: 9, h: 9, mines: 10, topology: "bounded", cells: "#".repeat(81), trust: false, tool: "1",
    click: null, lost: false, report: null, overlay: "colour", hover: null, painting: null,
  };
  let nodes = [], ovs = [], looks = [], drawn = "", inflight = false, pending = false, pendingLoad = null, editAt = 0, seq = 0;
  const timings = [];  // per analysis drawn: edit to request, server, round trip, draw, total (ms)

  async function post(path, body) {
    const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json().catch(() => ({ error: `bad response (${r.status})` }));
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }
  async function get(path) {
    const r = await fetch(path);
    const data = await r.json().catch(() => ({ error: `bad response (${r.status})` }));
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }

  // --- the board ----------------------------------------------------------------------------------
  function build() {
    const el = $("board");
    el.classList.add("analyse");
    el.style.setProperty("--w", S.w);
    $("window").style.setProperty("--w", S.w);
    const frag = document.createDocumentFragment();
    nodes = []; ovs = []; looks = [];
    for (let y = 0; y < S.h; y++) for (let x = 0; x < S.w; x++) {
      const c = document.createElement("div");
      c.dataset.x = x; c.dataset.y = y; c.setAttribute("role", "gridcell");
      frag.appendChild(c); nodes.push(c); ovs.push(null);
    }
    el.replaceChildren(frag);
    drawn = "";
  }

  function drawCells() {
    for (let i = 0; i < S.cells.length; i++) {
      const ch = S.cells[i];
      if (ch === drawn[i]) continue;
      const n = nodes[i], number = ch >= "0" && ch <= "8";
      n.dataset.c = ch;
      n.className = number ? "cell open n" + ch : "cell " + CLASS[ch];
      n.innerHTML = (number && ch !== "0" ? ch : ch === "F" ? '<i class="flag"></i>' : "") + '<span class="ov"></span>';
      ovs[i] = n.lastChild;
      looks[i] = null;  // a new overlay span: drawn afresh
    }
    drawn = S.cells;
  }

  function pct(p) {  // as `sweeplab solve` prints it: never 0 or 100 unless certain
    const v = 100 * p;
    return v < 0.5 ? "<1" : v >= 99.5 ? ">99" : String(Math.round(v));
  }
  function name(x, y) { return `column ${x + 1}, row ${y + 1}`; }
  const at = (list, x, y) => list && list.some(c => c[0] === x && c[1] === y);

  // a report drawn over the board must be of the position the board shows now
  const current = r => !!r && r.position.cells === S.cells && r.position.mines === S.mines && r.trust_flags === S.trust;

  function drawOverlay() {
    // Each cell's look is worked out from the report, and only the cells whose look changed are
    // touched: an edit redraws a few cells, not the board.
    const r = S.report, fresh = current(r), show = S.overlay !== "none";
    const flat = list => new Set((list || []).map(c => c[1] * S.w + c[0]));
    const marks = {};
    const mark = (cls, list) => { for (const i of flat(list)) (marks[i] ||= []).push(cls); };
    const opt = {};
    let safe = new Set(), mines = new Set();
    if (fresh) {
      const local = r.status === "too_complex" && r.local ? r.local : { safe: [], mines: [] };
      safe = flat((r.safe || []).concat(local.safe)); mines = flat((r.mines_certain || []).concat(local.mines));
      if (r.optimal && r.optimal.status === "ok") {
        for (const m of r.optimal.moves) opt[m.at[1] * S.w + m.at[0]] = m;
        mark("a-best", r.optimal.best_cells);
      }
      if (r.move) { mark("a-move", r.move.cells); mark("a-named", r.move.named); }
      for (const u of r.unavoidable || []) mark("a-fifty", u.cells);
      if (r.conflict) mark("a-conflict", r.conflict.numbers);
      if (r.click) mark("a-click", [[r.click.x, r.click.y]]);
    }
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i], ov = ovs[i], x = i % S.w, y = (i / S.w) | 0, ch = S.cells[i];
      if (!ov) continue;
      let p = null, state = ch >= "0" && ch <= "8" ? "open" : "unknown", cls = (marks[i] || []).slice(), bg = "", text = "";
      if (fresh) {
        const q = r.probability ? r.probability[y][x] : null;
        p = q === undefined ? null : q;
        if (state === "unknown" && safe.has(i)) state = "safe";
        else if (state === "unknown" && mines.has(i)) state = "mine";
        if (show && state === "safe") { cls.push("a-safe"); text = "S"; }
        else if (show && state === "mine") { cls.push("a-mine"); text = "M"; }
        else if (show && p !== null && state === "unknown") {
          // green to red along the square root: the usual risks (a few % to 30%) stay apart
          bg = `hsla(${Math.round(120 * (1 - Math.sqrt(p)))}, 85%, 55%, .75)`;
          if (S.overlay === "numbers") text = pct(p);
        }
        if (opt[i] && S.overlay === "perfect") text = String(Math.round(100 * opt[i].value));
      }
      const look = [cls.join(" "), bg, text, p, state, opt[i] ? opt[i].wins : ""].join("|");
      if (looks[i] === look && drawn[i] === ch) continue;
      looks[i] = look;
      n.classList.remove("a-safe", "a-mine", "a-move", "a-named", "a-fifty", "a-conflict", "a-best", "a-click");
      if (cls.length) n.classList.add(...cls);
      ov.style.background = bg; ov.textContent = text;
      n.dataset.p = p === null ? "" : String(p);
      n.dataset.state = state;
      n.dataset.opt = opt[i] ? opt[i].wins : "";
      n.removeAttribute("title");
    }
  }

  function describe(i) {
    // the hovered cell's words: its probability, and perfect play's value of opening it
    const r = S.report, x = i % S.w, y = (i / S.w) | 0;
    let t = name(x, y);
    if (!current(r)) return t;
    const p = r.probability ? r.probability[y][x] : null;
    if (p !== null && p !== undefined) t += `: P(mine) = ${(100 * p).toFixed(2)}%`;
    const m = r.optimal && r.optimal.status === "ok" && r.optimal.moves.find(v => v.at[0] === x && v.at[1] === y);
    if (m) t += ` · perfect play wins ${m.wins} = ${(100 * m.value).toFixed(2)}%`;
    return t;
  }

  // --- the report beside the board -----------------------------------------------------------------
  function layouts(s) {
    return s.length <= 15 ? Number(s).toLocaleString("en") : `${s.slice(0, 1)}.${s.slice(1, 4)}e${s.length - 1} (${s.length} digits)`;
  }

  function drawReport() {
    const r = S.report;
    for (const id of ["r-summary", "r-move", "r-unavoidable", "r-perfect"]) $(id).textContent = "";
    $("r-conflict").hidden = true; $("r-click").hidden = true;
    if (!r) return;
    const unknown = [...S.cells].filter(c => c === "#" || c === "F").length;
    const total = S.mines === null ? "no mine total" : `${S.mines} mines`;
    const head = `${S.w}x${S.h}, ${total}, ${unknown} unopened cells. `;
    if (r.status === "ok") {
      $("r-summary").textContent = head + `${layouts(r.layouts)} layout${r.layouts === "1" ? "" : "s"} of mines fit; ` +
        `${r.safe.length} certain safe, ${r.mines_certain.length} certain mine${r.mines_certain.length === 1 ? "" : "s"}` +
        (r.local ? ` (the local rules alone: ${r.local.safe.length} safe, ${r.local.mines.length} mine${r.local.mines.length === 1 ? "" : "s"})` : "") +
        ` · analysed in ${(1000 * r.seconds).toFixed(0)} ms.`;
    } else if (r.status === "no_total") {
      $("r-summary").textContent = head + r.message + ` Decided: ${r.safe.length} safe, ${r.mines_certain.length} mines.`;
    } else if (r.status === "too_complex") {
      $("r-summary").textContent = head + "Too complex to count: " + r.message +
        (r.local ? ` The local rules find ${r.local.safe.length} safe and ${r.local.mines.length} mines (marked).` : "");
    } else if (r.status === "impossible") {
      $("r-summary").textContent = head + "This position is impossible: no layout of mines fits it.";
      $("r-conflict").hidden = false;
      $("r-conflict").textContent = r.conflict.message;
    }
    if (r.move) {
      const m = r.move;
      const where = m.cells.slice(0, 6).map(c => name(c[0], c[1])).join("; ") + (m.cells.length > 6 ? `; and ${m.cells.length - 6} more` : "");
      const what = m.kind === "safe" ? `open the certain safe cell${m.cells.length === 1 ? "" : "s"} ${where}`
        : m.kind === "mine" ? `flag the certain mine${m.cells.length === 1 ? "" : "s"} ${where}`
          : m.cells.length ? `guess ${where} (safe with probability ${(100 * m.probability).toFixed(1)}%)` : "nothing to open";
      $("r-move").textContent = `Strong would ${what}. ${m.reason}`;
    } else if (r.status !== "ok") {
      $("r-move").textContent = "No move: the position has no exact analysis.";
    }
    if (r.unavoidable && r.unavoidable.length) {
      $("r-unavoidable").textContent = r.unavoidable.map(u => (u.fifty_fifty ? "Forced 50/50: " : `Unavoidable guess among ${u.cells.length} cells: `) +
        u.cells.map(c => name(c[0], c[1])).join(" and ")).join(". ") + ". No later reveal can tell these cells apart.";
    }
    const o = r.optimal;
    if (o && o.status === "ok") {
      const strong = r.move && r.move.kind === "guess" && r.move.cells.length ? o.moves.find(m => m.at[0] === r.move.cells[0][0] && m.at[1] === r.move.cells[0][1]) : null;
      $("r-perfect").textContent = `Perfect play wins ${o.best} = ${(100 * o.best_value).toFixed(2)}% of the layouts, opening ` +
        o.best_cells.slice(0, 6).map(c => name(c[0], c[1])).join(" or ") + (o.best_cells.length > 6 ? " or others" : "") + "." +
        (strong ? ` Strong's guess wins ${strong.wins} = ${(100 * strong.value).toFixed(2)}%.` : "") +
        ' Every move\'s value: choose "perfect play" under Show, or hover a cell.';
    } else if (o) {
      $("r-perfect").textContent = o.message;
    }
    const c = r.click;
    if (c) {
      $("r-click").hidden = false;
      const head2 = S.lost ? "What happened: the click that lost" : "The click made here";
      if (c.error) { $("r-click").textContent = `${head2} (${c.kind} ${name(c.x, c.y)}): ${c.error}.`; return; }
      const kind = !c.guess ? "It was certain: no layout had a mine there."
        : c.fifty_fifty ? "It was a forced 50/50: no cell was certainly safe and the safest had exactly 1/2."
          : c.forced ? `It was a forced guess: no cell was certainly safe; the safest had P(mine) = ${(100 * c.best).toFixed(2)}%` +
            ` (${c.safest.slice(0, 4).map(s => name(s[0], s[1])).join("; ")}${c.safest.length > 4 ? "; ..." : ""}).`
            : `It was a needless guess: ${c.safe_elsewhere} cell${c.safe_elsewhere === 1 ? " was" : "s were"} certainly safe ` +
              `(${c.safest.slice(0, 4).map(s => name(s[0], s[1])).join("; ")}${c.safest.length > 4 ? "; ..." : ""}).`;
      $("r-click").textContent = `${head2}: ${c.kind} ${name(c.x, c.y)}. P(mine) = ${c.risk_exact} = ` +
        `${(100 * c.risk).toFixed(2)}%. ${kind}`;
    }
  }

  // --- talking to the server ------------------------------------------------------------------------
  function request() {
    const body = { cells: S.cells, width: S.w, height: S.h, topology: S.topology, mines: S.mines, trust_flags: S.trust };
    if (S.click) body.click = S.click;
    return body;
  }

  async function analyse(load) {
    // One request at a time; edits made meanwhile are sent together once it is back. `load` (a code,
    // a pasted text, a file...) replaces the page's position by the server's reading of it; an edit's
    // answer only draws over the position it was made for.
    if (inflight) { if (load) pendingLoad = load; else pending = true; return; }
    inflight = true;
    const sent = performance.now();
    const stopWorking = working();
    try {
      const r = await post("/api/analyse", load || request());
      const got = performance.now();
      if (load) adopt(r.position);
      S.report = r;
      $("r-error").textContent = "";
      drawCells(); drawOverlay(); drawReport(); link();
      const done = performance.now();
      timings.push({ request: sent - editAt, server: 1000 * r.seconds, roundtrip: got - sent, draw: done - got, total: done - editAt });
    } catch (e) {
      $("r-error").textContent = e.message;
    } finally {
      stopWorking();
      inflight = false;
      document.body.dataset.seq = String(++seq);
      document.dispatchEvent(new CustomEvent("analysed"));  // for whoever waits on the page (the benchmark)
      if (pendingLoad) { const l = pendingLoad; pendingLoad = null; pending = false; analyse(l); }
      else if (pending) { pending = false; analyse(); }
    }
  }

  function working() {
    // An answer that takes longer than a blink gets a sign of work, counting the seconds: a hard
    // position takes up to its time limit, and the analyses of an install's first minutes run the
    // solver's kernels as Python while they compile. Returns what ends it.
    const note = $("r-working"), board = $("board"), since = performance.now();
    let ticking = null;
    const say = () => {
      const secs = Math.floor((performance.now() - since) / 1000);
      note.textContent = `Analysing… ${secs} s` + (secs >= 3 ? " (a hard position, or an analysis in the first " +
                                                   "minutes after an install, while the solver compiles)" : "");
      note.hidden = false;
      board.classList.add("busy");
    };
    const timer = setTimeout(() => { say(); ticking = setInterval(say, 1000); }, 250);
    return () => { clearTimeout(timer); clearInterval(ticking); note.hidden = true; board.classList.remove("busy"); };
  }

  function adopt(p) {
    // the server's reading of the position (a pasted text, a code) becomes the page's
    const resized = p.width !== S.w || p.height !== S.h;
    S.w = p.width; S.h = p.height; S.mines = p.mines; S.topology = p.topology; S.cells = p.cells;
    if (resized || nodes.length !== S.w * S.h) build();
    $("a-width").value = S.w; $("a-height").value = S.h; $("a-mines").value = S.mines === null ? "" : S.mines;
  }

  function link() {
    if (!current(S.report)) return;
    const q = new URLSearchParams({ p: S.report ? S.report.position.code : "" });
    if (S.trust) q.set("trust", "1");
    if (S.click) { q.set("click", S.click.join(",")); if (S.lost) q.set("lost", "1"); }
    history.replaceState(null, "", "#" + q.toString());
    $("a-link").value = location.href;
  }

  function edited() {
    S.click = null; S.lost = false;  // a judged click belongs to the position it was made in
    editAt = performance.now();
    drawCells(); drawOverlay();
    analyse();
  }

  function setCell(i, ch) {
    if (S.cells[i] === ch) return false;
    S.cells = S.cells.slice(0, i) + ch + S.cells.slice(i + 1);
    return true;
  }

  // --- editing --------------------------------------------------------------------------------------
  function bind() {
    const el = $("board");
    const index = e => { const t = e.target.closest(".cell"); return t && el.contains(t) ? Number(t.dataset.y) * S.w + Number(t.dataset.x) : null; };
    el.addEventListener("contextmenu", e => e.preventDefault());
    el.addEventListener("mousedown", e => {
      const i = index(e);
      if (i === null) return;
      e.preventDefault();
      const ch = e.button === 2 ? (S.cells[i] === "F" ? "#" : "F") : S.tool;
      S.painting = ch;
      if (setCell(i, ch)) edited();
    });
    el.addEventListener("mouseover", e => {
      const i = index(e);
      if (S.hover !== null && nodes[S.hover]) nodes[S.hover].classList.remove("hover");
      S.hover = i;
      if (i !== null) { nodes[i].classList.add("hover"); nodes[i].title = describe(i); }
      if (i !== null && S.painting !== null && e.buttons && setCell(i, S.painting)) edited();
    });
    el.addEventListener("mouseleave", () => { if (S.hover !== null && nodes[S.hover]) nodes[S.hover].classList.remove("hover"); S.hover = null; });
    document.addEventListener("mouseup", () => { S.painting = null; });
    document.addEventListener("keydown", e => {
      if (e.target.closest && e.target.closest("input, textarea")) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const k = e.key.length === 1 ? e.key.toUpperCase() : "";
      const ch = k >= "0" && k <= "8" ? k : k === "H" || k === "#" ? "#" : k === "F" ? "F" : null;
      if (ch === null) return;
      e.preventDefault();
      if (S.hover !== null) { if (setCell(S.hover, ch)) edited(); }
      else selectTool(ch);
    });
    for (const b of document.querySelectorAll(".tool")) b.onclick = () => selectTool(b.dataset.tool);
    for (const r of document.querySelectorAll('input[name="overlay"]')) r.onchange = () => { S.overlay = r.value; drawOverlay(); };
    $("a-trust").onchange = e => { S.trust = e.target.checked; editAt = performance.now(); analyse(); };
    $("a-mines").onchange = e => {
      const v = e.target.value.trim();
      S.mines = v === "" ? null : Number(v);
      edited();
    };
    const fresh = (w, h, m) => {
      // sent as a load: the board is built only once the server has taken its size (at most 10,000 cells)
      S.click = null; S.lost = false; editAt = performance.now();
      analyse({ cells: "#".repeat(Math.max(0, Math.min(w * h, 1e6)) || 0), width: w, height: h, mines: m, trust_flags: S.trust });
    };
    $("a-empty").onclick = () => {
      const v = $("a-mines").value.trim();
      fresh(Number($("a-width").value), Number($("a-height").value), v === "" ? null : Number(v));
    };
    for (const b of document.querySelectorAll("[data-preset]")) b.onclick = () => fresh(...b.dataset.preset.split(",").map(Number));
    $("a-load").onclick = () => { S.click = null; S.lost = false; editAt = performance.now(); analyse({ text: $("a-paste").value, trust_flags: S.trust }); };
    $("a-file").onchange = async e => {
      const f = e.target.files[0];
      if (!f) return;
      const bytes = new Uint8Array(await f.arrayBuffer());
      let bin = "";
      for (const b of bytes) bin += String.fromCharCode(b);
      S.click = null; S.lost = false; editAt = performance.now();
      analyse({ file: btoa(bin), trust_flags: S.trust });
    };
    $("a-copy").onclick = () => { $("a-link").select(); navigator.clipboard && navigator.clipboard.writeText($("a-link").value); };
  }

  function selectTool(ch) {
    S.tool = ch;
    for (const b of document.querySelectorAll(".tool")) b.classList.toggle("on", b.dataset.tool === ch);
  }

  // --- where the position comes from: the URL's hash ---------------------------------------------------
  async function open() {
    const q = new URLSearchParams(location.hash.slice(1));
    S.trust = q.get("trust") === "1";
    $("a-trust").checked = S.trust;
    editAt = performance.now();
    try {
      if (q.has("record") || q.has("game")) {
        const at = q.has("record") ? get(`/api/analyse/record/${encodeURIComponent(q.get("record"))}` + (q.has("step") ? `?step=${encodeURIComponent(q.get("step"))}` : ""))
          : post(`/api/analyse/game/${encodeURIComponent(q.get("game"))}`, {});
        const s = await at;
        adopt(s.position);
        S.click = s.click; S.lost = !!s.lost;
        if (s.record !== undefined) $("title").textContent = `Analysis board · game ${s.record}, before move ${s.step + 1} of ${s.steps}`;
        return analyse();
      }
      const click = q.has("click") ? q.get("click").split(",") : null;
      S.click = click ? [click[0], Number(click[1]), Number(click[2])] : null;
      S.lost = q.get("lost") === "1";
      if (q.has("p")) return analyse({ code: q.get("p"), trust_flags: S.trust, ...(S.click ? { click: S.click } : {}) });
      if (q.has("cells")) {
        return analyse({ cells: q.get("cells"), width: Number(q.get("w")), height: Number(q.get("h")),
                         mines: q.get("m") === null || q.get("m") === "" ? null : Number(q.get("m")), trust_flags: S.trust,
                         ...(S.click ? { click: S.click } : {}) });
      }
    } catch (e) {
      $("r-error").textContent = e.message;
    }
    build(); drawCells(); analyse();
  }

  build(); bind(); selectTool("1");
  window.addEventListener("hashchange", open);  // a link pasted into this tab (replaceState fires none)
  open();
  window.sweeplabAnalyse = { state: S, timings, analyse };  // for the console, the tests and the benchmark
})();
