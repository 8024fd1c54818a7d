"""`sweeplab play --tui`: the same games in the terminal (Textual), with mouse and keyboard,
the same modes, the counter and timer, and the same SQLite records as the browser.

It drives the same game hub as the web server, so the rules, the modes, the filing of finished
games and the keeping of a game in play (it goes on at the next start, its clock where it was
left) are shared; it only draws what the hub's state says. Every cell state has its own glyph, so
the board reads without colour. The counters under the board come from `sweeplab.stats`, as the
page's: while a game is played only what the player knows (time and clicks), the rest at its end.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Static

from ..errors import SweeplabError
from ..stats import game_stats
from . import modes as M
from .games import Hub, PlayedGame
from .store import Store

# The classic colours, lightened where the terminal's darker open cells need it.
NUMBER_STYLES = ("", "bold #4040ff", "bold #00a000", "bold #ff2020", "bold #000080", "bold #800000", "bold #008080",
                 "bold black", "bold #d0d0d0")
CELL_LOOK = {  # character -> (two columns of text, style); the glyphs alone tell every state apart
    "#": ("░░", "#808080 on #c0c0c0"), "F": ("⚑ ", "bold red on #c0c0c0"), "?": ("? ", "bold black on #c0c0c0"),
    "*": ("✹ ", "bold black on #707070"), "X": ("✹!", "bold black on red"), "W": ("✗ ", "bold red on #707070"),
    "0": ("  ", "on #707070"),
}
FACES = {"ready": ":)", "playing": ":)", "won": "B)", "lost": "X(", "pressing": ":o"}
LEVELS = ("beginner", "intermediate", "expert")


def lcd(value: int) -> str:
    """Three digits as the classic counter shows them (a minus for a negative count)."""
    return f"-{min(99, -value):02d}" if value < 0 else f"{min(999, value):03d}"


def counters_text(game) -> str:
    """The counters under the board, from `sweeplab.stats` (the page shows the same). While the game
    is played: time and clicks, which the player knows; 3BV and what depends on it, and wasted clicks
    (a right click counts only on a mine), only once it is over, when the board is shown anyway."""
    st = game_stats(game)
    clicks = f"clicks {st.left_clicks} left, {st.right_clicks} right, {st.chords} chord{'s' * (st.chords != 1)}"
    line = f"time {st.time:.1f} s   {clicks}"
    if not game.over:
        return line
    return (f"{line}, {st.wasted_clicks} wasted\n3BV {st.bbbv_solved}/{st.bbbv}   3BV/s {st.bbbv_per_second:.3f}   "
            f"IOE {st.ioe:.3f}   RQP {st.rqp:.3f}   correctness {st.correctness:.3f}   throughput {st.throughput:.3f}")


def _sweeper(app: App) -> MinesweeperApp:
    """The running app as the game's own class (a widget's `app` is typed as any app)."""
    assert isinstance(app, MinesweeperApp)
    return app


class BoardView(Widget, can_focus=True):
    """The minefield: two columns per cell; mouse as on Windows, keyboard with a cursor."""

    cursor = reactive((0, 0))
    pressing = reactive(False)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.state: dict | None = None
        self._chord_press = False

    def on_focus(self) -> None:
        self.refresh()  # the cursor shows only while the board has the keys

    def on_blur(self) -> None:
        self.refresh()

    def render(self) -> Text:
        s = self.state
        text = Text()
        if s is None:
            return text
        w, cells = s["width"], s["cells"]
        cx, cy = self.cursor
        for y in range(s["height"]):
            for x in range(w):
                ch = cells[y * w + x]
                if ch in "12345678":
                    glyph, style = f"{ch} ", f"{NUMBER_STYLES[int(ch)]} on #707070"
                else:
                    glyph, style = CELL_LOOK[ch]
                    if ch in "#F?" and (x + y) % 2:  # a checkerboard, so that hidden cells read as cells
                        style = style.replace("on #c0c0c0", "on #a0a0a0")
                if (x, y) == (cx, cy) and self.has_focus:
                    style += " reverse"
                text.append(glyph, style)
            if y < s["height"] - 1:
                text.append("\n")
        return text

    def get_content_width(self, container, viewport) -> int:
        return 2 * (self.state["width"] if self.state else 9)

    def get_content_height(self, container, viewport, width) -> int:
        return self.state["height"] if self.state else 9

    def cell_at(self, event: events.MouseEvent) -> tuple[int, int] | None:
        if self.state is None:
            return None
        x, y = int(event.x) // 2, int(event.y)
        return (x, y) if 0 <= x < self.state["width"] and 0 <= y < self.state["height"] else None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self.focus()
        cell = self.cell_at(event)
        if cell is None:
            return
        self.cursor = cell
        if event.button == 3:
            _sweeper(self.app).act("flag", *cell)
        else:
            self._chord_press = event.button == 2 or event.shift
            _sweeper(self.app).set_pressing(True)
        self.capture_mouse()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self.release_mouse()
        was = _sweeper(self.app).pressing
        _sweeper(self.app).set_pressing(False)
        cell = self.cell_at(event)
        if cell is None or not was:
            return
        _sweeper(self.app).act("chord" if self._chord_press else "open", *cell)


class Ask(ModalScreen[bool]):
    """A yes/no question (y or Enter: yes; n or Esc: no)."""

    BINDINGS = [Binding("y,enter", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]
    DEFAULT_CSS = "Ask { align: center middle; } Ask > Static { width: 60; border: thick $accent; padding: 1 2; }"

    def __init__(self, question: str):
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield Static(f"{self.question}  [y/n]", id="question")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class CustomSize(ModalScreen):
    """The Custom dialog: width, height and mines, with this mode's limits (the server's words)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = ("CustomSize { align: center middle; } CustomSize > Vertical { width: 64; height: auto; "
                   "border: thick $accent; padding: 1 2; } CustomSize Input { width: 20; }")

    def __init__(self, limits: str, start: str):
        super().__init__()
        self.limits, self.start = limits, start

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Custom field, as WIDTHxHEIGHT/MINES (e.g. 30x24/200). {self.limits}", id="custom-limits")
            yield Input(self.start, id="size")
            yield Static("", id="custom-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.replace(" ", "").lower()
        try:
            size, mines = text.split("/")
            width, height = size.split("x")
            wanted = (int(width), int(height), int(mines))
        except ValueError:
            self.query_one("#custom-error", Static).update(f"{event.value!r} is not WIDTHxHEIGHT/MINES")
            return
        why = _sweeper(self.app).custom_game(*wanted)
        if why:
            self.query_one("#custom-error", Static).update(why)
        else:
            self.dismiss()

    def action_cancel(self) -> None:
        self.dismiss()


class RecordsScreen(ModalScreen):
    """Best times (the two tables), statistics and the latest records, from the same store as the browser."""

    BINDINGS = [Binding("escape,b,q", "close", "Close")]
    DEFAULT_CSS = "RecordsScreen { align: center middle; } RecordsScreen > Static { width: 78; border: thick $accent; }"

    def __init__(self, store: Store):
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        yield Static(records_text(self.store), id="records")

    def action_close(self) -> None:
        self.dismiss()


def records_text(store: Store, latest: int = 8) -> str:
    """Best times, statistics and the latest games as plain text, 76 columns at most."""
    label = {name: m.label for name, m in M.MODES.items()}
    out = ["Best times (boards the player could not know; no hints; named levels)"]
    best = store.best_times()
    for table, title in (("best", None), ("session", "Windows XP/98 sessions (predictable as in Windows: apart)")):
        rows = [b for b in best if M.MODES.get(b["mode"]) is not None and M.MODES[b["mode"]].session == (table == "session")]
        if title and rows:
            out.append(title)
        for b in rows:
            out.append(f"  {label.get(b['mode'], b['mode'])[:26]:26} {b['level']:12} {b['elapsed']:8.3f} s  "
                       f"{(b['player'] or '')[:16]}")
    if not best:
        out.append("  none yet")
    out.append("Statistics (won or lost, practice not counted)")
    out.append(f"  {'mode':26} {'level':12} played  won  win %  streak  best")
    for st in store.statistics():
        out.append(f"  {label.get(st['mode'], st['mode'])[:26]:26} {st['level']:12} {st['played']:6} {st['won']:4} "
                   f"{st['win_percent']:6.1f} {st['streak']:7} {st['best_streak']:5}")
    rows, total = store.records(limit=latest)
    out.append(f"Latest games ({total} in all)")
    for r in rows:
        tags = ", ".join(t for t, on in (("hints", r["hints"]), ("practice", r["practice"])) if on)
        out.append(f"  #{r['id']:<5} {label.get(r['mode'], r['mode'])[:20]:20} {r['level']:12} {r['status']:9} "
                   f"{r['elapsed']:8.3f} s {tags}")
    out.append("Esc closes")
    return "\n".join(out)


class MinesweeperApp(App):
    """Minesweeper in the terminal."""

    TITLE = "sweeplab Minesweeper"
    CSS = """
    Screen { align: center top; background: $surface; }
    #top { height: 3; width: auto; padding: 0 1; }
    .lcd { color: red; background: black; text-style: bold; width: 5; height: 1; margin: 1 1; content-align: center middle; }
    #face { min-width: 6; width: 6; margin: 0 2; }
    BoardView { width: auto; height: auto; border: tall grey; margin: 0 1; }
    #counters { width: 100%; height: auto; padding: 0 1; }
    #status { width: 100%; height: auto; padding: 0 1; color: $text-muted; }
    """
    # The footer shows the few keys that fit 80 columns; the status line lists the rest at start.
    BINDINGS = [
        Binding("f2,n", "new_game", "New"), Binding("1", "level('beginner')", "Beg", show=False),
        Binding("2", "level('intermediate')", "Int", show=False), Binding("3", "level('expert')", "Exp", show=False),
        Binding("u", "custom", "Custom"), Binding("m", "next_mode", "Mode"), Binding("k", "marks", "Marks", show=False),
        Binding("h", "hint", "Hint"), Binding("b", "records", "Best"),
        Binding("up", "move(0,-1)", show=False), Binding("down", "move(0,1)", show=False),
        Binding("left", "move(-1,0)", show=False), Binding("right", "move(1,0)", show=False),
        Binding("space,enter", "key_act('open')", "Open", show=False), Binding("f", "key_act('flag')", "Flag", show=False),
        Binding("c", "key_act('chord')", "Chord", show=False), Binding("q", "quit", "Quit"),
    ]
    KEYS = ("Keys: arrows move, Space open, F flag, C chord; 1 2 3 level, U custom, M mode, K marks, H hint, "
            "B best times and records, F2 new, Q quit")

    def __init__(self, store: Store, *, mode: str | None = None, level: str = "beginner", seed: int | None = None,
                 clock=None):
        super().__init__()
        self.store = store
        self.hub = Hub(store) if clock is None else Hub(store, clock=clock)
        self.mode = mode or M.default_mode()[0]
        self.level = level
        self.marks = True
        self.first_seed = seed
        self.pressing = False
        self.pg: PlayedGame | None = None
        self.session = "tui"
        self.custom: tuple[int, int, int] | None = None  # (width, height, mines) while the level is custom
        self.working = False  # a slow first click is being played in a thread

    def compose(self) -> ComposeResult:
        self.timer_lcd = Static("000", id="timer", classes="lcd")
        with Horizontal(id="top"):
            yield Static("000", id="counter", classes="lcd")
            yield Button(":)", id="face")
            yield self.timer_lcd
        yield BoardView(id="board")
        yield Static("", id="counters")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        if self.first_seed is not None or not self.resume():
            self.new_game(seed=self.first_seed)
            self.say(f"{self.status_line()}   {self.KEYS}")
        self.query_one(BoardView).focus()
        self.call_after_refresh(self.query_one(BoardView).focus)  # (after the first frame too: the keys must be there)
        self.set_interval(0.25, self.tick)

    def resume(self) -> bool:
        """Go on with the game the terminal was playing when it last stopped, if the store kept it."""
        gid = self.store.live_of_session(self.session)
        if gid is None:
            return False
        try:
            self.pg = self.hub.get(gid)
        except SweeplabError as e:
            self.say(f"{e}")
            return False
        if self.pg.game.over:
            return False
        log = self.pg.game.log
        if log:  # the clock goes on from the last move the store kept: the time the program was closed does not count
            self.pg.game.run_clock_from(log[-1].t)
        self.mode, self.level = self.pg.mode, self.pg.level
        if self.level == "custom":
            self.custom = (self.pg.game.width, self.pg.game.height, self.pg.game.mine_count)
        self.show(self.hub.state(self.pg))
        self.say(f"Your game goes on: {M.MODES[self.mode].label}, {self.level}.   {self.KEYS}")
        return True

    def status_line(self) -> str:
        note = M.default_mode()[1] if self.mode == M.default_mode()[0] else None
        size = f" {self.custom[0]}x{self.custom[1]}/{self.custom[2]}" if self.level == "custom" and self.custom else ""
        practice = ", practice (seed chosen): no best time" if self.pg is not None and self.pg.practice else ""
        return f"{M.MODES[self.mode].label}, {self.level}{size}{practice}" + (f"  ({note})" if note else "")

    # --- games --------------------------------------------------------------------------------
    def new_game(self, seed: int | None = None) -> str | None:
        """Start a game of the current mode and level; returns why not (and says it), or None."""
        width, height, mines = (self.level == "custom" and self.custom) or (None, None, None)
        try:
            self.pg = self.hub.new(mode=self.mode, level=self.level, marks=self.marks, seed=seed,
                                   session=self.session, width=width, height=height, mines=mines)
        except SweeplabError as e:
            self.say(str(e))
            return str(e)
        self.say(self.status_line())
        self.show(self.hub.state(self.pg))
        return None

    def custom_game(self, width: int, height: int, mines: int) -> str | None:
        """A custom game of this size (from the Custom dialog); returns why not, or None."""
        old = (self.level, self.custom)
        self.level, self.custom = "custom", (width, height, mines)
        why = self.new_game()
        if why:
            self.level, self.custom = old
        return why

    def in_play(self) -> bool:
        return self.pg is not None and self.pg.game.status == "playing"

    def change(self, what: str, then) -> None:
        """Do `then` (which starts a new game), asking first when that throws a game in play away."""
        if not self.in_play():
            then()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                then()
            else:
                self.say(f"Kept the game in play ({what} not changed).")

        self.push_screen(Ask(f"Change the {what}? The game in play will be thrown away and count as a loss."),
                         answered)

    def act(self, kind: str, x: int, y: int) -> None:
        if self.pg is None or self.pg.game.over or self.working:
            return
        g = self.pg.game
        if g.board is None and kind == "open" and M.slow_first_click(self.pg.mode, g.width, g.height, g.mine_count):
            # a dense no-guess board, or kernels still running as Python: in a thread, the screen saying so
            self.working = True
            self.say("Laying the board… (a dense no-guess board, or the first game after an install, takes a while)")
            self.run_worker(lambda: self._act_in_thread(self.pg, kind, x, y), thread=True)
            return
        try:
            state = self.hub.act(self.pg, kind, x, y)
        except SweeplabError as e:
            self.say(str(e))
            return
        self.show(state)

    def _act_in_thread(self, pg, kind: str, x: int, y: int) -> None:
        try:
            state = self.hub.act(pg, kind, x, y)
        except SweeplabError as e:
            self.call_from_thread(self.say, str(e))
            return
        finally:
            self.working = False
        self.call_from_thread(self._shown_after_work, pg, state)

    def _shown_after_work(self, pg, state: dict) -> None:
        if pg is self.pg:  # (unless another game started meanwhile)
            self.show(state)
            if state["status"] not in ("won", "lost"):
                self.say(self.status_line())

    def show(self, state: dict) -> None:
        board = self.query_one(BoardView)
        board.state = state
        cx, cy = board.cursor
        board.cursor = (min(cx, state["width"] - 1), min(cy, state["height"] - 1))
        board.refresh(layout=True)
        self.query_one("#counter", Static).update(lcd(state["mines_left"]))
        self.tick()
        self.set_face()
        if state["status"] in ("won", "lost"):
            st = state["stats"]
            best = " New best time!" if state.get("new_best") else ""
            if state["status"] == "won" and not state["eligible"]:
                best = " (practice: no best time)" if state.get("practice") else " (not eligible for best times)"
            self.say(f"{state['status'].capitalize()}: time {st['time']:.3f} s, 3BV {st['bbbv']}, "
                     f"3BV/s {st['bbbv_per_second']:.2f}, IOE {st['ioe']:.2f}, seed {state['seed'] or 'private'}, "
                     f"record {state['record_id']}.{best}" + (f" {state['board_note']}" if state.get("board_note")
                                                              else "") + "  F2: new game")

    def tick(self) -> None:
        # the interval timer can fire once more while the app tears its screen down
        if self.pg is not None and self.timer_lcd.is_attached:
            self.timer_lcd.update(lcd(self.pg.game.timer))
            self.query_one("#counters", Static).update(counters_text(self.pg.game))

    def set_face(self) -> None:
        status = self.pg.game.status if self.pg else "ready"
        face = FACES["pressing"] if self.pressing and status in ("ready", "playing") else FACES[status]
        self.query_one("#face", Button).label = face

    def set_pressing(self, on: bool) -> None:
        self.pressing = on and self.pg is not None and not self.pg.game.over
        self.set_face()

    def say(self, text: str) -> None:
        self.query_one("#status", Static).update(text)

    # --- actions --------------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "face":
            self.new_game()
            self.query_one(BoardView).focus()

    def action_new_game(self) -> None:
        self.new_game()

    def action_level(self, level: str) -> None:
        def go():
            self.level = level
            self.new_game()
        self.change("level", go)

    def action_custom(self) -> None:
        lim = M.MODES[self.mode].custom
        start = "x".join(map(str, self.custom[:2])) + f"/{self.custom[2]}" if self.custom else "30x24/200"
        self.change("level", lambda: self.push_screen(CustomSize(lim.text(), start)))

    def action_records(self) -> None:
        self.push_screen(RecordsScreen(self.store))

    def action_next_mode(self) -> None:
        names = [m for m in M.MODES if M.availability(m) is None]

        def go():
            self.mode = names[(names.index(self.mode) + 1) % len(names)] if self.mode in names else names[0]
            if self.level == "custom":
                self.level, self.custom = "beginner", None
            self.new_game()
        self.change("mode", go)

    def action_marks(self) -> None:
        def go():
            self.marks = not self.marks
            self.new_game()
            self.say(f"Marks (?) {'on' if self.marks else 'off'}")
        self.change("marks", go)

    def action_hint(self) -> None:
        if self.pg is None:
            return
        try:
            h = self.hub.hint(self.pg)
        except SweeplabError as e:
            self.say(str(e))
            return
        cells = "; ".join(f"column {x + 1}, row {y + 1}" for x, y in h["cells"][:4])
        self.say(f"Hint: {h['kind']} {cells}: {h['reason']} (this game no longer counts for best times)")

    def board_keys(self) -> BoardView:
        """The board, given the keys if it has not got them: the arrows and Space are the app's own keys
        and work wherever the focus is, but the cursor shows only on a focused board (the focus can be
        nowhere at the start, after the terminal reported the window out of focus)."""
        board = self.query_one(BoardView)
        if not board.has_focus and not isinstance(self.screen, ModalScreen):
            board.focus()
        return board

    def on_app_focus(self) -> None:
        if self.focused is None and not isinstance(self.screen, ModalScreen):
            self.query_one(BoardView).focus()

    def action_move(self, dx: int, dy: int) -> None:
        board = self.board_keys()
        if board.state is None:
            return
        x, y = board.cursor
        board.cursor = (max(0, min(board.state["width"] - 1, x + dx)), max(0, min(board.state["height"] - 1, y + dy)))

    def action_key_act(self, kind: str) -> None:
        self.act(kind, *self.board_keys().cursor)


def run_tui(db_path, **kw) -> None:
    store = Store(db_path)
    try:
        MinesweeperApp(store, **kw).run()
    finally:
        store.close()
