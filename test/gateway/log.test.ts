import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { jsonLogger } from "../../src/gateway/log.js";

describe("the gateway's JSON log", () => {
  it("writes the lines of one turn of the event loop together, in order, once that turn's work is done", async () => {
    const writes: string[] = [];
    const log = jsonLogger({ write: (text) => writes.push(text) });
    log.log("info", "chat completion", { requestId: "r1", rounds: 1 });
    log.log("warn", "request", { requestId: "r1", status: 200 });
    // Nothing yet: the answer's last bytes go out before its log lines.
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toHaveLength(1);
    const lines = (writes[0] as string).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
      { level: "info", msg: "chat completion", requestId: "r1", rounds: 1 },
      { level: "warn", msg: "request", requestId: "r1", status: 200 },
    ]);
    expect(Date.parse(String((JSON.parse(lines[0] as string) as { time: string }).time))).not.toBeNaN();
  });

  it("writes a later turn's lines in a write of their own", async () => {
    const writes: string[] = [];
    const log = jsonLogger({ write: (text) => writes.push(text) });
    log.log("info", "first");
    await nextTurn();
    log.log("info", "second");
    await nextTurn();
    expect(writes.map((text) => (JSON.parse(text) as { msg: string }).msg)).toEqual(["first", "second"]);
  });
});
