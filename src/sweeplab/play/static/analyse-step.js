// The replay viewer's "Analyse this step" button: opens the analysis board on the position the player
// saw at the step shown (before the fatal click, when the step shown is the loss), with the click made
// from it, which the board judges. The page only passes the frame the server sent; the server reads it.
"use strict";

(function () {
  const page = window.sweeplab;
  if (!page || document.body.dataset.page !== "records") return;
  const button = document.createElement("button");
  button.className = "btn"; button.id = "r-analyse"; button.textContent = "Analyse this step";
  button.title = "Open the analysis board on the position at this step";
  document.querySelector(".statusbar .replay-controls").appendChild(button);
  button.onclick = () => {
    const frames = page.frames;
    if (!frames || !frames.length) return;
    const lost = frames[page.i].status === "lost" && page.i > 0;
    const at = lost ? page.i - 1 : page.i;  // frame k shows the game after action k - 1
    const next = frames[at + 1];
    const q = new URLSearchParams({ cells: frames[at].cells, w: page.board.w, h: page.board.h, m: frames[0].mines_left });
    if (next && next.action && next.action[0] !== "flag") q.set("click", next.action.slice(0, 3).join(","));
    if (lost) q.set("lost", "1");
    window.open(`/analyse#${q}`, "_blank");
  };
})();
