"""An independent renju judge for the tests: a plain reading of the rules on strings.

Written apart from `service.game.renju`: each line through a cell is read as a string
('X' black, 'O' white, '.' empty, '#' off the board) and the rules are asked of it by
trying stones, never by patterns of the engine's. Slow, and clear.
"""

from __future__ import annotations

from service.game.board import Board, Mark

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
REACH = 6  # a line is read this far each way: enough for a five's ends and an overline's


def line_through(grid: list[list[str]], row: int, col: int, direction: tuple[int, int]) -> str:
    """Return the line through (row, col) as 13 characters, the cell in the middle."""
    size_rows, size_cols = len(grid), len(grid[0])
    read = []
    for step in range(-REACH, REACH + 1):
        r, c = row + direction[0] * step, col + direction[1] * step
        read.append(grid[r][c] if 0 <= r < size_rows and 0 <= c < size_cols else "#")
    return "".join(read)


def run_length(line: str, at: int) -> int:
    """Return the length of the unbroken run of X through position `at`."""
    start = end = at
    while start > 0 and line[start - 1] == "X":
        start -= 1
    while end < len(line) - 1 and line[end + 1] == "X":
        end += 1
    return end - start + 1


def is_five(line: str, at: int) -> bool:
    return run_length(line, at) == 5


def put(line: str, at: int) -> str:
    return line[:at] + "X" + line[at + 1 :]


def fours_in_line(line: str) -> int:
    """The fours through the middle (an X), counted as distinct sets of four stones."""
    middle = REACH
    stone_sets = set()
    for at, char in enumerate(line):
        if char != ".":
            continue
        completed = put(line, at)
        if is_five(completed, middle) and is_five(completed, at):
            # the five's stones but the completing one
            start = at
            while start > 0 and completed[start - 1] == "X":
                start -= 1
            stones = frozenset(range(start, start + 5)) - {at}
            stone_sets.add(stones)
    return len(stone_sets)


def straight_four_in_line(line: str, middle: int) -> bool:
    """Whether the run through `middle` is four long and either end played makes five."""
    if run_length(line, middle) != 4:
        return False
    start = middle
    while line[start - 1] == "X":
        start -= 1
    ends = (start - 1, start + 4)
    return all(line[end] == "." and is_five(put(line, end), end) for end in ends)


def judge(grid: list[list[str]], row: int, col: int) -> str | None:
    """Return why black may not play (row, col), or None: 'overline', 'double_four',
    'double_three'. A five is never a foul."""
    grid[row][col] = "X"
    try:
        lines = [line_through(grid, row, col, direction) for direction in DIRECTIONS]
        if any(is_five(line, REACH) for line in lines):
            return None
        if any(run_length(line, REACH) > 5 for line in lines):
            return "overline"
        if sum(fours_in_line(line) for line in lines) > 1:
            return "double_four"
        threes = 0
        for direction, line in zip(DIRECTIONS, lines, strict=True):
            if makes_three(grid, row, col, direction, line):
                threes += 1
        return "double_three" if threes > 1 else None
    finally:
        grid[row][col] = "."


def makes_three(
    grid: list[list[str]], row: int, col: int, direction: tuple[int, int], line: str
) -> bool:
    """Whether one more stone on this line makes a straight four through the middle at a
    cell black may play (not a foul, not a five)."""
    for at, char in enumerate(line):
        if char != "." or abs(at - REACH) > 4:
            continue
        if not straight_four_in_line(put(line, at), REACH) or run_length(put(line, at), at) != 4:
            continue
        step = at - REACH
        r, c = row + direction[0] * step, col + direction[1] * step
        grid[r][c] = "X"
        makes_five = any(is_five(line_through(grid, r, c, other), REACH) for other in DIRECTIONS)
        grid[r][c] = "."
        if not makes_five and judge(grid, r, c) is None:
            return True
    return False


def reference_forbidden(board: Board) -> set[int]:
    """Every empty cell where black may not play, by this judge."""
    cols = board.rules.cols
    symbol = {None: ".", Mark.X: "X", Mark.O: "O"}
    grid = [
        [symbol[board.cells[row * cols + col]] for col in range(cols)]
        for row in range(board.rules.rows)
    ]
    return {cell for cell in board.empty_cells() if judge(grid, cell // cols, cell % cols)}
