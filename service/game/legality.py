"""Which boards can arise in a real game, and whose turn it is on them.

A board is legal iff it can arise from the empty board by alternating moves, with either
player starting, where play stops at the first completed line or when the board is full.
"""

from __future__ import annotations

from itertools import combinations

from service.game.board import Board, Mark
from service.game.refusals import Reason, Refusal
from service.game.rules import Line, Rules

NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


class Illegality(Reason):
    """A reason why a board, or the player asked to move on it, cannot occur in a game."""

    PLAY_AFTER_WIN = "play_after_win"
    BOTH_PLAYERS_WON = "both_players_won"
    MARK_COUNT_GAP = "mark_count_gap"
    WINNER_NOT_LAST_TO_MOVE = "winner_not_last_to_move"
    WRONG_PLAYER = "wrong_player"
    #: Under misère whoever completes a line loses: the same rules, named for the loser.
    BOTH_PLAYERS_LOST = "both_players_lost"
    LOSER_NOT_LAST_TO_MOVE = "loser_not_last_to_move"
    #: Under renju, X is black and always moves first.
    BLACK_MOVES_FIRST = "black_moves_first"


class IllegalPosition(Refusal):
    """Raised for a board, or a player to move, that no game can produce."""

    def __init__(self, reason: Illegality, detail: str, *, about_player: bool = False) -> None:
        super().__init__(reason, detail)
        self.reason: Illegality = reason
        self.about_player = about_player


def check_board(board: Board) -> None:
    """Raise IllegalPosition, saying why, unless the board can arise in a game."""
    x_count, o_count = board.count(Mark.X), board.count(Mark.O)
    held = {mark: board.lines_of(mark) for mark in Mark}
    # A player's two lines can only be completed by one last move if they share its cell;
    # two separate lines mean the game went on after it was won. Checked first because
    # such a board also breaks the count rule, and this is the more useful reason.
    for mark in Mark:
        for first, second in combinations(held[mark], 2):
            if not set(first) & set(second):
                raise IllegalPosition(
                    Illegality.PLAY_AFTER_WIN,
                    f"{mark.value} has two separate lines, {list(first)} and {list(second)}: "
                    "play went on after the game was won",
                )
    # The game stops at the first completed line, so only one player can have one.
    if held[Mark.X] and held[Mark.O]:
        both = Illegality.BOTH_PLAYERS_LOST if board.rules.misere else Illegality.BOTH_PLAYERS_WON
        raise IllegalPosition(
            both,
            f"both X and O have {_in_a_row(board.rules)}, but the game stops at the first one",
        )
    # Players alternate, so the counts never differ by more than one.
    if abs(x_count - o_count) >= 2:
        more, fewer = (Mark.X, Mark.O) if x_count > o_count else (Mark.O, Mark.X)
        raise IllegalPosition(
            Illegality.MARK_COUNT_GAP,
            f"{more.value} has {_marks(board.count(more))} and {fewer.value} has "
            f"{board.count(fewer)}: players alternate, so the counts differ by at most one",
        )
    # The last move is in every line it completed: lines that meet pairwise, but not all in
    # one cell, took more than one move. (Only longer lines on larger boards get here.)
    for mark in Mark:
        lines = held[mark]
        if lines and not set.intersection(*(set(line) for line in lines)):
            raise IllegalPosition(
                Illegality.PLAY_AFTER_WIN,
                f"{mark.value}'s lines {', '.join(str(list(line)) for line in lines)} share no "
                "cell, so no single last move completed them: play went on after the game "
                "was won",
            )
    if board.rules.variant.has_fouls:
        _check_renju(board, held)
    # Whoever completed a line made the last move, so cannot have fewer marks than the other.
    for mark in Mark:
        if held[mark] and board.count(mark) < board.count(mark.opponent):
            raise IllegalPosition(
                Illegality.LOSER_NOT_LAST_TO_MOVE
                if board.rules.misere
                else Illegality.WINNER_NOT_LAST_TO_MOVE,
                f"{mark.value} has {_in_a_row(board.rules)} but fewer marks than "
                f"{mark.opponent.value}, so {mark.value} cannot have made the last move",
            )


def _check_renju(board: Board, held: dict[Mark, tuple[Line, ...]]) -> None:
    """Raise IllegalPosition for what renju adds: white moving first, and play after black's
    overline (a foul, which ends the game unless the same move made a five)."""
    if board.count(Mark.O) > board.count(Mark.X):
        raise IllegalPosition(
            Illegality.BLACK_MOVES_FIRST,
            f"O has {_marks(board.count(Mark.O))} and X has {board.count(Mark.X)}, but under "
            "renju X is black and moves first",
        )
    x_count, o_count = board.count(Mark.X), board.count(Mark.O)
    if held[Mark.O] and x_count > o_count:
        raise IllegalPosition(
            Illegality.PLAY_AFTER_WIN,
            f"O has five in a row, but X has more marks ({x_count} to {o_count}): under "
            "renju black moves first, so X played after O had won",
        )
    overlines = board.overlines()
    if overlines and held[Mark.O]:
        raise IllegalPosition(
            Illegality.BOTH_PLAYERS_WON,
            "X has an overline, a foul that lost black the game, and O has five in a row, "
            "but the game stops at the first",
        )
    if overlines and not set.intersection(*(set(line) for line in (*held[Mark.X], *overlines))):
        raise IllegalPosition(
            Illegality.PLAY_AFTER_WIN,
            "X's overline shares no cell with its other lines, so no single last move made "
            "them: play went on after black's foul ended the game",
        )
    if (overlines or held[Mark.X]) and x_count == o_count:
        made = "an overline, a foul that ended the game," if not held[Mark.X] else "five"
        raise IllegalPosition(
            Illegality.PLAY_AFTER_WIN,
            f"X has {made} but O has as many marks ({o_count}): under renju black moves "
            "first, so O played after the game ended",
        )


def side_to_move(board: Board, requested: Mark | None = None) -> Mark:
    """Return who moves on a legal board: the side with fewer marks, else `requested` or X
    (under renju, X: black moves first).

    Raise IllegalPosition when `requested` is not the side with fewer marks.
    """
    x_count, o_count = board.count(Mark.X), board.count(Mark.O)
    if x_count == o_count and board.rules.variant.has_fouls and requested is Mark.O:
        raise IllegalPosition(
            Illegality.WRONG_PLAYER,
            f"O cannot move: both have {_marks(x_count)}, and under renju X is black and "
            "moves first, so it is X's turn",
            about_player=True,
        )
    if x_count == o_count:
        return requested or Mark.X
    fewer = Mark.X if x_count < o_count else Mark.O
    if requested is not None and requested is not fewer:
        raise IllegalPosition(
            Illegality.WRONG_PLAYER,
            f"{requested.value} cannot move: {requested.value} has "
            f"{_marks(board.count(requested))} and {fewer.value} has {board.count(fewer)}, "
            f"so it is {fewer.value}'s turn",
            about_player=True,
        )
    return fewer


def _marks(count: int) -> str:
    return f"{count} mark" if count == 1 else f"{count} marks"


def _in_a_row(rules: Rules) -> str:
    return f"{NUMBER_WORDS.get(rules.k, rules.k)} in a row"
