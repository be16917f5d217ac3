// The bestmove web page. It knows no rules of the game: it sends the board to the API
// and shows what the API answers (the move, the status, the winner, the winning lines).
"use strict";

const RESULT_WORDS = { win: "You win", loss: "You lose", draw: "Draw" };

const page = {
  board: document.getElementById("board"),
  cells: [...document.querySelectorAll(".cell")],
  status: document.getElementById("status"),
  hint: document.getElementById("hint"),
  settings: document.getElementById("settings"),
};

// A seed in the page's address (?seed=7) makes the computer's random choices repeatable.
const seedParameter = new URLSearchParams(window.location.search).get("seed");
const seed = seedParameter === null ? null : Number(seedParameter);

const game = {
  cells: Array(9).fill(""),
  you: "X",
  computer: "O",
  difficulty: "medium",
  yourTurn: false,
  over: false,
  winningCells: new Set(),
  hints: new Map(),
};

async function ask(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) {
    throw new Error(answer.detail || `the service answered ${response.status}`);
  }
  return answer;
}

function describe(index) {
  const row = Math.floor(index / 3) + 1;
  const column = (index % 3) + 1;
  const mark = game.cells[index] || "empty";
  const hint = game.hints.get(index);
  return `Row ${row}, column ${column}: ${mark}${hint ? `, hint: ${hint}` : ""}`;
}

function render() {
  page.cells.forEach((cell, index) => {
    cell.textContent = game.cells[index];
    cell.disabled = game.over || !game.yourTurn || game.cells[index] !== "";
    cell.classList.toggle("winning", game.winningCells.has(index));
    if (game.hints.has(index)) {
      cell.dataset.hint = game.hints.get(index);
    } else {
      delete cell.dataset.hint;
    }
    cell.setAttribute("aria-label", describe(index));
  });
  page.hint.disabled = game.over || !game.yourTurn;
}

function say(words) {
  page.status.textContent = words;
}

function finish(answer) {
  game.over = true;
  game.yourTurn = false;
  game.winningCells = new Set(answer.winning_lines.flat());
  const result = answer.winner === null ? "draw" : answer.winner === game.you ? "win" : "loss";
  page.board.dataset.result = result;
  say(RESULT_WORDS[result]);
}

async function computerMove() {
  game.yourTurn = false;
  game.hints.clear();
  render();
  say("Thinking…");
  const request = { board: game.cells, player: game.computer, difficulty: game.difficulty };
  if (seed !== null) request.seed = seed;
  try {
    const answer = await ask("/v1/move", request);
    game.cells = answer.board;
    if (answer.next_player === null) {
      finish(answer);
    } else {
      game.yourTurn = true;
      say(`Your turn (you play ${game.you})`);
    }
  } catch (error) {
    say(`Something went wrong: ${error.message}`);
  }
  render();
}

function play(index) {
  if (!game.yourTurn || game.over || game.cells[index] !== "") return;
  game.cells[index] = game.you;
  // The service says whether that move ended the game, and if not, answers it.
  computerMove();
}

async function showHints() {
  try {
    const analysis = await ask("/v1/analysis", { board: game.cells, player: game.you });
    game.hints = new Map(analysis.moves.map((ranked) => [ranked.move, ranked.outcome]));
    render();
  } catch (error) {
    say(`Something went wrong: ${error.message}`);
  }
}

function newGame(event) {
  if (event) event.preventDefault();
  const settings = new FormData(page.settings);
  game.you = settings.get("mark");
  game.computer = game.you === "X" ? "O" : "X";
  game.difficulty = settings.get("difficulty");
  game.cells = Array(9).fill("");
  game.over = false;
  game.winningCells = new Set();
  game.hints.clear();
  delete page.board.dataset.result;
  if (settings.get("first") === "computer") {
    computerMove();
  } else {
    game.yourTurn = true;
    say(`Your turn (you play ${game.you})`);
    render();
  }
}

page.cells.forEach((cell, index) => cell.addEventListener("click", () => play(index)));
page.hint.addEventListener("click", showHints);
page.settings.addEventListener("submit", newGame);
newGame();
