// The client against the live service (BESTMOVE_URL, started by tests/test_typescript_client.py),
// and its retry rule against a stand-in fetch where only a stand-in can say "busy".
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";

import {
  BestmoveClient,
  BestmoveError,
  type Fetch,
  type MoveRequest,
  UNEXPECTED_ANSWER,
  retryAfterSeconds,
} from "../src/index.js";

const baseUrl = process.env.BESTMOVE_URL;
if (!baseUrl) {
  throw new Error("BESTMOVE_URL must name a running bestmove service (tests/test_typescript_client.py starts one)");
}
const client = new BestmoveClient({ baseUrl });

/** Return the error a request fails with; fail the test if it succeeds or fails otherwise. */
async function failure(pending: Promise<unknown>): Promise<BestmoveError> {
  try {
    await pending;
  } catch (caught) {
    if (caught instanceof BestmoveError) return caught;
    throw caught;
  }
  throw new Error("the request was expected to fail");
}

describe("against the live service", () => {
  it("answers the winning move with its score and the position after it", async () => {
    const answer = await client.move({ board: "O.XX.X.OO" });
    expect(answer.move).toBe(4);
    expect(answer.score).toBe(9);
    expect(answer.outcome).toBe("win");
    expect(answer.winner).toBe("X");
    expect(answer.rules).toEqual({ rows: 3, cols: 3, k: 3, misere: false, variant: "freestyle" });
  });

  it("takes the service's defaults for the rules it is not given", async () => {
    const answer = await client.move({ board: ".".repeat(16), rules: { misere: true } });
    expect(answer.rules).toEqual({ rows: 4, cols: 4, k: 4, misere: true, variant: "freestyle" });
    expect(answer.next_player).toBe("O");
  });

  it("answers a game sent as its moves as the board they make", async () => {
    const byMoves = await client.move({ moves: [2, 0, 3, 7, 5, 8] });
    expect(byMoves).toEqual(await client.move({ board: "O.XX.X.OO" }));
    const refused = await failure(client.move({ moves: [4, 4] }));
    expect(refused.code).toBe("move_repeated");
  });

  it("ranks every move best first in an analysis", async () => {
    const analysis = await client.analysis({ board: "O.XX.X.OO" });
    expect(analysis.moves.map((ranked) => ranked.move)).toEqual([4, 1, 6]);
    expect(analysis.moves[0]?.line).toEqual([4]);
  });

  it("answers a batch in order, a bad request's problem in its own slot", async () => {
    const results = await client.moves([{ board: "X........" }, { board: "XXXXX...." }]);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ move: 4 });
    expect(results[1]).toMatchObject({ status: 422, code: "mark_count_gap" });
  });

  it("raises a problem as a typed error carrying its code", async () => {
    const problem = await failure(client.move({ board: "XXXXX...." }));
    expect(problem.status).toBe(422);
    expect(problem.code).toBe("mark_count_gap");
    expect(problem.detail).toMatch(/X has 5 marks/);
    expect(problem.problem?.type).toBe("about:blank");
  });

  it("says which rule is out of range", async () => {
    const error = await failure(client.move({ board: "X........", rules: { rows: 21 } }));
    expect(error.code).toBe("rows_out_of_range");
  });

  it("reports what the search proved beyond 4x4", async () => {
    // 7x7, five in a row: X has an open four and wins at once.
    const board = "......." + "......." + ".XXXX.." + ".OOO..." + "......." + "......O" + ".......";
    const answer = await client.move({ board, budget_ms: 100 });
    expect(answer.move).toBe(14);
    expect(answer.score).toBe(49);
    expect(answer.search).toMatchObject({ method: "rules", proven: true, budget_ms: 100 });
  });

  it("never calls a searched estimate a score", async () => {
    const answer = await client.move({ board: ".".repeat(112) + "X" + ".".repeat(112), budget_ms: 50 });
    expect(answer.rules).toEqual({ rows: 15, cols: 15, k: 5, misere: false, variant: "freestyle" });
    expect(answer.score).toBeNull();
    expect(answer.search?.proven).toBe(false);
    expect(answer.search?.evaluation).toBeGreaterThan(-1);
  });

  it("plays renju: black's forbidden cells, and a foul that ends the game", async () => {
    // Black's twos cross at cell 112: a double three there, forbidden while black moves.
    const moves = [110, 0, 111, 2, 82, 4, 97, 6];
    const rules = { rows: 15, cols: 15, variant: "renju" as const };
    const answer = await client.move({ moves, rules, difficulty: "medium", seed: 1 });
    expect(answer.forbidden).toEqual([112]);
    expect(answer.move).not.toBe(112);
    const fouled = await client.move({ moves: [...moves, 112], rules });
    expect(fouled.status).toBe("o_won");
    expect(fouled.foul).toEqual({ move: 8, cell: 112, foul: "double_three" });
    const freestyle = await client.move({ moves, rules: { rows: 15, cols: 15 }, difficulty: "medium" });
    expect(freestyle).not.toHaveProperty("forbidden");
  });

  it("makes Swap2's opening decisions, and refuses a game at no step of it", async () => {
    const rules = { rows: 15, cols: 15, k: 5 };
    const opening = await client.swap2({ moves: [], rules, budget_ms: 100 });
    expect(opening.decision).toBe("place");
    expect(opening.stones).toHaveLength(3);
    expect(opening.board.filter((mark) => mark !== "")).toHaveLength(3);
    const choice = await client.swap2({ moves: opening.stones, rules, budget_ms: 100 });
    expect(choice.decision).toBe(choice.evaluation < 0 ? "swap" : "move");
    const error = await failure(client.swap2({ moves: [112, 97], rules }));
    expect(error.code).toBe("swap2_stones");
  });

  it("refuses a budget out of range with its own code", async () => {
    const error = await failure(client.move({ board: ".".repeat(49), budget_ms: 0 }));
    expect(error.code).toBe("budget_out_of_range");
  });

  it("reports health and readiness", async () => {
    expect(await client.health()).toEqual({ status: "ok" });
    expect(await client.ready()).toEqual({ status: "ready" });
  });
});

function answering(...answers: Response[]): { fetch: Fetch; calls: string[] } {
  const calls: string[] = [];
  const fetch: Fetch = async (input) => {
    calls.push(input);
    const next = answers.shift();
    if (!next) throw new Error("no answer left");
    return next;
  };
  return { fetch, calls };
}

function busy(retryAfter: string): Response {
  const problem = {
    type: "about:blank",
    title: "Service Unavailable",
    status: 503,
    detail: "every search slot is taken",
    code: "busy",
  };
  return new Response(JSON.stringify(problem), {
    status: 503,
    headers: { "Content-Type": "application/problem+json", "Retry-After": retryAfter },
  });
}

describe("when the service is busy", () => {
  const ok = () => new Response(JSON.stringify({ move: 4 }), { status: 200 });

  it("waits the Retry-After it is given, then tries again", async () => {
    const stand = answering(busy("0"), busy("0"), ok());
    const patient = new BestmoveClient({ baseUrl: "http://bestmove.test/", fetch: stand.fetch });
    await expect(patient.move({ board: "X........" })).resolves.toEqual({ move: 4 });
    expect(stand.calls).toEqual(Array(3).fill("http://bestmove.test/v1/move"));
  });

  it("gives up after its retries, with the wait the service asked for", async () => {
    const stand = answering(busy("0"), busy("3"));
    const patient = new BestmoveClient({
      baseUrl: "http://bestmove.test",
      fetch: stand.fetch,
      retries: 1,
    });
    const error = await failure(patient.move({ board: "X........" }));
    expect(error.status).toBe(503);
    expect(error.retryAfterSeconds).toBe(3);
    expect(stand.calls).toHaveLength(2);
  });

  it("does not retry a 503 that names no wait", async () => {
    const plain = new Response("down", { status: 503, headers: { "Content-Type": "text/plain" } });
    const stand = answering(plain);
    const patient = new BestmoveClient({ baseUrl: "http://bestmove.test", fetch: stand.fetch });
    const error = await failure(patient.move({ board: "X........" }));
    expect(error.code).toBe(UNEXPECTED_ANSWER);
    expect(error.detail).toBe("down");
    expect(stand.calls).toHaveLength(1);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("Sun, 22 Nov 2026 12:00:00 GMT");
    expect(retryAfterSeconds("7", now)).toBe(7);
    expect(retryAfterSeconds("Sun, 22 Nov 2026 12:00:05 GMT", now)).toBe(5);
    expect(retryAfterSeconds("soon", now)).toBeNull();
    expect(retryAfterSeconds(null, now)).toBeNull();
  });
});

describe("the types", () => {
  it("are generated from the contract the service serves", async () => {
    const contract = new URL("../../../openapi.yaml", import.meta.url);
    const generated = astToString(await openapiTS(contract));
    const committed = readFileSync(fileURLToPath(new URL("../src/schema.ts", import.meta.url)), "utf8");
    // The committed file is the CLI's output: its header, then the same declarations.
    expect(committed.endsWith(generated)).toBe(true);
  });

  it("refuse what the contract refuses, at compile time", () => {
    // @ts-expect-error -- no such level in the contract
    const wrong: MoveRequest = { board: "X........", difficulty: "impossible" };
    expect(wrong.board).toBe("X........");
  });
});
