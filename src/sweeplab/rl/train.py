"""Train the learned player: imitation of `strong` on the batched environment, in rounds (DAgger).

    pip install -e '.[rl-train]'     # torch: take a CPU wheel (or a CUDA one on a GPU machine)
    python -m sweeplab.rl.train --out runs/learned            # the recipe of the shipped weights
    python -m sweeplab.rl.train --out runs/learned --resume   # go on from the last checkpoint

Round 0 collects positions played by the teacher itself; every later round adds positions played
by the network trained so far, labelled by the teacher (so the network learns what to do in the
positions its own mistakes lead to), then trains on everything collected. Every round ends with
a checkpoint, a row of the learning curve (greedy win rate on fixed boards of each level, CPU
time, environment steps) and its plot; the end exports the weights the player reads
(`solver/policy_net.py` format). Everything random flows from --seed: boards, first clicks, the
teacher's tie-breaks, the kept positions, the initial weights and the batches. One torch thread
by default, so the budget is CPU time of one core; a GPU is used when there is one (--device).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np
import torch

from ..rng import mix64, seed_key, stream_key
from ..solver.learned import PLANES
from ..solver.policy_net import PolicyNet
from .imitation import LEVELS, Positions, collect, evaluate, greedy

EVAL_SEED = 0xE7A1_0000_0000_0001  # the learning curve's boards: the same for every training seed


class ConvPolicy(torch.nn.Module):
    """The network of solver/policy_net.py in torch: 3x3 convolutions with ReLU, then a 1x1
    convolution over the last layer and the input planes gives each cell its logit."""

    def __init__(self, planes: int, channels: int, layers: int):
        super().__init__()
        self.convs = torch.nn.ModuleList(
            torch.nn.Conv2d(planes if k == 0 else channels, channels, 3, padding=1) for k in range(layers))
        self.head = torch.nn.Conv2d(channels + planes, 1, 1)

    def forward(self, x):  # x (b, planes, h, w) -> (b, h*w)
        h = x
        for conv in self.convs:
            h = torch.relu(conv(h))
        return self.head(torch.cat([h, x], dim=1)).flatten(1)

    def export(self, meta: dict) -> PolicyNet:
        def arr(t):
            return t.detach().cpu().numpy().astype(np.float32)
        return PolicyNet([(arr(c.weight), arr(c.bias)) for c in self.convs], (arr(self.head.weight),
                         arr(self.head.bias)), meta)


def to_torch(planes: np.ndarray, device) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(planes.transpose(0, 3, 1, 2))).to(device)


def torch_actor(model: ConvPolicy, device):
    """The model as a greedy actor for `collect` and `evaluate`."""
    def act(planes, legal):
        with torch.no_grad():
            logits = model(to_torch(planes, device)).cpu().numpy()
        return greedy(logits.reshape(legal.shape), legal)
    return act


def imitation_loss(logits: torch.Tensor, legal: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """-log of the probability the masked policy gives the label's cells (any of a proven-safe set,
    or the teacher's guess), averaged over the batch."""
    masked = logits.masked_fill(~legal, -1e9)
    return (torch.logsumexp(masked, 1) - torch.logsumexp(masked.masked_fill(~target, -1e9), 1)).mean()


def train_round(model, opt, data: dict, steps: int, batch: int, rng: np.random.Generator, device) -> float:
    """`steps` updates, each on a batch of one level's positions drawn without replacement within
    an epoch (levels in proportion to their positions); returns the mean loss."""
    names = [k for k in data if len(data[k])]
    sizes = np.array([len(data[k]) for k in names], float)
    orders = {k: rng.permutation(len(data[k])) for k in names}
    at = dict.fromkeys(names, 0)
    total = 0.0
    model.train()
    for _ in range(steps):
        k = names[rng.choice(len(names), p=sizes / sizes.sum())]
        if at[k] + batch > len(orders[k]):
            orders[k], at[k] = rng.permutation(len(data[k])), 0
        idx = np.sort(orders[k][at[k]:at[k] + batch])
        at[k] += batch
        pos = data[k]
        x = to_torch(pos.planes(idx), device)
        legal = torch.from_numpy((pos.cells[idx] < 0).reshape(len(idx), -1)).to(device)
        target = torch.from_numpy(pos.target[idx].reshape(len(idx), -1)).to(device)
        loss = imitation_loss(model(x), legal, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += float(loss.detach())
    model.eval()
    return total / max(1, steps)


def parse(argv=None):
    ap = argparse.ArgumentParser(prog="python -m sweeplab.rl.train", description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for checkpoints, positions, curve and weights")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=1, help="round 0 the teacher plays; later rounds the network")
    ap.add_argument("--games", default="beginner=4000,intermediate=3000,expert=800",
                    help="games played per level in round 0 (later rounds: --later-share of them)")
    ap.add_argument("--later-share", type=float, default=0.5)
    ap.add_argument("--keep-certain", type=float, default=0.03,
                    help="share of positions with a proven-safe cell kept (guess positions: all)")
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--layers", type=int, default=5)
    ap.add_argument("--steps", type=int, default=3000, help="updates per round")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eval-games", default="beginner=500,intermediate=500,expert=150")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="auto", help="auto (a GPU when there is one), cpu, cuda, ...")
    ap.add_argument("--resume", action="store_true", help="go on from the last checkpoint in --out")
    ap.add_argument("--figure", default=None, help="also write the learning curve's plot here (a .png path)")
    args = ap.parse_args(argv)
    args.games = _per_level(args.games, "--games")
    args.eval_games = _per_level(args.eval_games, "--eval-games")
    return args


def _per_level(text: str, flag: str) -> dict:
    out = {}
    for part in filter(None, text.split(",")):
        name, _, n = part.partition("=")
        if name not in LEVELS or not n.isdigit():
            raise SystemExit(f"{flag}: expected level=games with levels {', '.join(LEVELS)}, got {part!r}")
        out[name] = int(n)
    return out


def main(argv=None):
    args = parse(argv)
    torch.set_num_threads(args.threads)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available()
                          else ("cpu" if args.device == "auto" else args.device))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    key = seed_key(args.seed)
    torch.manual_seed(mix64(key) >> 1)
    model = ConvPolicy(len(PLANES), args.channels, args.layers).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    rng = np.random.default_rng(mix64(key ^ 1))
    data = {k: Positions.empty(LEVELS[k].height, LEVELS[k].width) for k in args.games}
    rows, first, spent = [], 0, 0.0
    if args.resume and (out / "checkpoint.pt").exists():
        first, rows, spent = _restore(out, model, opt, rng, data)
        print(f"resumed after round {first - 1}", flush=True)
    for r in range(first, args.rounds):
        t0 = time.process_time()
        actor = None if r == 0 else torch_actor(model, device)
        steps = games = 0
        for k, n in args.games.items():
            n = n if r == 0 else max(1, int(n * args.later_share))
            pos, played = collect(LEVELS[k], n, stream_key(stream_key(key, r), list(LEVELS).index(k)), actor,
                                  keep_certain=args.keep_certain)
            pos.save(out / f"positions-r{r}-{k}.npz")
            data[k] = data[k] + pos
            steps, games = steps + played.steps, games + played.games
            print(json.dumps({"round": r, "level": k, "games": played.games, "won": played.wins,
                              "positions": len(pos), "guesses": int(pos.guess.sum())}), flush=True)
        t1 = time.process_time()
        loss = train_round(model, opt, data, args.steps, args.batch, rng, device)
        t2 = time.process_time()
        spent += t2 - t0
        row = {"round": r, "env_steps": steps + (rows[-1]["env_steps"] if rows else 0),
               "positions": sum(len(p) for p in data.values()), "updates": (r + 1) * args.steps,
               "loss": round(loss, 4), "collect_cpu_s": round(t1 - t0, 1), "train_cpu_s": round(t2 - t1, 1),
               "cpu_hours": round(spent / 3600, 3)}
        act = torch_actor(model, device)
        for k, n in args.eval_games.items():
            e = evaluate(LEVELS[k], n, EVAL_SEED, act)
            row[f"{k}_win"] = round(e.wins / e.games, 4)
        rows.append(row)
        print(json.dumps(row), flush=True)
        _checkpoint(out, model, opt, rng, r, rows, spent)
        _write_curve(out, rows, args)
    meta = {"planes": list(PLANES), "channels": args.channels, "layers": args.layers,
            "recipe": {k: v for k, v in vars(args).items() if k not in ("out", "resume", "figure", "device")},
            "env_steps": rows[-1]["env_steps"], "cpu_hours": rows[-1]["cpu_hours"]}
    model.cpu().export(meta).save(out / "learned_policy.npz")
    print(f"wrote {out / 'learned_policy.npz'}", flush=True)


def _checkpoint(out: Path, model, opt, rng, r: int, rows: list, spent: float) -> None:
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "round": r, "rows": rows, "spent": spent,
                "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state()}, out / "checkpoint.tmp")
    (out / "checkpoint.tmp").replace(out / "checkpoint.pt")


def _restore(out: Path, model, opt, rng, data: dict):
    ck = torch.load(out / "checkpoint.pt", weights_only=False)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    rng.bit_generator.state = ck["rng"]
    torch.set_rng_state(ck["torch_rng"])
    for r in range(ck["round"] + 1):
        for k in data:
            data[k] = data[k] + Positions.load(out / f"positions-r{r}-{k}.npz")
    return ck["round"] + 1, ck["rows"], ck["spent"]


def _write_curve(out: Path, rows: list, args) -> None:
    with (out / "curve.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[-1]))
        w.writeheader()
        w.writerows(rows)
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    hours = [r["cpu_hours"] for r in rows]
    for k, style in zip(args.eval_games, ("-o", "-s", "-^")):
        ax.plot(hours, [r[f"{k}_win"] for r in rows], style, ms=4, label=f"{k} ({args.eval_games[k]} boards)")
    ax.set_xlabel("CPU hours (one core: collecting positions and training)")
    ax.set_ylabel("greedy win rate, fixed boards")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("The learned player by round (round 0: the teacher plays; then the network)")
    fig.tight_layout()
    for path in filter(None, [out / "curve.png", args.figure]):
        fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
