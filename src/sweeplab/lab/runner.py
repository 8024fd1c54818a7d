"""The batched lab runner: a win-rate run split into tasks of about a thousand games, fanned out
to local processes or a Dask cluster, each task returning aggregated counts.

Game i of a run seeded S is played on the board of seed `stream_key(S, i)` by a player seeded
`stream_key(S', i)`, so the totals depend only on (spec, seed, games), never on the backend,
the worker count or how the games were cut into tasks. A CSV of finished tasks lets a long
run resume where it stopped.
"""

from __future__ import annotations

import csv
import functools
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ..errors import SweeplabError
from ..extras import install_hint
from ..rng import mix64, seed_key, stream_key

TASK_GAMES = 1000
PLAYER_SALT = 0x5EED_51A7_E9A1_0001  # player seeds are a separate stream from board seeds


@dataclass(frozen=True)
class BenchSpec:
    """What a run plays: the player, the level, the first-click rule and cell, and the seed."""

    player: str
    width: int
    height: int
    mines: int
    first_click: str = "opening"
    at: tuple[int, int] | None = None  # None: the player chooses its first click too
    seed: int = 0
    topology: str = "bounded"

    def check(self) -> BenchSpec:
        from ..generators import make_rule
        from ..solver.players import PLAYERS
        if self.player not in PLAYERS:
            raise SweeplabError(f"unknown player {self.player!r}; allowed: {', '.join(sorted(PLAYERS))}")
        make_rule(self.first_click, self.width, self.height, self.mines, 0, self.topology)
        if self.at is not None:
            x, y = self.at
            if not (0 <= x < self.width and 0 <= y < self.height):
                raise SweeplabError(f"first click {self.at} is off the {self.width}x{self.height} board; "
                                    f"x in 0..{self.width - 1}, y in 0..{self.height - 1}")
        seed_key(self.seed)
        return self

    def label(self) -> str:
        at = "player" if self.at is None else f"{self.at[0]},{self.at[1]}"
        return f"{self.player} {self.width}x{self.height}/{self.mines} {self.first_click}@{at} seed {self.seed}"


@dataclass
class Counts:
    """Aggregated counts of a batch of games; they add up across tasks."""

    games: int = 0
    wins: int = 0
    bbbv_won: int = 0       # total 3BV of the won games
    guesses: int = 0
    certain: int = 0        # moves the player called certain
    unsound: int = 0        # certain moves that hit a mine (must stay 0)
    lost_on_guess: int = 0
    beyond_exact: int = 0   # guesses made without the exact analysis (it declined the position)
    seconds: float = 0.0    # wall time spent playing inside the tasks (not reproducible, not compared)
    cpu_seconds: float = 0.0  # CPU time of the same (on a shared machine, the fairer speed)

    def __add__(self, other: Counts) -> Counts:
        return Counts(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def outcome(self) -> tuple:
        """Everything but the time: what must be equal across backends and worker counts."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.name not in TIMES)


TIMES = ("seconds", "cpu_seconds")


def game_seeds(seed: int, i: int) -> tuple[int, int]:
    """(board seed, player seed) of game i of a run."""
    key = seed_key(seed)
    return stream_key(key, i), stream_key(mix64(key ^ PLAYER_SALT), i)


def play_games(spec: BenchSpec, start: int, stop: int) -> Counts:
    """Play games start..stop-1 of a run and return their counts (the unit of work of a task)."""
    from ..game import Game
    from ..generators import make_rule, rule_seed
    from ..solver.players import make_player
    from ..stats import bbbv
    from .autoplay import autoplay

    t0, cpu0 = time.perf_counter(), time.process_time()
    c = Counts()
    for i in range(start, stop):
        board_seed, player_seed = game_seeds(spec.seed, i)
        game = Game(rule=make_rule(spec.first_click, spec.width, spec.height, spec.mines,
                                   rule_seed(spec.first_click, board_seed), spec.topology))
        r = autoplay(game, make_player(spec.player, player_seed), spec.at)
        c.games += 1
        c.guesses += r.guesses
        c.certain += r.certain
        c.unsound += r.unsound
        c.lost_on_guess += r.lost_on_guess
        c.beyond_exact += r.beyond_exact
        if r.won:
            assert game.board is not None  # a won game has laid its board
            c.wins += 1
            c.bbbv_won += bbbv(game.board)
        tick()
    c.seconds = time.perf_counter() - t0
    c.cpu_seconds = time.process_time() - cpu0
    return c


def split(ranges: Iterable[tuple[int, int]], task_games: int) -> list[tuple[int, int]]:
    """Cut game ranges into tasks of at most `task_games` games."""
    if task_games < 1:
        raise SweeplabError(f"task size must be at least 1 game, got {task_games}")
    out: list[tuple[int, int]] = []
    for a, b in ranges:
        out.extend((s, min(s + task_games, b)) for s in range(a, b, task_games))
    return out


def missing(games: int, done: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ranges of 0..games-1 not covered by the finished ranges `done`."""
    out, at = [], 0
    for a, b in sorted(done):
        if a > at:
            out.append((at, min(a, games)))
        at = max(at, b)
        if at >= games:
            break
    if at < games:
        out.append((at, games))
    return [(a, b) for a, b in out if a < b]


OnTask = Callable[[int, int, Counts], None]
OnProgress = Callable[[int], None]

# Where `tick` counts finished units of work (games) while a task runs: a counter shared with the
# parent in a pool's worker, a callable in the parent itself, nothing elsewhere (Dask workers).
_ticks = None


def tick(n: int = 1) -> None:
    """One more unit of a task's work done (a game played): the progress bar moves per game, not per task."""
    t = _ticks
    if t is None:
        return
    if callable(t):
        t(n)
    else:
        with t.get_lock():
            t.value += n


def run(spec: BenchSpec, games: int, *, workers: int | None = None, task_games: int = TASK_GAMES,
        scheduler: str | None = None, cluster: str | None = None, done: dict | None = None,
        on_task: OnTask | None = None, on_progress: OnProgress | None = None, client=None) -> Counts:
    """Play games 0..games-1 of `spec` and return the totals.

    Backends: local processes (default; `workers` of them, 1 runs in this process), or Dask
    (`scheduler="tcp://host:port"`, or `cluster="local"` to start a LocalCluster of `workers`).
    `done` maps finished (start, stop) ranges to their counts (from a resumed CSV); only the rest
    is played. `on_task(start, stop, counts)` is called as each task finishes, `on_progress(games)`
    with the games played so far in this call, as they are played (local processes) or as tasks finish
    (Dask). `client`: an existing dask.distributed Client to use (it is left open).

    Ctrl-C (KeyboardInterrupt) stops the worker processes at once and propagates; the tasks finished
    before it have been passed to `on_task`.
    """
    spec.check()
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise SweeplabError(f"games must be a non-negative integer, got {games!r}")
    if workers is not None and workers < 1:
        raise SweeplabError(f"workers must be at least 1, got {workers}")
    if cluster not in (None, "local"):
        raise SweeplabError(f"unknown cluster {cluster!r}; allowed: local (or give a scheduler address)")
    done = {k: v for k, v in (done or {}).items() if k[1] <= games}
    total = Counts()
    for c in done.values():
        total = total + c
    todo = split(missing(games, done), task_games)
    if not todo:
        return total
    finished = fan_out(functools.partial(play_games, spec), todo, workers=workers, scheduler=scheduler,
                       cluster=cluster, client=client, on_progress=on_progress)
    for (a, b), c in finished:
        total = total + c
        if on_task is not None:
            on_task(a, b, c)
    return total


def fan_out(work: Callable, todo: list[tuple[int, int]], *, workers: int | None = None, scheduler: str | None = None,
            cluster: str | None = None, client=None, on_progress: OnProgress | None = None):
    """Run `work(start, stop)` for each range of `todo` on the backends of `run`, yielding
    ((start, stop), result) as each finishes. `work` must pickle (a module-level function or a
    functools.partial of one); it may call `tick()` per unit of work for `on_progress` (see `run`).
    Interrupted (Ctrl-C) or closed early, it stops its worker processes at once."""
    if scheduler or cluster or client:
        return _dask(work, todo, workers, scheduler, cluster, client, on_progress)
    return _local(work, todo, workers or os.cpu_count() or 1, on_progress)


POLL_SECONDS = 0.1  # how often the parent looks at the workers' game counter while it waits


def _local(work, todo, workers, on_progress):
    global _ticks
    if workers == 1:
        played = 0

        def count(n):
            nonlocal played
            played += n
            if on_progress is not None:
                on_progress(played)

        saved, _ticks = _ticks, count
        try:
            for a, b in todo:
                yield (a, b), work(a, b)
        finally:
            _ticks = saved
        return
    counter = multiprocessing.Value("q", 0)
    pool = multiprocessing.Pool(min(workers, len(todo)), initializer=_worker_start, initargs=(counter,))
    try:
        results = pool.imap_unordered(functools.partial(_task, work), todo)
        seen = 0
        for _ in todo:
            while True:
                try:
                    item = results.next(timeout=POLL_SECONDS)
                    break
                except multiprocessing.TimeoutError:
                    seen = _progress(counter, seen, on_progress)
            seen = _progress(counter, seen, on_progress)
            yield item
        pool.close()
    finally:
        pool.terminate()  # at once: on Ctrl-C the workers stop mid-task (their finished tasks were yielded)
        pool.join()


def _progress(counter, seen: int, on_progress) -> int:
    now = counter.value
    if on_progress is not None and now != seen:
        on_progress(now)
    return now


def _worker_start(counter) -> None:
    """A pool worker: Ctrl-C is the parent's to handle (it stops the workers), and `tick` counts in `counter`."""
    global _ticks
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _ticks = counter


def _task(work, rng):
    return rng, work(*rng)


def _dask(work, todo, workers, scheduler, cluster, client, on_progress):
    try:
        from dask.distributed import Client, LocalCluster
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise SweeplabError(f"the Dask backend needs the extra: {install_hint('dask')}") from None
    local = None
    own = client is None
    if client is None and scheduler:
        client = Client(scheduler)
    elif client is None:
        local = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                             dashboard_address=None)
        client = Client(local)
    try:
        futures = {}
        for a, b in todo:
            futures[client.submit(work, a, b, pure=False)] = (a, b)
        played = 0
        for f in dask_completed(list(futures)):
            a, b = futures[f]
            result = f.result()
            played += b - a
            if on_progress is not None:
                on_progress(played)
            yield (a, b), result
    finally:
        if own:
            client.close()
        if local is not None:
            local.close()


# --- resumable CSV ----------------------------------------------------------------------------
SPEC_COLUMNS = ("player", "width", "height", "mines", "first_click", "at", "seed", "topology")
COUNT_COLUMNS = tuple(f.name for f in fields(Counts))
COLUMNS = SPEC_COLUMNS + ("start", "stop") + COUNT_COLUMNS


def _spec_row(spec: BenchSpec) -> dict:
    row = asdict(spec)
    row["at"] = "" if spec.at is None else f"{spec.at[0]},{spec.at[1]}"
    return {k: str(row[k]) for k in SPEC_COLUMNS}


def read_done(path: str | os.PathLike, spec: BenchSpec) -> dict[tuple[int, int], Counts]:
    """The finished tasks of `spec` recorded in a CSV written by `append_row` (none if no file)."""
    p = Path(path)
    if not p.exists():
        return {}
    want = _spec_row(spec)
    done: dict[tuple[int, int], Counts] = {}
    with p.open(newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or tuple(reader.fieldnames) != COLUMNS:
            raise SweeplabError(f"{p} is not a sweeplab bench CSV; its header must be {','.join(COLUMNS)}")
        for n, row in enumerate(reader, 2):
            if {k: row[k] for k in SPEC_COLUMNS} != want:
                continue
            try:
                rng = (int(row["start"]), int(row["stop"]))
                values: dict[str, Any] = {k: (float if k in TIMES else int)(row[k]) for k in COUNT_COLUMNS}
                c = Counts(**values)
            except (TypeError, ValueError):
                raise SweeplabError(f"{p} line {n}: counts must be numbers") from None
            if any(rng[0] < b and a < rng[1] for a, b in done):
                raise SweeplabError(f"{p} line {n}: games {rng[0]}..{rng[1] - 1} overlap a range already recorded")
            done[rng] = c
    return done


def append_row(path: str | os.PathLike, spec: BenchSpec, start: int, stop: int, counts: Counts) -> None:
    """Append one finished task to the CSV (writing the header if the file is new)."""
    p = Path(path)
    new = not p.exists() or p.stat().st_size == 0
    with p.open("a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(COLUMNS)
        w.writerow([*_spec_row(spec).values(), start, stop,
                    *(f"{getattr(counts, k):.6f}" if k in TIMES else getattr(counts, k) for k in COUNT_COLUMNS)])


def summary(counts: Counts, *, wall: float | None = None) -> dict:
    """The figures a bench prints: win rate with its 95% Wilson interval, 3BV of wins, speed."""
    from .intervals import rate, wilson
    lo, hi = wilson(counts.wins, counts.games)
    out = {
        "games": counts.games, "wins": counts.wins, "win_rate": rate(counts.wins, counts.games),
        "wilson95": [lo, hi],
        "bbbv_won_mean": rate(counts.bbbv_won, counts.wins),
        "guesses_per_game": rate(counts.guesses, counts.games),
        "unsound": counts.unsound, "lost_on_guess": counts.lost_on_guess, "beyond_exact": counts.beyond_exact,
        "task_seconds": counts.seconds, "cpu_seconds": counts.cpu_seconds,
        "games_per_cpu_second": rate(counts.games, counts.cpu_seconds) if counts.cpu_seconds else None,
    }
    if wall is not None:
        out["wall_seconds"] = wall
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}


