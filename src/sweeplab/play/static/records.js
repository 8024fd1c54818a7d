// The records page's tables: per level and mode, the best time, best 3BV/s and best IOE among the games
// eligible for best times, each value a link to its game's replay; and the statistics of one style
// (flag, or NF: won without a flag on a mine) when a style is chosen.
"use strict";

(function () {
  const page = window.sweeplab;
  if (!page || document.body.dataset.page !== "records") return;
  const $ = id => document.getElementById(id);
  const BEST = [["time", "Time", r => `${r.elapsed.toFixed(3)} s`], ["bbbv_per_second", "3BV/s", r => r.bbbv_per_second.toFixed(3)],
                ["ioe", "IOE", r => r.ioe.toFixed(3)]];
  const LEVELS = ["beginner", "intermediate", "expert"];
  const esc = t => String(t).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
  let labels = {};
  const label = m => esc(labels[m] || m);

  async function get(path) {
    const r = await fetch(path);
    const body = await r.json();
    if (!r.ok) throw new Error(body.error);
    return body;
  }

  async function draw() {
    const style = $("t-style").value;
    const q = style ? `?style=${style}` : "";
    const [{ tables }, { statistics }] = await Promise.all([get(`/api/tables${q}`), get(`/api/stats${q}`)]);
    const cells = {};
    for (const r of tables) (cells[`${r.mode}/${r.level}`] ||= { mode: r.mode, level: r.level })[r.best] = r;
    const rows = Object.values(cells).sort((a, b) => a.mode.localeCompare(b.mode) || LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level));
    $("tables-body").innerHTML = rows.length ? `<table class="classic" id="tables-table"><tr><th>Mode</th><th>Level</th>` +
      BEST.map(b => `<th>${b[1]}</th>`).join("") + "</tr>" + rows.map(c => `<tr data-mode="${esc(c.mode)}" data-level="${esc(c.level)}">` +
        `<td>${label(c.mode)}</td><td>${esc(c.level)}</td>` + BEST.map(([k, , fmt]) => `<td class="num" data-best="${k}">` +
          `<a href="/replay/${c[k].id}" data-id="${c[k].id}" title="game ${c[k].id}${c[k].style === "nf" ? ", NF" : ""}` +
          `${c[k].player ? ", " + esc(c[k].player) : ""}">${fmt(c[k])}</a></td>`).join("") + "</tr>").join("") + "</table>"
      : `No ${style === "nf" ? "NF " : style === "flag" ? "flagged " : ""}wins eligible for best times yet.`;
    $("style-stats").innerHTML = style ? `<div class="small">Statistics of ${style === "nf" ? "NF" : "flag"} games</div>` +
      (statistics.length ? `<table class="classic" id="style-stats-table"><tr><th>Mode</th><th>Level</th><th>Played</th>` +
        `<th>Won</th><th>Win %</th></tr>` + statistics.map(s => `<tr data-mode="${esc(s.mode)}" data-level="${esc(s.level)}">` +
          `<td>${label(s.mode)}</td><td>${esc(s.level)}</td><td class="num">${s.played}</td><td class="num">${s.won}</td>` +
          `<td class="num">${s.win_percent.toFixed(1)}</td></tr>`).join("") + "</table>" : "none yet") : "";
    // a value opens its replay here, without leaving the page (the link itself is the one to pass around)
    for (const a of $("tables-body").querySelectorAll("a[data-id]")) {
      a.onclick = e => { e.preventDefault(); page.open(Number(a.dataset.id)); $("window").scrollIntoView(); };
    }
  }

  $("t-style").onchange = () => draw().catch(e => { $("tables-body").textContent = e.message; });
  get("/api/modes").then(m => { labels = Object.fromEntries(m.modes.map(x => [x.name, x.label])); return draw(); })
    .catch(e => { $("tables-body").textContent = e.message; });
  window.sweeplabTables = { draw };  // for the console and the tests
})();
