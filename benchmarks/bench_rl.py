"""Steps per second of the RL environments on expert with random masked actions, beside other
installable Minesweeper environments, in one run (medians of --repeats, ratios to sweeplab).

    python benchmarks/bench_rl.py [--peers-python PEERS_VENV/bin/python] [--seconds 1.5] [--repeats 3]

Each measurement steps for about --seconds and counts env steps (a reset step or an automatic
reset counts as the step it is), random masked actions drawn inside the loop and counted in the
time. The peers run in their own interpreter (--peers-python: a venv with jumanji, jax, jaxlib,
gym-minesweeper, minesweeper-env-rl, minesweeper), one subprocess each, so none of their packages
enter sweeplab's. A peer that does not import or run is reported with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

W, H, M = 30, 16, 99  # expert


def timed(step, seconds, repeats):
    """Median steps per second of `step()` (which returns how many env steps it took)."""
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        n = 0
        while time.perf_counter() - t0 < seconds:
            n += step()
        out.append(n / (time.perf_counter() - t0))
    return statistics.median(out)


# --- sweeplab ------------------------------------------------------------------------------------
def ours_single(seconds, repeats):
    import gymnasium as gym
    import numpy as np

    import sweeplab.rl  # noqa: F401
    env = gym.make("sweeplab/Expert-v0")
    rng = np.random.default_rng(0)
    state = {"info": env.reset(seed=0)[1]}

    def step():
        legal = np.flatnonzero(state["info"]["action_mask"])
        _, _, te, tr, info = env.step(int(legal[rng.integers(len(legal))]))
        if te or tr:
            info = env.reset()[1]
        state["info"] = info
        return 1

    timed(step, 0.3, 1)  # compile and warm up
    return timed(step, seconds, repeats)


def ours_vector(seconds, repeats, num_envs):
    from sweeplab.rl import MinesweeperVectorEnv
    env = MinesweeperVectorEnv(num_envs, level="expert")
    env.reset(seed=0)

    def step():
        env.step(env.sample_masked_actions())
        return num_envs

    timed(step, 0.3, 1)
    return timed(step, seconds, repeats)


# --- peers (run in --peers-python; they import only their own packages) ----------------------------
def peer_jumanji(seconds, repeats, num_envs, scan):
    import jax
    import jax.numpy as jnp
    from jumanji.environments import Minesweeper
    from jumanji.environments.logic.minesweeper.generator import UniformSamplingGenerator
    from jumanji.wrappers import AutoResetWrapper, VmapAutoResetWrapper

    base = Minesweeper(generator=UniformSamplingGenerator(num_rows=H, num_cols=W, num_mines=M))

    def policy(key, mask):  # a uniformly random explorable cell
        flat = jax.random.categorical(key, jnp.where(mask.reshape(-1), 0.0, -jnp.inf))
        return jnp.stack([flat // W, flat % W]).astype(jnp.int32)

    if num_envs == 1:
        env = AutoResetWrapper(base)
        state, ts = jax.jit(env.reset)(jax.random.PRNGKey(0))

        @jax.jit
        def one(state, ts, key):
            key, k = jax.random.split(key)
            state, ts = env.step(state, policy(k, ts.observation.action_mask))
            return state, ts, key
        carry = [state, ts, jax.random.PRNGKey(1)]

        def step():
            carry[0], carry[1], carry[2] = one(*carry)
            carry[1].reward.block_until_ready()
            return 1
    else:
        env = VmapAutoResetWrapper(base)
        state, ts = jax.jit(env.reset)(jax.random.split(jax.random.PRNGKey(0), num_envs))

        def body(c, _):
            state, ts, key = c
            key, k = jax.random.split(key)
            actions = jax.vmap(policy)(jax.random.split(k, num_envs), ts.observation.action_mask)
            state, ts = env.step(state, actions)
            return (state, ts, key), None

        @jax.jit
        def many(state, ts, key):
            return jax.lax.scan(body, (state, ts, key), None, length=scan)[0]
        carry = [state, ts, jax.random.PRNGKey(1)]

        def step():
            carry[0], carry[1], carry[2] = many(*carry)
            carry[1].reward.block_until_ready()
            return num_envs * scan

    timed(step, 0.3, 1)  # compile
    return timed(step, seconds, repeats)


def peer_gym_minesweeper(seconds, repeats):
    import numpy as np
    from gym_minesweeper.envs.minesweeper import MinesweeperEnv
    # expert on its side (30 rows of 16): its bounds check compares the column with the height too,
    # so a board wider than tall raises ValueError on every column >= height
    env = MinesweeperEnv(height=W, width=H, num_mines=M)
    rng = np.random.default_rng(0)
    obs = [env.reset()]

    def step():
        legal = np.flatnonzero(np.asarray(obs[0]).reshape(-1) == -1)
        a = int(legal[rng.integers(len(legal))])
        o, _, done, _ = env.step((a // H, a % H))
        obs[0] = env.reset() if done else o
        return 1

    return timed(step, seconds, repeats)


def peer_minesweeper_env_rl(seconds, repeats):
    import numpy as np
    from minesweeper_env_rl import MinesweeperPOMDP
    env = MinesweeperPOMDP(rows=H, cols=W, num_mines=M)
    rng = np.random.default_rng(0)
    env.reset()

    def step():
        legal = np.flatnonzero(~env.revealed.reshape(-1) & ~env.flagged.reshape(-1))
        a = int(legal[rng.integers(len(legal))])
        _, _, done, _ = env.step({"cell": (a // W, a % W), "type": "reveal"})
        if done:
            env.reset()
        return 1

    return timed(step, seconds, repeats)


def peer_minesweeper(seconds, repeats):
    import numpy as np
    from minesweeper.msgame import MSGame
    game = MSGame(W, H, M)
    rng = np.random.default_rng(0)

    def step():
        info = np.asarray(game.get_info_map()).reshape(-1)
        legal = np.flatnonzero(info == 11)  # 11: an unopened cell in its info map
        a = int(legal[rng.integers(len(legal))])
        game.play_move("click", a % W, a // W)
        if game.game_status != 2:  # 2: still playing
            game.reset_game()
        return 1

    return timed(step, seconds, repeats)


PEERS = {
    "jumanji Minesweeper-v0, single (jit, one call a step)": ("jumanji", 1, 1),
    "jumanji Minesweeper-v0, vmap x{envs} + scan 100 (one call per 100 steps)": ("jumanji", "envs", 100),
    "gym-minesweeper 0.0.1 (old gym API; expert as 16x30, see note)": ("gym_minesweeper",),
    "minesweeper-env-rl 0.12.0 (MinesweeperPOMDP)": ("minesweeper_env_rl",),
    "minesweeper 0.1.4 (MSGame)": ("minesweeper",),
}


def run_peer(args):
    name, *rest = json.loads(args.peer)
    if name == "jumanji":
        return peer_jumanji(args.seconds, args.repeats, *rest)
    return globals()[f"peer_{name}"](args.seconds, args.repeats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--envs", type=int, default=1024, help="sub-environments of the batched runs")
    ap.add_argument("--peers-python", default=None, help="interpreter of a venv with the peer environments")
    ap.add_argument("--peer", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peer:
        print(json.dumps(run_peer(args)))
        return
    rows = [("sweeplab MinesweeperEnv, single (gym.make, the Game)", ours_single(args.seconds, args.repeats), ""),
            (f"sweeplab MinesweeperVectorEnv x{args.envs} (one numba call a step)",
             ours_vector(args.seconds, args.repeats, args.envs), "")]
    for label, spec in PEERS.items():
        spec = [args.envs if s == "envs" else s for s in spec]
        label = label.format(envs=args.envs)
        if not args.peers_python:
            rows.append((label, None, "not run: give --peers-python"))
            continue
        # one thread for XLA too: every row is what one core gives
        env = dict(os.environ, XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
                   OMP_NUM_THREADS="1", JAX_PLATFORMS="cpu")
        p = subprocess.run([args.peers_python, __file__, "--peer", json.dumps(spec), "--seconds", str(args.seconds),
                            "--repeats", str(args.repeats)], capture_output=True, text=True, timeout=600, env=env)
        if p.returncode:
            why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
            rows.append((label, None, f"did not run: {why[:110]}"))
        else:
            rows.append((label, float(p.stdout.strip().splitlines()[-1]), ""))
    single, vector = rows[0][1], rows[1][1]
    print(f"expert {W}x{H}/{M}, random masked actions, medians of {args.repeats} x {args.seconds} s; "
          f"python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'environment':<74} {'steps/s':>12} {'sweeplab single /':>18} {'sweeplab vector /':>18}")
    for label, rate, note in rows:
        if rate is None:
            print(f"{label:<74} {'-':>12}  {note}")
        else:
            print(f"{label:<74} {rate:>12,.0f} {single / rate:>17.1f}x {vector / rate:>17.1f}x")


if __name__ == "__main__":
    main()
