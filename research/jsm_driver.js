// Headless driver for JSMinesweeper's solver: plays boards given on stdin (JSON lines) the way
// main.js's bulkRun does, and writes one JSON line per game: win/loss and every click made.
//     node jsm_driver.js /path/to/JSMinesweeper < boards.jsonl > games.jsonl
// A board: {"id", "w", "h", "m", "start" (x + w*y), "zero" (the opening rule), "mines" [x + w*y, ...]}.
// JSMinesweeper (DavidNHill/JSMinesweeper) is not part of sweeplab: its files are read from the
// checkout given, into one script context, with no-op stand-ins for the few GUI hooks it calls.
"use strict";
const fs = require("fs");
const vm = require("vm");
const path = require("path");
const root = process.argv[2];
const C = path.join(root, "Minesweeper", "client");
const U = path.join(root, "Minesweeper", "Utility");
const files = [
  path.join(U, "Compression.js"), path.join(U, "PrimeSieve.js"), path.join(U, "Binomial.js"),
  path.join(C, "Board.js"), path.join(C, "Tile.js"), path.join(C, "solver_main.js"),
  path.join(C, "solver_probability_engine.js"), path.join(C, "Brute_force.js"),
  path.join(C, "BruteForceAnalysis.js"), path.join(C, "MinesweeperGame.js"),
  path.join(C, "SolutionCounter.js"), path.join(C, "EfficiencyHelper.js"),
  path.join(C, "FiftyFiftyHelper.js"), path.join(C, "LongTermRiskHelper.js"),
];
let src = "";
for (const f of files) src += fs.readFileSync(f, "utf8").replace(/^"use strict";/m, "") + "\n";
// the GUI's numeric constants (BOMB, HIDDEN, ...) that the solver reads, taken from main.js as they are there
for (const line of fs.readFileSync(path.join(C, "main.js"), "utf8").split("\n")) {
  if (/^const [A-Z_]+ = -?[0-9.]+;/.test(line)) src += line + "\n";
}
// seeded Math.random (BruteForceAnalysis hashes with it), stubs for the GUI hooks the solver calls
const glue = `
let binomialCache;
let __rs = 12345;
Math.random = function () { __rs = (__rs * 1103515245 + 12345) % 2147483648; return __rs / 2147483648; };
function writeToConsole(t, always) {}
function showMessage(t) {}
async function sleep(msec) {}  // the GUI yields to the browser here; headless, nothing to wait for
function setPageTitle() {}
var analysisMode = false; var canvasLocked = false; var oldrng = false; var board = null;
console.log = function () {};
globalThis.__init = function () {
  const B = new Binomial(65000, 500);
  binomialCache = new BinomialCache(5000, 500, B);
  solver(null);
};
globalThis.__play = async function (g, opts) {
  __rs = g.rseed || 12345;
  const game = new ServerGame(0, g.w, g.h, g.m, g.start, 0, "safe");
  const arr = [g.w, g.h, g.m];
  for (const i of g.mines) { arr.push(i % g.w); arr.push(Math.floor(i / g.w)); }
  game.resetMinesUsingArray(arr);
  board = new Board(0, g.w, g.h, g.m, 0, g.zero ? "zero" : "safe");  // a global: LongTermRiskHelper reads main.js's "board"
  let tile = game.getTile(g.start);
  let revealed = game.clickTile(tile);
  applyResults(board, revealed);
  const moves = [[g.start, 1]];
  let loop = 0;
  while (revealed.header.status == IN_PLAY && loop++ < 10000) {
    const reply = await solver(board, opts);
    const actions = reply.actions;
    for (let i = 0; i < actions.length; i++) {
      const a = actions[i];
      if (a.action == ACTION_CHORD || a.action == ACTION_FLAG) continue;
      if (i == 0 || a.prob == 1) {
        const idx = board.xy_to_index(a.x, a.y);
        tile = game.getTile(idx);
        moves.push([idx, a.prob]);
        revealed = game.clickTile(tile);
        if (revealed.header.status != IN_PLAY) break;
        applyResults(board, revealed);
      }
      if (a.prob != 1) break;
    }
  }
  return { won: revealed.header.status == WON, moves };
};
`;
vm.runInThisContext(src + glue, { filename: "jsm.js" });
(async () => {
  globalThis.__init();
  const opts = () => ({ playStyle: 2, verbose: false, advancedGuessing: true, fullProbability: true, hardcore: false });
  const lines = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
  const t0 = process.cpuUsage();
  for (const line of lines) {
    const g = JSON.parse(line);
    const r = await globalThis.__play(g, opts());
    r.id = g.id;
    process.stdout.write(JSON.stringify(r) + "\n");
  }
  const u = process.cpuUsage(t0);
  process.stderr.write("cpu_s " + ((u.user + u.system) / 1e6).toFixed(2) + " games " + lines.length + "\n");
})();
