"""Train sb3-contrib's MaskablePPO on beginner for a fixed CPU budget and compare it with the baselines.

    pip install -e '.[rl-train]'   # torch: install a CPU wheel first to avoid GBs of CUDA libraries
    python examples/train_maskable_ppo.py --minutes 12 --out docs/figures

Every --eval-every steps the policy (deterministic, masked) plays the same --eval-games boards,
game i on the board `sweeplab bench --seed 0` plays as its game i; at the end it plays --final-games
boards beside the baselines (random, rules, safest, strong) on the same boards, and the learning
curve goes to OUT/rl-learning-curve.png (its numbers to OUT/rl-learning-curve.csv).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import DummyVecEnv

from sweeplab.rl import MinesweeperEnv
from sweeplab.rl.baselines import BASELINES, evaluate

LEVEL = dict(level="beginner", first_click="opening", one_hot=True)


def ppo_policy(model):
    def make(_player_seed):
        def act(obs, info):
            action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
            return int(action)
        return act
    return make


class CellConv(BaseFeaturesExtractor):
    """Fully convolutional: three 3x3 convolutions over the one-hot planes (a cell's fate depends on
    its neighbourhood), then a 1x1 convolution gives each cell its action logit with the same
    weights everywhere. Features: the w*h logits, then the channel means for the value head."""

    def __init__(self, space, channels: int = 48):
        planes, h, w = space.shape
        super().__init__(space, h * w + channels)
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(planes, channels, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(channels, channels, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(channels, channels, 3, padding=1), torch.nn.ReLU())
        self.logit = torch.nn.Conv2d(channels, 1, 1)

    def forward(self, obs):
        x = self.body(obs.float())
        return torch.cat([self.logit(x).flatten(1), x.mean(dim=(2, 3))], dim=1)


class Logits(torch.nn.Module):
    """The action head: the per-cell logits CellConv already computed."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, features):
        return features[:, :self.n]


class Curve(BaseCallback):
    """Evaluate every `every` steps; stop when the CPU budget (this process, evaluations excluded) is spent."""

    def __init__(self, every, games, budget_s, rows):
        super().__init__()
        self.every, self.games, self.budget_s, self.rows = every, games, budget_s, rows
        self.t0 = time.process_time()
        self.next = 0
        self.eval_s = 0.0

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next:
            self.next += self.every
            t = time.process_time()
            e = evaluate(MinesweeperEnv(**LEVEL), ppo_policy(self.model), self.games, seed=0)
            self.eval_s += time.process_time() - t
            spent = time.process_time() - self.t0 - self.eval_s
            row = {"timesteps": self.num_timesteps, "train_cpu_seconds": round(spent, 1),
                   "win_rate": e.win_rate, "mean_return": e.mean_return}
            self.rows.append(row)
            print(json.dumps(row), flush=True)
        return time.process_time() - self.t0 - self.eval_s < self.budget_s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=12.0,
                    help="training budget in CPU minutes of this process (evaluations excluded)")
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--eval-every", type=int, default=20_000)
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--final-games", type=int, default=1000)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--gamma", type=float, default=0.9, help="discount (beginner episodes last tens of steps)")
    ap.add_argument("--ent", type=float, default=0.0, help="entropy bonus")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="docs/figures")
    args = ap.parse_args()
    torch.set_num_threads(1)  # one core: the budget is a CPU budget
    venv = DummyVecEnv([lambda: MinesweeperEnv(**LEVEL) for _ in range(args.envs)])
    venv.seed(args.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=256, n_epochs=4, learning_rate=args.lr,
                        gamma=args.gamma, ent_coef=args.ent, seed=args.seed, verbose=0,
                        policy_kwargs={"features_extractor_class": CellConv, "net_arch": [], "normalize_images": False},
                        device="cpu")
    model.policy.action_net = Logits(venv.action_space.n)
    model.policy.optimizer = model.policy.optimizer_class(model.policy.parameters(), lr=args.lr,
                                                          **model.policy.optimizer_kwargs)
    rows: list[dict] = []
    curve = Curve(args.eval_every, args.eval_games, args.minutes * 60, rows)
    model.learn(total_timesteps=10**9, callback=curve)
    if rows[-1]["timesteps"] != model.num_timesteps:  # the curve ends where training stopped
        curve.next = 0
        curve._on_step()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "rl-learning-curve.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    final = {"MaskablePPO": evaluate(MinesweeperEnv(**LEVEL), ppo_policy(model), args.final_games, seed=0)}
    short = {name: evaluate(MinesweeperEnv(**LEVEL), name, args.eval_games, seed=0) for name in BASELINES}
    for name in BASELINES:
        final[name] = evaluate(MinesweeperEnv(**LEVEL), name, args.final_games, seed=0)
    print(f"\nbeginner (9x9/10, first click opening), {args.final_games} games, boards of sweeplab bench --seed 0; "
          f"MaskablePPO after {model.num_timesteps} steps ({args.minutes} min of one core)")
    print(f"{'agent':<12} {'win rate':>9} {'95% Wilson':>17} {'mean return':>12}")
    for name, e in final.items():
        lo, hi = e.wilson95()
        print(f"{name:<12} {e.win_rate:>9.1%} {lo:>8.1%}-{hi:<8.1%} {e.mean_return:>12.3f}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([r["timesteps"] for r in rows], [r["win_rate"] for r in rows], marker="o", ms=3, label="MaskablePPO")
    for name, style in zip(BASELINES, (":", "--", "-.", "-")):
        ax.axhline(short[name].win_rate, color="grey", ls=style, lw=1, label=f"{name} ({short[name].win_rate:.0%})")
    ax.set_xlabel("environment steps")
    ax.set_ylabel(f"win rate on {args.eval_games} fixed boards")
    ax.set_ylim(0, 1)
    ax.set_title(f"MaskablePPO on beginner (first click opening), {args.minutes:g} min of one CPU core")
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "rl-learning-curve.png", dpi=110)
    print(f"wrote {out / 'rl-learning-curve.png'}")


if __name__ == "__main__":
    main()
