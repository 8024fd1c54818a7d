"""`sweeplab play --tui`: the same games in the terminal (Textual), with mouse and keyboard,
the same modes, the counter and timer, and the same SQLite records as the browser.

It drives the same game hub as the web server, so the rules, the modes and the filing of
finished games are shared; it only draws what the hub's state says.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, Footer, Static

from ..errors import SweeplabError
from . import modes as M
from .games import Hub
from .store import Store

# The classic colours, lightened where the terminal's darker open cells need it.
NUMBER_STYLES = ("", "bold #4040ff", "bold #00a000", "bold #ff2020", "bold #000080", "bold #800000", "bold #008080",
                 "bold black", "bold #d0d0d0")
CELL_LOOK = {  # character -> (two columns of text, style)
    "#": ("  ", "on #c0c0c0"), "F": ("⚑ ", "bold red on #c0c0c0"), "?": ("? ", "bold black on #c0c0c0"),
    "*": ("✹ ", "bold black on #707070"), "X": ("✹ ", "bold black on red"), "W": ("✗ ", "bold red on #707070"),
    "0": ("  ", "on #707070"),
}
FACES = {"ready": ":)", "playing": ":)", "won": "B)", "lost": "X(", "pressing": ":o"}
LEVELS = ("beginner", "intermediate", "expert")


def lcd(value: int) -> str:
    """Three digits as the classic counter shows them (a minus for a negative count)."""
    return f"-{min(99, -value):02d}" if value < 0 else f"{min(999, value):03d}"


class BoardView(Widget, can_focus=True):
    """The minefield: two columns per cell; mouse as on Windows, keyboard with a cursor."""

    cursor = reactive((0, 0))
    pressing = reactive(False)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.state: dict | None = None
        self._chord_press = False

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
                        style = style.replace("on #c0c0c0", "on #a0a0a0").replace("on grey70", "on #a0a0a0")
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
            self.app.act("flag", *cell)
        else:
            self._chord_press = event.button == 2 or event.shift
            self.app.set_pressing(True)
        self.capture_mouse()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self.release_mouse()
        was = self.app.pressing
        self.app.set_pressing(False)
        cell = self.cell_at(event)
        if cell is None or not was:
            return
        self.app.act("chord" if self._chord_press else "open", *cell)


class MinesweeperApp(App):
    """Minesweeper in the terminal."""

    TITLE = "sweeplab Minesweeper"
    CSS = """
    Screen { align: center top; background: $surface; }
    #top { height: 3; width: auto; padding: 0 1; }
    .lcd { color: red; background: black; text-style: bold; width: 5; height: 1; margin: 1 1; content-align: center middle; }
    #face { min-width: 6; width: 6; margin: 0 2; }
    BoardView { width: auto; height: auto; border: tall grey; margin: 0 1; }
    #status { width: 100%; height: auto; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("f2,n", "new_game", "New"), Binding("1", "level('beginner')", "Beginner"),
        Binding("2", "level('intermediate')", "Intermediate"), Binding("3", "level('expert')", "Expert"),
        Binding("m", "next_mode", "Mode"), Binding("k", "marks", "Marks"), Binding("h", "hint", "Hint"),
        Binding("up", "move(0,-1)", show=False), Binding("down", "move(0,1)", show=False),
        Binding("left", "move(-1,0)", show=False), Binding("right", "move(1,0)", show=False),
        Binding("space,enter", "key_act('open')", "Open"), Binding("f", "key_act('flag')", "Flag"),
        Binding("c", "key_act('chord')", "Chord"), Binding("q", "quit", "Quit"),
    ]

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
        self.pg = None
        self.session = "tui"

    def compose(self) -> ComposeResult:
        self.timer_lcd = Static("000", id="timer", classes="lcd")
        with Horizontal(id="top"):
            yield Static("000", id="counter", classes="lcd")
            yield Button(":)", id="face")
            yield self.timer_lcd
        yield BoardView(id="board")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.new_game(seed=self.first_seed)
        self.query_one(BoardView).focus()
        self.set_interval(0.25, self.tick)

    # --- games --------------------------------------------------------------------------------
    def new_game(self, seed: int | None = None) -> None:
        try:
            self.pg = self.hub.new(mode=self.mode, level=self.level, marks=self.marks, seed=seed,
                                   session=self.session)
        except SweeplabError as e:
            self.say(str(e))
            return
        note = M.default_mode()[1] if self.mode == M.default_mode()[0] else None
        label = M.MODES[self.mode].label
        self.say(f"{label}, {self.level}" + (f"  ({note})" if note else ""))
        self.show(self.hub.state(self.pg))

    def act(self, kind: str, x: int, y: int) -> None:
        if self.pg is None or self.pg.game.over:
            return
        try:
            state = self.hub.act(self.pg, kind, x, y)
        except SweeplabError as e:
            self.say(str(e))
            return
        self.show(state)

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
                best = " (not eligible for best times)"
            self.say(f"{state['status'].capitalize()}: time {st['time']:.3f} s, 3BV {st['bbbv']}, "
                     f"3BV/s {st['bbbv_per_second']:.2f}, IOE {st['ioe']:.2f}, seed {state['seed'] or 'private'}, "
                     f"record {state['record_id']}.{best}  F2: new game")

    def tick(self) -> None:
        # the interval timer can fire once more while the app tears its screen down
        if self.pg is not None and self.timer_lcd.is_attached:
            self.timer_lcd.update(lcd(self.pg.game.timer))

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
        self.level = level
        self.new_game()

    def action_next_mode(self) -> None:
        names = [m for m in M.MODES if M.availability(m) is None]
        self.mode = names[(names.index(self.mode) + 1) % len(names)] if self.mode in names else names[0]
        self.new_game()

    def action_marks(self) -> None:
        self.marks = not self.marks
        self.new_game()
        self.say(f"Marks (?) {'on' if self.marks else 'off'}")

    def action_hint(self) -> None:
        if self.pg is None:
            return
        try:
            h = self.hub.hint(self.pg)
        except (ImportError, AttributeError):
            self.say("hints are not available yet: the solver (sweeplab.solver.hint) is not installed")
            return
        except SweeplabError as e:
            self.say(str(e))
            return
        cells = ", ".join(f"({x},{y})" for x, y in h["cells"][:6])
        self.say(f"Hint: {h['kind']} {cells}: {h['reason']} (this game no longer counts for best times)")

    def action_move(self, dx: int, dy: int) -> None:
        board = self.query_one(BoardView)
        if board.state is None:
            return
        x, y = board.cursor
        board.cursor = (max(0, min(board.state["width"] - 1, x + dx)), max(0, min(board.state["height"] - 1, y + dy)))

    def action_key_act(self, kind: str) -> None:
        self.act(kind, *self.query_one(BoardView).cursor)


def run_tui(db_path, **kw) -> None:
    store = Store(db_path)
    try:
        MinesweeperApp(store, **kw).run()
    finally:
        store.close()
