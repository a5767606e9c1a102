import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../support/processes.js";
import { connect, type Connected, type Mode } from "./serve-process.js";

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe.each<Mode>(["stdio", "http"])("the math server over %s", (mode) => {
  let connected: Connected;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    connected = await connect("math", mode);
    client = connected.client;
  });

  afterAll(async () => {
    await connected.close();
    expect(isAlive(connected.pid)).toBe(false);
  });

  it("lists the seven tools, each with an input and an output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["add", "batch_calculate", "divide", "multiply", "power", "square_root", "subtract"]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.properties).toHaveProperty("result");
    }
    const add = tools.find((t) => t.name === "add");
    expect(add?.inputSchema.required).toEqual(["a", "b"]);
    expect(tools.find((t) => t.name === "power")?.inputSchema.required).toEqual(["base", "exponent"]);
  });

  it("returns structured content shaped as {result: {operation, expression, result, formatted}} plus the same as text", async () => {
    const result = await call("multiply", { a: 6, b: 5 });
    const expected = { operation: "multiplication", expression: "6 × 5", result: 30, formatted: "6 × 5 = 30" };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: expected });
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
  });

  it.each([
    ["add", { a: 30, b: 7 }, 37, "30 + 7 = 37"],
    ["subtract", { a: 5, b: -3 }, 8, "5 - (-3) = 8"],
    ["divide", { a: 10, b: 4 }, 2.5, "10 ÷ 4 = 2.5"],
    ["power", { base: 2, exponent: 10 }, 1024, "2 ^ 10 = 1024"],
    ["square_root", { number: 2.25 }, 1.5, "√2.25 = 1.5"],
    ["add", { a: 0.1, b: 0.2 }, 0.1 + 0.2, "0.1 + 0.2 = 0.3"],
    ["add", { a: 123456789012345, b: 0 }, 123456789012345, "123456789012345 + 0 = 123456789012345"],
    ["multiply", { a: 4.35, b: 100 }, 4.35 * 100, "4.35 × 100 = 435"],
    ["add", { a: 9007199254740991, b: 0 }, 9007199254740991, "9007199254740991 + 0 = 9007199254740991"],
    ["divide", { a: 1, b: 3 }, 1 / 3, "1 ÷ 3 = 0.3333333333333333"],
    ["add", { a: 1234567.8901234567, b: 0 }, 1234567.8901234567, "1234567.8901234567 + 0 = 1234567.8901234567"],
    ["multiply", { a: 2 ** 40, b: 2 ** 20 }, 2 ** 60, "1099511627776 × 1048576 = 1152921504606846976"],
  ])("computes %s(%j)", async (name, args, value, formatted) => {
    const result = await call(name, args);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ result: { result: value, formatted } });
  });

  it("reports division by zero as a tool error", async () => {
    const result = await call("divide", { a: 1, b: 0 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/divide by zero/i);
    expect(result.structuredContent).toBeUndefined();
  });

  it("reports the square root of a negative number as a tool error", async () => {
    const result = await call("square_root", { number: -4 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/negative number: -4/);
  });

  it("reports a power without a finite real result as a tool error", async () => {
    expect((await call("power", { base: -8, exponent: 0.5 })).isError).toBe(true);
    expect(text(await call("power", { base: 10, exponent: 400 }))).toMatch(/no finite real result/);
  });

  it("rejects a string where a number belongs with a message naming the argument", async () => {
    const result = await call("add", { a: "two", b: 3 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Invalid arguments for tool add/);
    expect(text(result)).toMatch(/\ba: Invalid input: expected number, received string/);
  });

  it("rejects a missing argument with a message naming it", async () => {
    const result = await call("square_root", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/\bnumber: Invalid input: expected number, received undefined/);
  });

  it("computes a batch of expressions separated by ';'", async () => {
    const result = await call("batch_calculate", { operations: "2+3; 5*4; 10/2" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      result: {
        operation: "batch",
        expression: "2+3; 5*4; 10/2",
        succeeded: 3,
        failed: 0,
        results: [
          { expression: "2+3", result: 5, formatted: "2+3 = 5" },
          { expression: "5*4", result: 20, formatted: "5*4 = 20" },
          { expression: "10/2", result: 5, formatted: "10/2 = 5" },
        ],
      },
    });
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
    expect(result.structuredContent).toMatchObject({ result: { operation: "batch", succeeded: 3 } });
  });

  it("reports a bad expression in its place while the others still compute", async () => {
    const result = await call("batch_calculate", { operations: "2^3^2; 2 + * 3; -(1.5 + 0.5) * 4; 1/0" });
    expect(result.isError).toBeFalsy();
    const batch = (result.structuredContent as { result: { succeeded: number; failed: number; results: unknown[] } }).result;
    expect(batch.succeeded).toBe(2);
    expect(batch.failed).toBe(2);
    expect(batch.results).toEqual([
      { expression: "2^3^2", result: 512, formatted: "2^3^2 = 512" },
      { expression: "2 + * 3", error: { message: "expected a number or '(', found '*'", column: 5 }, formatted: "2 + * 3: error at column 5: expected a number or '(', found '*'" },
      { expression: "-(1.5 + 0.5) * 4", result: -8, formatted: "-(1.5 + 0.5) * 4 = -8" },
      { expression: "1/0", error: { message: "division by zero", column: 2 }, formatted: "1/0: error at column 2: division by zero" },
    ]);
  });

  it("reports a batch with no expression as a tool error", async () => {
    const result = await call("batch_calculate", { operations: " ; ;" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no expression/);
  });
});
