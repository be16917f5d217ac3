// The bestmove web page. It knows no rules of the game: it sends the board to the API
// and shows what the API answers (the move, the status, the winner, the winning lines).
"use strict";

const RESULT_WORDS = { win: "You win", loss: "You lose", draw: "Draw" };

const page = {
  board: document.getElementById("board"),
  cells: [],
  status: document.getElementById("status"),
  hint: document.getElementById("hint"),
  settings: document.getElementById("settings"),
  rules: document.getElementById("rules"),
  engine: document.getElementById("engine"),
  sides: document.getElementById("sides"),
};

// The page's address can name a game and its settings, so that a link opens it:
// /?rows=4&cols=4&k=4&misere=1&difficulty=perfect&mark=O&first=computer&seed=7
// (or variant=standard, variant=caro, variant=renju instead of misere)
// (a seed makes the computer's random choices repeatable; first=swap2 or first=swap2-you
// opens by Swap2, after which the address names the sides and &opening=3 or 5 how many of
// the moves its opening placed), and the game so far as its moves, cells in the order
// played from the first mover's mark: &moves=4,0,8. The page keeps its address up to date
// as the game goes, so that copying it shares the game.
const address = new URLSearchParams(window.location.search);
// Only cell numbers: anything else (a blank, "0x4", "1.5") is no cell, and the link no game.
const linkedMoves = address.has("moves")
  ? address.get("moves").split(",").map((part) => (/^[0-9]+$/.test(part) ? Number(part) : NaN))
  : [];
// A Swap2 opening leaves three stones or five.
const linkedOpening = /^[35]$/.test(address.get("opening") ?? "") ? Number(address.get("opening")) : 0;
// A seed is a whole number; anything else in the address is no seed.
const seed = /^[0-9]+$/.test(address.get("seed") ?? "") ? Number(address.get("seed")) : null;
for (const name of ["rows", "cols", "k", "difficulty", "variant"]) {
  const field = page.settings.elements[name];
  // A value the list does not offer leaves the field as it was, not empty.
  const offered = [...field.options].some((option) => option.value === address.get(name));
  if (address.has(name) && offered) field.value = address.get(name);
}
for (const name of ["mark", "first"]) {
  if (address.has(name)) page.settings.elements[name].value = address.get(name);
}
if (address.has("misere")) {
  page.settings.elements.misere.checked = ["1", "true"].includes(address.get("misere"));
}

const game = {
  cells: [],
  // What the page sends: only what the player chose. The service fills in the rest with
  // its own defaults (k: the shorter side) and answers the whole rules, which are shown.
  rules: { rows: 3, cols: 3, misere: false, variant: "freestyle" },
  you: "X",
  computer: "O",
  first: "you",
  moves: [],
  difficulty: "medium",
  yourTurn: false,
  over: false,
  winningCells: new Set(),
  hints: new Map(),
  lastMove: null,
  // Under renju, the cells the service says black may not play, when black is to move.
  forbidden: new Set(),
  // Swap2's opening, while it lasts: who places stones ("computer": its three; "you": your
  // three; "two": your two more after the computer's three, its third choice).
  opening: null,
  // The stones a finished Swap2 opening placed (3 or 5; 0 without one): never outlined as
  // the computer's last move, which the opening's last stone may not be.
  openingStones: 0,
  // Which game this is: an answer to an earlier game's request is not applied to it.
  id: 0,
};

// The position as the service takes it. Under renju, the moves in order: whether black's
// last move was a foul depends on which stone came last, which a board does not show.
function position(player) {
  if (game.rules.variant === "renju") return { moves: game.moves, rules: game.rules };
  return { board: game.cells, rules: game.rules, player };
}

async function ask(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  // An answer that is no JSON (a proxy's page) still fails with its status.
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(answer.detail || `the service answered ${response.status}`);
    error.status = response.status;
    error.code = answer.code;
    throw error;
  }
  return answer;
}

function describe(index) {
  const row = Math.floor(index / game.rules.cols) + 1;
  const column = (index % game.rules.cols) + 1;
  const mark = game.cells[index] || "empty";
  const hint = game.hints.get(index);
  const forbidden = game.forbidden.has(index) ? ", forbidden for black" : "";
  return `Row ${row}, column ${column}: ${mark}${forbidden}${hint ? `, hint: ${hint}` : ""}`;
}

function render() {
  page.cells.forEach((cell, index) => {
    cell.textContent = game.cells[index];
    const forbidden = game.yourTurn && game.forbidden.has(index);
    cell.disabled = game.over || !game.yourTurn || game.cells[index] !== "" || forbidden;
    cell.classList.toggle("forbidden", forbidden);
    cell.classList.toggle("winning", game.winningCells.has(index));
    cell.classList.toggle("last", index === game.lastMove);
    if (game.hints.has(index)) {
      cell.dataset.hint = game.hints.get(index);
    } else {
      delete cell.dataset.hint;
    }
    cell.setAttribute("aria-label", describe(index));
  });
  page.hint.disabled = game.over || !game.yourTurn || game.opening !== null;
}

function say(words) {
  page.status.textContent = words;
}

function thinking(on) {
  // Searches beyond 4x4 take up to their budget: show that the computer is at work.
  page.board.classList.toggle("thinking", on);
  page.board.setAttribute("aria-busy", String(on));
}

function showEngine(answer) {
  // What the service knows of its move: exact from a table, proven by a search, or searched.
  if (!("search" in answer)) {
    page.engine.textContent = "Exact: from the game's solved table.";
  } else if (answer.search === null) {
    page.engine.textContent = `Chosen without a search (${answer.difficulty}).`;
  } else if (answer.search.proven && answer.search.wins_within_plies !== null) {
    // A run of fours bounds the win's length; a faster win may exist.
    page.engine.textContent =
      `Proven (${answer.search.method}): the computer wins` +
      ` within ${answer.search.wins_within_plies} plies.`;
  } else if (answer.search.proven) {
    page.engine.textContent =
      `Proven (${answer.search.method}): the computer's ${answer.outcome}` +
      ` in ${answer.plies_to_end} plies.`;
  } else {
    const { depth, nodes, time_ms: time, evaluation } = answer.search;
    page.engine.textContent =
      `Searched ${depth} plies deep in ${Math.round(time)} ms ` +
      `(${nodes.toLocaleString("en")} positions), not proven` +
      (calibrated(answer.rules) ? `; ${outlook(evaluation)}.` : ".");
  }
}

function calibrated(rules) {
  // Where the evaluation reads as a chance of winning (docs/API.md): five in a row on a
  // board of more than 16 cells, not misère.
  return rules.k === 5 && !rules.misere && rules.rows * rules.cols > 16;
}

function outlook(evaluation) {
  // Below 0.98 an evaluation e reads as a chance of (1 + e) / 2, here in whole percent; at
  // 0.98 (the shapes decide) or 0.99 (an end the search saw), as where the game goes.
  if (Math.abs(evaluation) >= 0.98) {
    return `the computer sees a ${evaluation > 0 ? "win" : "loss"} ahead, not proven`;
  }
  return `the computer's chance about ${Math.round(((1 + evaluation) / 2) * 100)} %`;
}

function showRules(rules) {
  // The rules as the service normalised them, e.g. "4x4, 4 in a row, misère" or
  // "15x15, exactly 5 in a row, caro" or "15x15, 5 in a row, renju".
  const kind = rules.misere ? ", misère" : "";
  const exactly = ["standard", "caro"].includes(rules.variant) ? "exactly " : "";
  const variant = ["caro", "renju"].includes(rules.variant) ? `, ${rules.variant}` : "";
  page.rules.textContent =
    `${rules.rows}x${rules.cols}, ${exactly}${rules.k} in a row${variant}${kind}`;
}

function keepInAddress() {
  // The game's settings and its moves, so that a copied address opens the same game.
  const kept = new URLSearchParams({
    rows: String(game.rules.rows),
    cols: String(game.rules.cols),
  });
  if (game.rules.k !== undefined) kept.set("k", String(game.rules.k));
  if (game.rules.misere) kept.set("misere", "1");
  if (game.rules.variant !== "freestyle") kept.set("variant", game.rules.variant);
  kept.set("difficulty", game.difficulty);
  kept.set("mark", game.you);
  kept.set("first", game.first);
  if (seed !== null) kept.set("seed", String(seed));
  if (game.openingStones > 0) kept.set("opening", String(game.openingStones));
  if (game.moves.length > 0) kept.set("moves", game.moves.join(","));
  window.history.replaceState(null, "", `?${kept}`);
}

function finish(answer) {
  game.over = true;
  game.yourTurn = false;
  game.winningCells = new Set(answer.winning_lines.flat());
  game.forbidden = new Set();
  const result = answer.winner === null ? "draw" : answer.winner === game.you ? "win" : "loss";
  page.board.dataset.result = result;
  // Under renju, a game can end on black's foul: say which.
  const foul = answer.foul ? `: black's ${answer.foul.foul.replace("_", " ")} is a foul` : "";
  say(`${RESULT_WORDS[result]}${foul}`);
}

function forbidYou(cells) {
  // Renju: the service lists black's forbidden cells when black is to move; shown to a
  // person playing black, and not playable.
  game.forbidden = new Set(game.you === "X" ? cells ?? [] : []);
}

async function computerMove() {
  const id = game.id;
  game.yourTurn = false;
  game.hints.clear();
  render();
  say("Thinking…");
  thinking(true);
  game.forbidden = new Set();
  const request = { ...position(game.computer), difficulty: game.difficulty };
  if (seed !== null) request.seed = seed;
  try {
    const answer = await ask("/v1/move", request);
    if (id !== game.id) return; // a new game began meanwhile
    showRules(answer.rules);
    showEngine(answer);
    game.cells = answer.board;
    game.lastMove = answer.move;
    if (answer.move !== null) game.moves.push(answer.move);
    forbidYou(answer.forbidden_after);
    keepInAddress();
    if (answer.next_player === null) {
      finish(answer);
    } else {
      game.yourTurn = true;
      say(`Your turn (you play ${game.you})`);
    }
  } catch (error) {
    if (id !== game.id) return;
    say(`Something went wrong: ${error.message}`);
  }
  thinking(false);
  render();
}

function play(index) {
  if (!game.yourTurn || game.over || game.cells[index] !== "") return;
  if (game.opening === "you" || game.opening === "two") {
    placeOpening(index);
    return;
  }
  game.cells[index] = game.you;
  game.moves.push(index);
  keepInAddress();
  // The service says whether that move ended the game, and if not, answers it.
  computerMove();
}

// Swap2, gomoku's opening rule: the opener places X, O and X; the other player takes a
// side (or, if it is the computer, plays O's stone), or places two more, O and X, and the
// opener chooses. The service decides the computer's part (/v1/swap2), and refuses a game
// Swap2 is not for, with its reason.

function opened(sent, answer) {
  game.cells = answer.board;
  game.moves = [...sent, ...answer.stones];
  showRules(answer.rules);
}

function notAGame(error) {
  // The service refuses a game (422), which no retry mends; anything else (busy, a lost
  // connection) may pass, and a new game tries again.
  game.over = true;
  render();
  if (error.status === 422) {
    say(`Not a game: ${error.message}`);
  } else {
    say(`Something went wrong: ${error.message}. Press New game to try again`);
  }
}

async function computerOpens() {
  const id = game.id;
  say("Thinking…");
  thinking(true);
  try {
    const answer = await ask("/v1/swap2", { moves: [], rules: game.rules });
    if (id !== game.id) return; // a new game began meanwhile
    opened([], answer);
    page.engine.textContent = "Swap2: the computer placed an opening of X, O and X.";
    page.sides.hidden = false;
    say("Take a side (X, black, moves next but one; O, white, next), or place two more");
    page.sides.querySelector("button").focus();
  } catch (error) {
    if (id !== game.id) return;
    notAGame(error);
  }
  thinking(false);
  render();
}

function takeSide(mark) {
  page.sides.hidden = true;
  game.openingStones = game.moves.length;
  startAs(mark);
  if (game.computer === "O") {
    computerMove();
  } else {
    yourTurn([]);
  }
}

function placeTwo() {
  // Swap2's third choice: two more stones, O then X, and the computer chooses a side.
  page.sides.hidden = true;
  game.opening = "two";
  game.yourTurn = true;
  say("Swap2: place an O, then an X; the computer then chooses a side");
  render();
  // The pressed button is hidden: the focus goes to the board.
  page.cells.find((cell) => !cell.disabled)?.focus();
}

function placeOpening(index) {
  // The opener's three stones, X, O and X; or the other player's two more, O and X.
  game.cells[index] = game.moves.length % 2 === 0 ? "X" : "O";
  game.moves.push(index);
  render();
  if (game.moves.length === 4) {
    say("Swap2: now place an X; the computer then chooses a side");
    return;
  }
  if (game.moves.length < 3) {
    say(`Swap2: place your opening's ${game.moves.length === 1 ? "O" : "second X"}`);
    return;
  }
  computerDecides();
}

async function computerDecides() {
  const id = game.id;
  const sent = [...game.moves];
  game.yourTurn = false;
  render();
  say("Thinking…");
  thinking(true);
  try {
    const answer = await ask("/v1/swap2", { moves: sent, rules: game.rules });
    if (id !== game.id) return; // a new game began meanwhile
    opened(sent, answer);
    game.openingStones = sent.length;
    // A swap: the computer takes X (black), O is to move. A move: it plays O's stone (the
    // fourth after three, the sixth after five).
    startAs(answer.decision === "swap" ? "O" : "X");
    game.lastMove = answer.decision === "move" ? answer.stones[0] : null;
    page.engine.textContent =
      answer.decision === "swap"
        ? "Swap2: the computer takes X (black); its search gives O the worse side."
        : "Swap2: the computer plays O (white); its search finds O not worse.";
    await yourTurn([]);
    if (id !== game.id) return;
  } catch (error) {
    if (id !== game.id) return;
    if (error.status === 422) {
      notAGame(error);
    } else {
      // The stones stay but for the last: placing it again asks again.
      game.cells[sent[sent.length - 1]] = "";
      game.moves = sent.slice(0, -1);
      game.yourTurn = true;
      const again = sent.length === 3 ? "your opening's second X" : "your X";
      say(`Something went wrong: ${error.message}. Place ${again} again`);
    }
  }
  thinking(false);
  render();
}

function startAs(mark) {
  // After the opening the game goes on as any other: X moved first.
  game.opening = null;
  game.you = mark;
  game.computer = mark === "X" ? "O" : "X";
  game.first = mark === "X" ? "you" : "computer";
  keepInAddress();
}

async function yourTurn(forbidden) {
  // Under renju black is told its forbidden cells; a position after Swap2's stones is
  // asked for them.
  const id = game.id;
  if (game.you === "X" && game.rules.variant === "renju") {
    try {
      forbidden = (await ask("/v1/analysis", position(game.you))).forbidden;
    } catch (error) {
      if (id !== game.id) return;
      forbidden = []; // the service still refuses a forbidden cell, and says why
    }
    if (id !== game.id) return;
  }
  forbidYou(forbidden);
  game.yourTurn = true;
  say(`Your turn (you play ${game.you})`);
  render();
}

async function showHints() {
  const id = game.id;
  try {
    const analysis = await ask("/v1/analysis", position(game.you));
    if (id !== game.id) return;
    // An outcome when it is known; beyond 4x4 unproven moves show the search's estimate.
    game.hints = new Map(
      analysis.moves.map((ranked) => [
        ranked.move,
        ranked.outcome ?? `${ranked.evaluation >= 0 ? "+" : ""}${ranked.evaluation.toFixed(2)}`,
      ]),
    );
    render();
  } catch (error) {
    if (id !== game.id) return;
    say(`Something went wrong: ${error.message}`);
  }
}

function drawBoard() {
  // One button a cell, in rows of the game's width; the service says what each holds.
  page.board.replaceChildren();
  page.board.style.gridTemplateColumns = `repeat(${game.rules.cols}, 1fr)`;
  page.board.style.setProperty("--cols", String(game.rules.cols));
  page.board.classList.toggle("wide", game.rules.cols > 4);
  page.board.dataset.cols = String(game.rules.cols);
  page.cells = game.cells.map((_, index) => {
    const cell = document.createElement("button");
    cell.type = "button";
    cell.className = "cell";
    cell.dataset.cell = String(index);
    cell.addEventListener("click", () => play(index));
    page.board.append(cell);
    return cell;
  });
}

async function resume(moves) {
  // A linked game: its moves alternate from the first mover's mark (notation, not a rule:
  // the service judges the position); then the computer moves, or it is the person's turn,
  // or the service says how the game ended.
  const id = game.id;
  const [firstMark, secondMark] =
    game.first === "computer" ? [game.computer, game.you] : [game.you, game.computer];
  // The service judges the order too (a move after the end, a cell taken twice), which a
  // board cannot show. Its move lists start with X; the rules are the same for either mark,
  // so a list that O starts is judged as it stands.
  try {
    await ask("/v1/analysis", { moves, rules: game.rules });
  } catch (error) {
    if (id !== game.id) return; // a new game began meanwhile
    notAGame(error);
    return;
  }
  if (id !== game.id) return;
  for (const [order, cell] of moves.entries()) {
    if (!Number.isInteger(cell) || game.cells[cell] !== "") {
      game.over = true;
      render();
      say(`Not a game: move ${order + 1} of the link is not a free cell`);
      return;
    }
    game.cells[cell] = order % 2 === 0 ? firstMark : secondMark;
  }
  game.moves = [...moves];
  const lastMark = moves.length % 2 === 1 ? firstMark : secondMark;
  const opening = moves.length <= game.openingStones; // its last stone may be yours
  game.lastMove = lastMark === game.computer && !opening ? moves[moves.length - 1] : null;
  keepInAddress();
  if (lastMark === game.you) {
    computerMove();
    return;
  }
  try {
    const analysis = await ask("/v1/analysis", position(game.you));
    if (id !== game.id) return;
    showRules(analysis.rules);
    if (analysis.status !== "in_progress") {
      // Over: the move endpoint names the winner and the lines of a finished board.
      const over = await ask("/v1/move", position(game.you));
      if (id !== game.id) return;
      finish(over);
      render();
      return;
    }
    forbidYou(analysis.forbidden);
  } catch (error) {
    if (id !== game.id) return;
    notAGame(error);
    return;
  }
  game.yourTurn = true;
  say(`Your turn (you play ${game.you})`);
  render();
}

async function newGame(event) {
  if (event) event.preventDefault();
  game.id += 1;
  const id = game.id;
  thinking(false);
  const settings = new FormData(page.settings);
  game.you = settings.get("mark");
  game.first = settings.get("first");
  game.computer = game.you === "X" ? "O" : "X";
  // Under renju X is black and moves first, whoever plays it.
  // A linked game's opening is over: its moves go on from X's, as the address's mark says.
  if (game.first.startsWith("swap2") && !event && linkedMoves.length > 0) {
    game.first = game.you === "X" ? "you" : "computer";
  }
  // (Swap2 settles the sides after its opening.)
  if (settings.get("variant") === "renju" && !game.first.startsWith("swap2")) {
    game.first = game.you === "X" ? "you" : "computer";
  }
  game.difficulty = settings.get("difficulty");
  game.rules = {
    rows: Number(settings.get("rows")),
    cols: Number(settings.get("cols")),
    misere: settings.get("misere") === "1",
    variant: settings.get("variant"),
  };
  if (settings.get("k") !== "") game.rules.k = Number(settings.get("k"));
  game.cells = Array(game.rules.rows * game.rules.cols).fill("");
  game.over = false;
  game.yourTurn = false;
  game.winningCells = new Set();
  game.hints.clear();
  game.forbidden = new Set();
  game.lastMove = null;
  game.moves = [];
  game.opening = null;
  game.openingStones = !event && linkedMoves.length > 0 ? linkedOpening : 0;
  page.sides.hidden = true;
  delete page.board.dataset.result;
  page.rules.textContent = "";
  page.engine.textContent = "";
  drawBoard();
  render();
  keepInAddress();
  // Only the page's first game comes from the link's moves; "New game" starts afresh.
  if (!event && linkedMoves.length > 0) {
    resume(linkedMoves);
    return;
  }
  if (game.first === "swap2") {
    game.opening = "computer";
    computerOpens();
    return;
  }
  if (game.first === "computer") {
    computerMove();
    return;
  }
  // The service, not the page, knows which games exist: it says so for a line too long.
  try {
    const analysis = await ask("/v1/analysis", position(game.you));
    if (id !== game.id) return;
    showRules(analysis.rules);
    forbidYou(analysis.forbidden);
    if (game.first === "swap2-you") await swap2Opens();
  } catch (error) {
    if (id !== game.id) return;
    notAGame(error);
    return;
  }
  if (id !== game.id) return;
  game.yourTurn = true;
  if (game.first === "swap2-you") {
    game.opening = "you";
    say("Swap2: place your opening's first X");
  } else {
    say(`Your turn (you play ${game.you})`);
  }
  render();
}

async function swap2Opens() {
  // Whether Swap2 opens this game, asked before the player's first stone: one stone is no
  // step of Swap2, so the service answers swap2_stones for a game Swap2 opens, and
  // swap2_rules (the reason) for any other.
  try {
    await ask("/v1/swap2", { moves: [0], rules: game.rules });
  } catch (error) {
    if (error.code !== "swap2_stones") throw error;
  }
}

page.hint.addEventListener("click", showHints);
document.getElementById("take-x").addEventListener("click", () => takeSide("X"));
document.getElementById("take-o").addEventListener("click", () => takeSide("O"));
document.getElementById("place-two").addEventListener("click", placeTwo);
page.settings.addEventListener("submit", newGame);
newGame();
