"""The web page, driven in a real headless Chromium: complete games, hints, and the docs."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from flask import Flask
from playwright.sync_api import expect
from werkzeug.serving import make_server

from service.game.engine import Engine
from service.game.rules import FAMILY, Rules, Variant
from service.ops.composition import create_service
from service.ops.environment import Settings
from tests.helpers import FOURS_IN_SEVEN

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"
RESULT_WORDS = {"win": "You win", "loss": "You lose", "draw": "Draw"}
TURN_OR_END = re.compile(r"^(Your turn|You win|You lose|Draw)")


@pytest.fixture(scope="module")
def served(engine: Engine) -> Iterator[tuple[str, Flask]]:
    """Serve the app on a free loopback port for the browser."""
    app = create_service(Settings(access_log=False), engine=engine)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", app
    server.shutdown()
    thread.join()


class Page:
    """A browser page on the service, with every console error and outside request kept."""

    def __init__(self, page: Any, base_url: str) -> None:
        self.page = page
        self.base_url = base_url
        self.errors: list[str] = []
        self.outside_requests: list[str] = []
        page.on("console", self._keep_console_error)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", self._note_request)

    def _keep_console_error(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _note_request(self, request: Any) -> None:
        if not request.url.startswith((self.base_url, "data:")):
            self.outside_requests.append(request.url)

    def cells(self) -> list[str]:
        count = self.page.locator(".cell").count()
        return [
            self.page.inner_text(f".cell[data-cell='{index}']").strip() for index in range(count)
        ]

    def status(self) -> str:
        return str(self.page.inner_text("#status"))

    def wait_for_turn_or_end(self) -> None:
        # A locator assertion, not wait_for_function: the page's CSP forbids eval.
        expect(self.page.locator("#status")).to_have_text(TURN_OR_END)

    def over(self) -> bool:
        return self.status() in RESULT_WORDS.values()


@pytest.fixture
def page(browser: Any, served: tuple[str, Flask]) -> Iterator[Page]:
    base_url, _ = served
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    wrapped = Page(context.new_page(), base_url)
    yield wrapped
    context.close()
    assert wrapped.errors == [], "the page logged errors to the console"
    assert wrapped.outside_requests == [], "the page loaded something from outside the service"


def start_game(
    page: Page,
    *,
    mark: str,
    first: str,
    difficulty: str,
    seed: int | None = None,
    game: str = "",
) -> None:
    """Open the page (with `game`, the rules as in its address) and start with settings."""
    parameters = [part for part in (game, "" if seed is None else f"seed={seed}") if part]
    page.page.goto(page.base_url + "/" + ("?" + "&".join(parameters) if parameters else ""))
    page.page.check(f"input[name=mark][value={mark}]")
    page.page.check(f"input[name=first][value={first}]")
    page.page.select_option("select[name=difficulty]", difficulty)
    page.page.click("#new-game")
    page.wait_for_turn_or_end()


def expected_result(
    app: Flask, cells: list[str], you: str, rules: dict[str, object] | None = None
) -> tuple[str, set[int]]:
    """Ask the API itself how the final board stands; return the words and the line cells."""
    answer = app.test_client().post("/v1/move", json={"board": cells, "rules": rules}).get_json()
    assert answer["move"] is None, "the game on the page should be over"
    winner = answer["winner"]
    result = "draw" if winner is None else "win" if winner == you else "loss"
    return RESULT_WORDS[result], {cell for line in answer["winning_lines"] for cell in line}


def winning_cells(page: Page) -> set[int]:
    return {
        index
        for index in range(len(page.cells()))
        if "winning" in (page.page.get_attribute(f".cell[data-cell='{index}']", "class") or "")
    }


@pytest.mark.parametrize("mark", ["X", "O"])
@pytest.mark.parametrize("first", ["you", "computer"])
def test_a_complete_game_by_clicking_shows_the_apis_result(
    page: Page, served: tuple[str, Flask], mark: str, first: str
) -> None:
    """Play the lowest free cell every turn against perfect play, to the end."""
    _, app = served
    start_game(page, mark=mark, first=first, difficulty="perfect")
    while not page.over():
        free = [index for index, cell in enumerate(page.cells()) if cell == ""]
        page.page.click(f".cell[data-cell='{free[0]}']")
        page.wait_for_turn_or_end()
    words, line_cells = expected_result(app, page.cells(), mark)
    assert page.status() == words
    assert winning_cells(page) == line_cells
    assert words != "You win", "perfect play never loses"
    ARTIFACTS.mkdir(exist_ok=True)
    page.page.screenshot(path=str(ARTIFACTS / f"game-{mark}-{first}-starts.png"), full_page=True)


def follow_the_hints(page: Page) -> None:
    """Each turn, ask for hints and play the lowest cell with the best outcome."""
    while not page.over():
        page.page.click("#hint")
        page.page.wait_for_selector(".cell[data-hint]")
        hints = {
            index: page.page.get_attribute(f".cell[data-cell='{index}']", "data-hint")
            for index in range(len(page.cells()))
        }
        for outcome in ("win", "draw", "loss"):
            choices = [index for index, hint in hints.items() if hint == outcome]
            if choices:
                page.page.click(f".cell[data-cell='{choices[0]}']")
                break
        page.wait_for_turn_or_end()


def address_of(rules: Rules) -> str:
    """Return the page's address query naming a game of the family."""
    misere = "&misere=1" if rules.misere else ""
    variant = "" if rules.variant is Variant.FREESTYLE else f"&variant={rules.variant.value}"
    return f"rows={rules.rows}&cols={rules.cols}&k={rules.k}{misere}{variant}"


@pytest.mark.parametrize("rules", FAMILY, ids=Rules.describe)
def test_every_game_of_the_family_plays_to_the_apis_result(
    page: Page, served: tuple[str, Flask], rules: Rules
) -> None:
    """The rules from the address; the lowest free cell every turn against perfect play."""
    _, app = served
    start_game(page, mark="X", first="you", difficulty="perfect", game=address_of(rules))
    assert len(page.cells()) == rules.cell_count
    while not page.over():
        free = [index for index, cell in enumerate(page.cells()) if cell == ""]
        page.page.click(f".cell[data-cell='{free[0]}']")
        page.wait_for_turn_or_end()
    named: dict[str, object] = {
        "rows": rules.rows,
        "cols": rules.cols,
        "k": rules.k,
        "misere": rules.misere,
        "variant": rules.variant.value,
    }
    words, line_cells = expected_result(app, page.cells(), "X", named)
    assert page.status() == words
    assert winning_cells(page) == line_cells
    assert page.page.locator("#rules").inner_text() == rules.describe()
    if rules in SCREENSHOTS:
        ARTIFACTS.mkdir(exist_ok=True)
        page.page.screenshot(path=str(ARTIFACTS / f"game-{address_of(rules)}.png"), full_page=True)


#: A few of the games kept as pictures, to look at.
SCREENSHOTS = {Rules(4, 4, 3, misere=True), Rules(4, 4, 4), Rules(3, 4, 3), Rules(2, 2, 2, True)}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", Rules(3, 3, 3)),
        ("rows=4&cols=4", Rules(4, 4, 4)),
        ("rows=2&cols=2", Rules(2, 2, 2)),
        ("rows=4", Rules(4, 3, 3)),
        ("cols=2", Rules(3, 2, 2)),
        ("k=2", Rules(3, 3, 2)),
        ("rows=4&cols=4&k=3", Rules(4, 4, 3)),
        ("rows=2&cols=4&misere=1", Rules(2, 4, 2, misere=True)),
    ],
)
def test_a_link_without_a_field_gets_the_services_default_for_it(
    page: Page, query: str, expected: Rules
) -> None:
    """The page sends only what the link names; the service's defaults fill in the rest."""
    page.page.goto(page.base_url + "/" + (f"?{query}" if query else ""))
    page.wait_for_turn_or_end()
    assert page.status().startswith("Your turn")
    assert page.page.locator(".cell").count() == expected.cell_count
    expect(page.page.locator("#rules")).to_have_text(expected.describe())


def test_a_link_opens_a_given_game_with_its_settings(page: Page) -> None:
    page.page.goto(page.base_url + "/?rows=4&cols=4&k=4&misere=1&difficulty=perfect&mark=O")
    page.wait_for_turn_or_end()
    assert page.page.locator(".cell").count() == 16
    form = page.page.locator("#settings")
    assert [
        form.locator(f"select[name={name}]").input_value() for name in ("rows", "cols", "k")
    ] == [
        "4",
        "4",
        "4",
    ]
    assert form.locator("input[name=misere]").is_checked()
    assert form.locator("select[name=difficulty]").input_value() == "perfect"
    assert page.page.get_attribute(".cell[data-cell='15']", "aria-label") == (
        "Row 4, column 4: empty"
    )


def test_the_address_keeps_the_game_so_a_link_opens_it_again(
    page: Page, browser: Any, served: tuple[str, Flask]
) -> None:
    start_game(page, mark="O", first="computer", difficulty="perfect", game="rows=4&cols=4&k=3")
    page.page.click(".cell:enabled >> nth=0")
    page.wait_for_turn_or_end()
    cells = page.cells()
    played = [index for index, mark in enumerate(cells) if mark]
    address = page.page.url
    query = parse_qs(urlparse(address).query)
    moves = [int(cell) for cell in query["moves"][0].split(",")]
    assert sorted(moves) == played
    assert len(moves) == 3
    assert [cells[cell] for cell in moves] == ["X", "O", "X"]  # the computer, X, first
    assert (query["rows"], query["k"], query["mark"], query["first"]) == (
        ["4"],
        ["3"],
        ["O"],
        ["computer"],
    )
    again = Page(browser.new_context().new_page(), page.base_url)
    again.page.goto(address)
    again.wait_for_turn_or_end()
    assert again.cells() == cells
    assert again.status() == "Your turn (you play O)"
    expect(again.page.locator(".cell.last")).to_have_attribute("data-cell", str(moves[-1]))
    assert again.errors == []


def test_a_link_to_a_finished_game_shows_its_result(page: Page, served: tuple[str, Flask]) -> None:
    _, app = served
    page.page.goto(page.base_url + "/?mark=X&first=you&moves=0,3,1,4,2")
    expect(page.page.locator("#status")).to_have_text("You win")
    assert winning_cells(page) == {0, 1, 2}
    assert page.cells() == ["X", "X", "X", "O", "O", "", "", "", ""]
    assert expected_result(app, page.cells(), "X")[0] == "You win"


def test_a_link_that_ends_on_the_persons_move_gets_the_computers_answer(page: Page) -> None:
    page.page.goto(page.base_url + "/?mark=X&first=you&difficulty=perfect&moves=4")
    page.wait_for_turn_or_end()
    cells = page.cells()
    assert cells[4] == "X"
    assert cells.count("O") == 1
    answer = cells.index("O")
    assert parse_qs(urlparse(page.page.url).query)["moves"] == [f"4,{answer}"]
    assert page.status() == "Your turn (you play X)"


@pytest.mark.parametrize(
    ("query", "words"),
    [
        # The service judges the order: the game ended at move 7.
        ("moves=0,3,1,4,2,5,6", "Not a game: "),
        ("first=computer&moves=0,1,2,3,4,5,6,7,8", "Not a game: "),
        # A blank or anything but a cell number is no move (it was read as cell 0).
        ("moves=1,%20,2", "Not a game: "),
        ("moves=0x4", "Not a game: "),
        ("mark=O&first=you&moves=4,%20", "Not a game: "),
    ],
)
def test_a_link_that_is_no_game_says_so(page: Page, query: str, words: str) -> None:
    page.page.goto(page.base_url + "/?" + query)
    expect(page.page.locator("#status")).to_contain_text(words)
    assert page.page.locator(".cell:enabled").count() == 0
    if not query.startswith("moves=0"):
        assert page.cells()[0] == "", "no blank is read as cell 0"
    # The browser itself logs the refused request; nothing else may be logged.
    assert [error for error in page.errors if "status of 422" not in error] == []
    page.errors.clear()


def test_a_link_whose_moves_repeat_a_cell_is_refused(page: Page) -> None:
    page.page.goto(page.base_url + "/?moves=4,4")
    expect(page.page.locator("#status")).to_contain_text("Not a game: ")
    expect(page.page.locator("#status")).to_contain_text("4")
    assert page.page.locator(".cell:enabled").count() == 0
    assert [error for error in page.errors if "status of 422" not in error] == []
    page.errors.clear()


def test_a_game_the_family_lacks_is_refused_in_the_services_words(page: Page) -> None:
    page.page.goto(page.base_url + "/?rows=3&cols=3&k=4")
    expect(page.page.locator("#status")).to_have_text(
        "Not a game: k is 4, but on a 3x3 board a line is 1 to 3 cells long"
    )
    assert page.page.locator(".cell:enabled").count() == 0
    # The browser itself logs the refused request; nothing else may be logged.
    assert [error for error in page.errors if "status of 422" not in error] == []
    page.errors.clear()


def test_following_the_hints_beats_easy(page: Page, served: tuple[str, Flask]) -> None:
    """A newcomer can win: the hints are perfect play, and seed 1 makes easy's moves repeatable."""
    start_game(page, mark="X", first="you", difficulty="easy", seed=1)
    follow_the_hints(page)
    assert page.status() == "You win"
    ARTIFACTS.mkdir(exist_ok=True)
    page.page.screenshot(path=str(ARTIFACTS / "win-on-easy.png"), full_page=True)


def test_following_the_hints_never_loses_to_perfect_play(page: Page) -> None:
    start_game(page, mark="O", first="computer", difficulty="perfect")
    follow_the_hints(page)
    assert page.status() == "Draw"


def test_the_hint_shows_each_moves_outcome_from_the_analysis(
    page: Page, served: tuple[str, Flask]
) -> None:
    _, app = served
    start_game(page, mark="X", first="you", difficulty="perfect")
    page.page.click(".cell[data-cell='1']")
    page.wait_for_turn_or_end()
    page.page.click("#hint")
    page.page.wait_for_selector(".cell[data-hint]")
    analysis = app.test_client().post("/v1/analysis", json={"board": page.cells(), "player": "X"})
    expected = {ranked["move"]: ranked["outcome"] for ranked in analysis.get_json()["moves"]}
    shown = {
        index: page.page.get_attribute(f".cell[data-cell='{index}']", "data-hint")
        for index in range(9)
    }
    assert {index: hint for index, hint in shown.items() if hint} == expected
    assert f"hint: {expected[min(expected)]}" in (
        page.page.get_attribute(f".cell[data-cell='{min(expected)}']", "aria-label") or ""
    )


def test_every_cell_is_a_button_with_a_label(page: Page) -> None:
    start_game(page, mark="X", first="you", difficulty="perfect")
    buttons = page.page.get_by_role("button", name="Row")
    assert buttons.count() == 9
    assert page.page.get_attribute(".cell[data-cell='5']", "aria-label") == "Row 2, column 3: empty"
    page.page.click(".cell[data-cell='5']")
    page.wait_for_turn_or_end()
    assert page.page.get_attribute(".cell[data-cell='5']", "aria-label") == "Row 2, column 3: X"


def test_the_page_fits_a_phone(browser: Any, served: tuple[str, Flask]) -> None:
    base_url, _ = served
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    phone = Page(context.new_page(), base_url)
    phone.page.goto(base_url + "/")
    box = board_on_screen(phone, 360, "phone.png")
    context.close()
    assert box["width"] >= 250, "the board should use the phone's width"
    assert phone.errors == []


def board_on_screen(phone: Page, width: int, screenshot: str) -> dict[str, float]:
    """Save a screenshot; assert nothing scrolls sideways and the board fits; return its box."""
    box: dict[str, float] = phone.page.locator("#board").bounding_box()
    scroll_width = phone.page.evaluate("document.scrollingElement.scrollWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    phone.page.screenshot(path=str(ARTIFACTS / screenshot), full_page=True)
    assert scroll_width <= width
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= width
    return box


def test_the_interactive_docs_render_the_contract_from_the_service_alone(page: Page) -> None:
    page.page.goto(page.base_url + "/docs/")
    page.page.wait_for_selector("#operations-moves-postMove")
    assert "bestmove" in page.page.inner_text(".info")


def test_the_page_links_to_the_docs(page: Page) -> None:
    page.page.goto(page.base_url + "/")
    page.page.click("text=API docs")
    page.page.wait_for_selector("#swagger-ui")


# --- boards beyond the tables: searched, shown as such, on a phone ---


def test_gomoku_plays_by_its_address_and_says_the_move_was_searched(page: Page) -> None:
    page.page.goto(page.base_url + "/?rows=15&cols=15&k=5&difficulty=perfect&first=computer")
    page.wait_for_turn_or_end()
    expect(page.page.locator("#rules")).to_have_text("15x15, 5 in a row")
    assert page.page.locator(".cell").count() == 225
    cells = page.cells()
    assert cells.count("O") == 1  # the computer plays O, as the player keeps X
    assert cells.count("") == 224
    expect(page.page.locator("#engine")).to_have_text(
        re.compile(
            r"^Searched \d+ plies deep in \d+ ms \([\d,]+ positions\), not proven; "
            r"the computer's chance about \d+ %\.$"
        )
    )
    computer_move = cells.index("O")
    assert "last" in (page.page.get_attribute(f".cell[data-cell='{computer_move}']", "class") or "")
    page.page.click(f".cell[data-cell='{(computer_move + 1) % 225}']")
    page.wait_for_turn_or_end()
    assert page.cells().count("X") == 1
    assert page.cells().count("O") == 2


def test_a_proven_move_and_a_tables_move_say_so(page: Page) -> None:
    start_game(page, mark="X", first="computer", difficulty="perfect")
    expect(page.page.locator("#engine")).to_have_text("Exact: from the game's solved table.")
    start_game(page, mark="O", first="computer", difficulty="medium", game="rows=7&cols=7")
    expect(page.page.locator("#engine")).to_have_text("Chosen without a search (medium).")


def test_a_proven_search_says_what_it_proved(page: Page, served: tuple[str, Flask]) -> None:
    """A win whose length only a run of fours bounds is shown as a bound, not a count."""
    _, app = served
    body = {"board": FOURS_IN_SEVEN, "player": "X", "rules": {"rows": 6, "cols": 7}}
    proven = app.test_client().post("/v1/move", json=body).get_data(as_text=True)
    page.page.goto(page.base_url + "/?rows=6&cols=7&difficulty=perfect")
    page.wait_for_turn_or_end()
    # The service's own answer for that position, whatever the page asked.
    page.page.route(
        "**/v1/move",
        lambda route: route.fulfill(status=200, content_type="application/json", body=proven),
    )
    page.page.click(".cell[data-cell='0']")
    expect(page.page.locator("#engine")).to_have_text(
        "Proven (threats): the computer wins within 7 plies."
    )


@pytest.mark.parametrize(
    ("game", "rules", "evaluation", "shown"),
    [
        ("rows=15&cols=15", {"rows": 15, "cols": 15}, 0.3, "the computer's chance about 65 %"),
        ("rows=15&cols=15", {"rows": 15, "cols": 15}, -0.3, "the computer's chance about 35 %"),
        # An end the tree saw, or one the shapes decide: no chance, where the game goes.
        ("rows=15&cols=15", {"rows": 15, "cols": 15}, 0.99, "the computer sees a win ahead"),
        ("rows=15&cols=15", {"rows": 15, "cols": 15}, -0.98, "the computer sees a loss ahead"),
        ("rows=15&cols=15", {"rows": 15, "cols": 15}, 0.98, "the computer sees a win ahead"),
        ("rows=15&cols=15", {"rows": 15, "cols": 15}, 0.979, "the computer's chance about 99 %"),
        # Misère's evaluation is no chance of winning: left out.
        ("rows=7&cols=7&k=5&misere=1", {"rows": 7, "cols": 7, "k": 5, "misere": True}, 0.3, None),
    ],
)
def test_a_searched_move_shows_its_chance_where_the_evaluation_reads_as_one(
    page: Page,
    served: tuple[str, Flask],
    game: str,
    rules: dict[str, Any],
    evaluation: float,
    shown: str | None,
) -> None:
    _, app = served
    body = {"moves": [24], "rules": rules, "budget_ms": 50}
    answer = app.test_client().post("/v1/move", json=body).get_json()
    assert answer["search"]["method"] == "heuristic"
    answer["search"]["evaluation"] = evaluation  # the computer's, as the page reads it
    page.page.goto(page.base_url + f"/?{game}&difficulty=perfect")
    page.wait_for_turn_or_end()
    page.page.route(
        "**/v1/move",
        lambda route: route.fulfill(status=200, content_type="application/json", json=answer),
    )
    page.page.click(".cell[data-cell='0']")
    ending = "." if shown is None else f"; {shown}" + (", not proven." if "ahead" in shown else ".")
    searched = r"^Searched \d+ plies deep in \d+ ms \([\d,]+ positions\), not proven"
    expect(page.page.locator("#engine")).to_have_text(
        re.compile(searched + re.escape(ending) + "$")
    )


# --- Swap2, gomoku's opening rule ---


@pytest.mark.parametrize("side", ["X", "O"])
def test_swap2_the_computer_opens_and_the_player_takes_a_side(page: Page, side: str) -> None:
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2&difficulty=medium")
    expect(page.page.locator("#status")).to_have_text(re.compile("^Take a side"))
    opening = page.cells()
    assert (opening.count("X"), opening.count("O")) == (2, 1)
    assert page.page.locator(".cell:enabled").count() == 0  # no move before a side
    expect(page.page.locator("#hint")).to_be_disabled()
    page.page.click(f"#take-{side.lower()}")
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text(f"Your turn (you play {side})")
    expect(page.page.locator("#sides")).to_be_hidden()
    # O moves after the opening: the computer at once if the player took X.
    after = page.cells()
    assert (after.count("X"), after.count("O")) == ((2, 2) if side == "X" else (2, 1))
    # The game goes on as any other, and its address opens it again.
    query = parse_qs(urlparse(page.page.url).query)
    assert (query["mark"], query["first"]) == ([side], ["you" if side == "X" else "computer"])
    assert len(query["moves"][0].split(",")) == (4 if side == "X" else 3)
    page.page.goto(page.page.url)
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text(f"Your turn (you play {side})")
    assert page.cells() == after


def an_opening(stones: tuple[int, int, int], rules: dict[str, Any]) -> dict[str, Any]:
    """Return an answer to an opening request on 15x15 (`rules`, as the service answers
    them) that places `stones`: the service's own are a search's, so not known ahead."""
    board = [""] * 225
    for order, cell in enumerate(stones):
        board[cell] = "XO"[order % 2]
    return {
        "decision": "place",
        "stones": list(stones),
        "side": None,
        "board": board,
        "next_player": "O",
        "evaluation": 0.0,
        "rules": rules,
    }


@pytest.mark.parametrize(
    ("opening", "two", "decision", "you"),
    [
        # X's three in a row in the middle, O's two in corners: the computer takes X.
        ((112, 0, 113), (14, 111), "swap", "O"),
        # X's three in corners, O's two in the middle: it stays O and plays its stone.
        ((0, 112, 14), (113, 224), "move", "X"),
    ],
)
def test_swap2_the_player_places_two_more_and_the_computer_chooses(
    page: Page,
    served: tuple[str, Flask],
    opening: tuple[int, int, int],
    two: tuple[int, int],
    decision: str,
    you: str,
) -> None:
    """Swap2's third choice: the player places an O and an X, the computer takes a side."""
    _, app = served
    stones = (*opening, *two)
    answer = decided(app, stones)
    assert answer["decision"] == decision  # the service's own choice here
    answered: list[Any] = []

    def handle(route: Any) -> None:
        moves = route.request.post_data_json["moves"]
        answered.append(moves)
        route.fulfill(
            status=200,
            content_type="application/json",
            json=an_opening(opening, answer["rules"]) if moves == [] else answer,
        )

    page.page.route("**/v1/swap2", handle)
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2")
    expect(page.page.locator("#status")).to_have_text(re.compile("or place two more$"))
    page.page.click("#place-two")
    expect(page.page.locator("#sides")).to_be_hidden()
    expect(page.page.locator("#status")).to_have_text(re.compile("^Swap2: place an O"))
    expect(page.page.locator("#hint")).to_be_disabled()
    page.page.click(f".cell[data-cell='{two[0]}']")
    expect(page.page.locator("#status")).to_have_text(re.compile("^Swap2: now place an X"))
    page.page.click(f".cell[data-cell='{two[1]}']")
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text(f"Your turn (you play {you})")
    assert answered == [[], list(stones)]
    cells = page.cells()
    assert [cells[cell] for cell in stones] == ["X", "O", "X", "O", "X"]
    assert cells.count("O") == (2 if decision == "swap" else 3)
    # The computer's sixth stone, after a move, is its last; after a swap there is none.
    expect(page.page.locator(".cell.last")).to_have_count(len(answer["stones"]))
    # The game goes on as any other, and its address opens it again.
    query = parse_qs(urlparse(page.page.url).query)
    assert (query["mark"], query["first"]) == ([you], ["you" if you == "X" else "computer"])
    assert query["moves"] == [",".join(str(cell) for cell in [*stones, *answer["stones"]])]
    assert query["opening"] == ["5"]
    page.page.unroute("**/v1/swap2")
    page.page.goto(page.page.url)
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text(f"Your turn (you play {you})")
    assert page.cells() == cells
    # Reloaded, the player's fifth stone is still not outlined as the computer's move.
    expect(page.page.locator(".cell.last")).to_have_count(len(answer["stones"]))


def test_swap2_a_busy_service_takes_back_the_players_x_to_ask_again(
    page: Page, served: tuple[str, Flask]
) -> None:
    _, app = served
    busy = {"type": "about:blank", "title": "Busy", "status": 503, "code": "busy"}
    opening, two = (112, 0, 113), (14, 111)

    def handle(route: Any) -> None:
        if route.request.post_data_json["moves"] == []:
            rules = {"rows": 15, "cols": 15, "k": 5, "misere": False, "variant": "freestyle"}
            route.fulfill(
                status=200, content_type="application/json", json=an_opening(opening, rules)
            )
        else:
            route.fulfill(status=503, content_type="application/problem+json", json=busy)

    page.page.route("**/v1/swap2", handle)
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2")
    page.page.click("#place-two")
    for cell in two:
        page.page.click(f".cell[data-cell='{cell}']")
    expect(page.page.locator("#status")).to_have_text(
        re.compile("^Something went wrong: .*Place your X again$")
    )
    cells = page.cells()
    assert (cells[two[0]], cells[two[1]]) == ("O", "")  # the X taken back, the O kept
    page.page.unroute("**/v1/swap2")
    answered = answer_swap2_with(page, decided(app, (*opening, *two)))
    page.page.click(f".cell[data-cell='{two[1]}']")
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text("Your turn (you play O)")
    assert [request["moves"] for request in answered] == [[*opening, *two]]  # asked again
    assert [error for error in page.errors if "status of 503" not in error] == []
    page.errors.clear()


def decided(app: Flask, stones: tuple[int, ...]) -> dict[str, Any]:
    """Return the service's Swap2 decision on 15x15 after the opener's `stones`."""
    body = {"moves": stones, "rules": {"rows": 15, "cols": 15}}
    answer: dict[str, Any] = app.test_client().post("/v1/swap2", json=body).get_json()
    return answer


def answer_swap2_with(page: Page, answer: dict[str, Any]) -> list[Any]:
    """Answer the page's Swap2 decision with `answer`, the service's own; let its probe of
    whether Swap2 opens the game (one stone) through; return the requests answered."""
    answered: list[Any] = []

    def handle(route: Any) -> None:
        if len(route.request.post_data_json["moves"]) == 1:
            route.continue_()
            return
        answered.append(route.request.post_data_json)
        route.fulfill(status=200, content_type="application/json", json=answer)

    page.page.route("**/v1/swap2", handle)
    return answered


def forget_the_probes_refusal(page: Page) -> None:
    """The browser logs the refusal of the page's probe (one stone is no step of Swap2)."""
    assert [error for error in page.errors if "status of 422" not in error] == []
    page.errors.clear()


@pytest.mark.parametrize(
    ("stones", "decision", "you"),
    [
        # X's two stones side by side in the middle, O's in a corner: the computer swaps.
        ((112, 0, 113), "swap", "O"),
        # X's in two corners, O's in the middle: it plays O's stone.
        ((0, 112, 14), "move", "X"),
    ],
)
def test_swap2_the_player_opens_and_the_computer_chooses(
    page: Page, served: tuple[str, Flask], stones: tuple[int, ...], decision: str, you: str
) -> None:
    _, app = served
    answer = decided(app, stones)
    assert answer["decision"] == decision  # the service's own choice here
    answered = answer_swap2_with(page, answer)
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2-you")
    expect(page.page.locator("#status")).to_have_text("Swap2: place your opening's first X")
    expect(page.page.locator("#hint")).to_be_disabled()
    for cell in stones:
        page.page.click(f".cell[data-cell='{cell}']")
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text(f"Your turn (you play {you})")
    assert [request["moves"] for request in answered] == [list(stones)]
    cells = page.cells()
    assert [cells[cell] for cell in stones] == ["X", "O", "X"]
    assert cells.count("O") == (1 if decision == "swap" else 2)
    # The computer's stone, after a move, is its last; after a swap there is none, and a
    # reload of the address outlines none of the player's opening either.
    expect(page.page.locator(".cell.last")).to_have_count(len(answer["stones"]))
    assert parse_qs(urlparse(page.page.url).query)["opening"] == ["3"]
    page.page.goto(page.page.url)
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text(f"Your turn (you play {you})")
    assert page.cells() == cells
    expect(page.page.locator(".cell.last")).to_have_count(len(answer["stones"]))
    forget_the_probes_refusal(page)


def test_swap2_a_busy_service_leaves_the_opening_to_ask_again(
    page: Page, served: tuple[str, Flask]
) -> None:
    _, app = served
    busy = {"type": "about:blank", "title": "Busy", "status": 503, "code": "busy"}
    page.page.route(
        "**/v1/swap2",
        lambda route: (
            route.continue_()
            if len(route.request.post_data_json["moves"]) == 1
            else route.fulfill(status=503, content_type="application/problem+json", json=busy)
        ),
    )
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2-you")
    expect(page.page.locator("#status")).to_have_text("Swap2: place your opening's first X")
    for cell in (112, 0, 113):
        page.page.click(f".cell[data-cell='{cell}']")
    expect(page.page.locator("#status")).to_have_text(
        re.compile("^Something went wrong: .*Place your opening's second X again$")
    )
    assert page.cells().count("X") == 1  # the last stone taken back, the rest kept
    page.page.unroute("**/v1/swap2")
    answered = answer_swap2_with(page, decided(app, (112, 0, 113)))
    page.page.click(".cell[data-cell='113']")
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text("Your turn (you play O)")
    assert [request["moves"] for request in answered] == [[112, 0, 113]]  # asked again
    assert [
        error for error in page.errors if "status of 503" not in error and "422" not in error
    ] == []
    page.errors.clear()


def test_swap2_an_answer_after_a_new_game_is_not_applied_to_it(page: Page) -> None:
    held: list[Any] = []
    page.page.route("**/v1/swap2", lambda route: held.append(route))  # noqa: PLW0108 -- Playwright marks its handler, which a bound method refuses
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2")
    expect(page.page.locator("#status")).to_have_text("Thinking…")
    page.page.select_option("select[name=rows]", "3")
    page.page.select_option("select[name=cols]", "3")
    page.page.check("input[name=first][value=you]")
    page.page.click("#new-game")
    page.wait_for_turn_or_end()
    assert len(held) == 1
    with page.page.expect_response("**/v1/swap2"):
        held[0].continue_()  # the old game's opening arrives now
    page.page.wait_for_timeout(200)  # not a wait for the page: time for it to misapply it
    expect(page.page.locator("#status")).to_have_text("Your turn (you play X)")
    assert page.cells() == [""] * 9
    expect(page.page.locator("#sides")).to_be_hidden()
    expect(page.page.locator("#board")).not_to_have_class(re.compile(r"\bthinking\b"))


def test_a_linked_games_answer_after_a_new_game_is_not_applied_to_it(page: Page) -> None:
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.page.route("**/v1/analysis", hold_the_first)
    with page.page.expect_request("**/v1/analysis"):
        page.page.goto(page.base_url + "/?rows=15&cols=15&moves=112,113")
    page.page.select_option("select[name=rows]", "3")
    page.page.select_option("select[name=cols]", "3")
    page.page.click("#new-game")
    page.wait_for_turn_or_end()
    assert len(held) == 1  # the linked game's check, still on its way
    with page.page.expect_response("**/v1/analysis"):
        held[0].continue_()
    page.page.wait_for_timeout(200)  # not a wait for the page: time for it to misapply it
    expect(page.page.locator("#status")).to_have_text("Your turn (you play X)")
    assert page.cells() == [""] * 9
    assert "moves" not in parse_qs(urlparse(page.page.url).query)


def test_swap2_a_busy_service_says_how_to_try_again(page: Page) -> None:
    busy = {"type": "about:blank", "title": "Busy", "status": 503, "code": "busy"}
    page.page.route(
        "**/v1/swap2",
        lambda route: route.fulfill(status=503, content_type="application/problem+json", json=busy),
    )
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2")
    expect(page.page.locator("#status")).to_have_text(
        re.compile("^Something went wrong: .*Press New game to try again$")
    )
    expect(page.page.locator("#board")).not_to_have_class(re.compile(r"\bthinking\b"))
    assert [error for error in page.errors if "status of 503" not in error] == []
    page.errors.clear()


@pytest.mark.parametrize("first", ["swap2", "swap2-you"])
def test_swap2_on_a_game_it_is_not_for_says_why_before_a_stone(page: Page, first: str) -> None:
    page.page.goto(page.base_url + f"/?rows=3&cols=3&first={first}")
    expect(page.page.locator("#status")).to_have_text(re.compile("^Not a game: .*five in a row"))
    expect(page.page.locator("#sides")).to_be_hidden()
    assert page.cells() == [""] * 9
    assert page.page.locator(".cell:enabled").count() == 0
    # The browser logs the refusal it was shown; nothing else.
    forget_the_probes_refusal(page)


def test_a_link_to_a_game_swap2_opened_goes_on_from_its_moves(page: Page) -> None:
    """A link may still say first=swap2 with moves (not one the page writes): the moves
    are the game's, from X's."""
    page.page.goto(page.base_url + "/?rows=15&cols=15&first=swap2&mark=O&moves=112,97,82")
    page.wait_for_turn_or_end()
    expect(page.page.locator("#status")).to_have_text("Your turn (you play O)")
    cells = page.cells()
    assert [cells[112], cells[97], cells[82]] == ["X", "O", "X"]


def test_the_page_shows_the_computer_thinking(page: Page) -> None:
    """While the answer is on its way the board says it is busy, then stops saying so."""
    page.page.goto(page.base_url + "/?rows=9&cols=9&difficulty=perfect")
    page.wait_for_turn_or_end()
    held: list[Any] = []
    page.page.route("**/v1/move", lambda route: held.append(route))  # noqa: PLW0108 -- Playwright marks its handler, which a bound method refuses
    page.page.click(".cell[data-cell='40']")
    board = page.page.locator("#board")
    expect(board).to_have_class(re.compile(r"\bthinking\b"))
    expect(board).to_have_attribute("aria-busy", "true")
    expect(page.page.locator("#status")).to_have_text("Thinking…")
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_turn_or_end()
    expect(board).not_to_have_class(re.compile(r"\bthinking\b"))
    expect(board).to_have_attribute("aria-busy", "false")


@pytest.mark.parametrize(("side", "narrowest_cell"), [(15, 18), (20, 15)])
def test_gomoku_boards_up_to_20x20_fit_a_390_pixel_screen(
    browser: Any, served: tuple[str, Flask], side: int, narrowest_cell: int
) -> None:
    base_url, _ = served
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = Page(context.new_page(), base_url)
    phone.page.goto(base_url + f"/?rows={side}&cols={side}&difficulty=easy&seed=3")
    phone.wait_for_turn_or_end()
    phone.page.click(f".cell[data-cell='{side // 2 * side + side // 2}']")
    phone.wait_for_turn_or_end()
    board_on_screen(phone, 390, f"phone-{side}x{side}.png")
    corner = phone.page.locator(f".cell[data-cell='{side * side - 1}']").bounding_box()
    context.close()
    assert corner["x"] + corner["width"] <= 390
    assert corner["width"] >= narrowest_cell, "a cell must stay big enough to tap"
    assert abs(corner["width"] - corner["height"]) < 1, "cells stay square"
    assert phone.errors == []


#: A renju game, black (X) to move: black's twos in row 7 and column 7 cross at cell 112, a
#: double three there (tests/test_renju_play.py draws it).
RENJU_GAME = "rows=15&cols=15&variant=renju&difficulty=medium&seed=1&moves=110,0,111,2,82,4,97,6"


def test_renju_shows_black_its_forbidden_points_and_keeps_it_off_them(page: Page) -> None:
    page.page.goto(page.base_url + "/?mark=X&first=you&" + RENJU_GAME)
    page.wait_for_turn_or_end()
    expect(page.page.locator("#rules")).to_have_text("15x15, 5 in a row, renju")
    assert page.status() == "Your turn (you play X)"
    forbidden = page.page.locator(".cell.forbidden")
    expect(forbidden).to_have_count(1)
    expect(forbidden).to_have_attribute("data-cell", "112")
    expect(forbidden).to_be_disabled()
    assert "forbidden for black" in (forbidden.get_attribute("aria-label") or "")
    page.page.click(".cell[data-cell='113']")
    page.wait_for_turn_or_end()
    assert page.cells().count("X") == 5


def test_renju_shows_white_no_forbidden_points(page: Page) -> None:
    page.page.goto(page.base_url + "/?mark=O&first=computer&" + RENJU_GAME + ",113")
    page.wait_for_turn_or_end()
    expect(page.page.locator(".cell.forbidden")).to_have_count(0)


def test_a_renju_link_that_ends_on_blacks_foul_says_so(page: Page) -> None:
    page.page.goto(page.base_url + "/?mark=X&first=you&" + RENJU_GAME + ",112")
    expect(page.page.locator("#status")).to_have_text("You lose: black's double three is a foul")


def test_under_renju_black_moves_first_whoever_plays_it(page: Page) -> None:
    start_game(
        page, mark="O", first="you", difficulty="medium", game="rows=15&cols=15&variant=renju"
    )
    assert page.cells().count("X") == 1  # the computer, black, moved first
    assert parse_qs(urlparse(page.page.url).query)["first"] == ["computer"]


def test_a_link_with_settings_the_page_does_not_offer_keeps_its_defaults(page: Page) -> None:
    page.page.goto(page.base_url + "/?difficulty=impossible&seed=x7&rows=99&variant=go")
    page.wait_for_turn_or_end()
    query = parse_qs(urlparse(page.page.url).query)
    assert (query["difficulty"], query["rows"]) == (["medium"], ["3"])
    assert "seed" not in query
    assert "variant" not in query  # freestyle, the default
