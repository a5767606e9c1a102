import { describe, expect, it } from "vitest";
import { evaluateExpression } from "../../src/servers/math/expression.js";
import { batchCalculation, formatNumber } from "../../src/servers/math/calculation.js";

function value(source: string): number {
  const result = evaluateExpression(source);
  if (!result.ok) throw new Error(`${source}: ${result.error.message} at column ${result.error.column}`);
  return result.value;
}

function failure(source: string): { message: string; column: number } {
  const result = evaluateExpression(source);
  if (result.ok) throw new Error(`${source} evaluated to ${result.value}`);
  return result.error;
}

describe("evaluateExpression", () => {
  it.each([
    ["2+3*4", 14],
    ["(2+3)*4", 20],
    ["10-4-3", 3],
    ["100/10/5", 2],
    ["2*3+4*5", 26],
    ["8/2*4", 16],
  ])("applies usual precedence and left associativity: %s = %d", (source, expected) => {
    expect(value(source)).toBe(expected);
  });

  it("makes power right-associative and tighter than multiplication", () => {
    expect(value("2^3^2")).toBe(512);
    expect(value("2*3^2")).toBe(18);
    expect(value("(2^3)^2")).toBe(64);
  });

  it("binds unary minus looser than power, as in written mathematics", () => {
    expect(value("-2^2")).toBe(-4);
    expect(value("(-2)^2")).toBe(4);
    expect(value("2^-1")).toBe(0.5);
  });

  it("handles unary minus and plus, repeated and after operators", () => {
    expect(value("-3")).toBe(-3);
    expect(value("--3")).toBe(3);
    expect(value("5 - -3")).toBe(8);
    expect(value("4 * -2")).toBe(-8);
    expect(value("+7")).toBe(7);
    expect(value("-(2+3)")).toBe(-5);
  });

  it("reads decimals, leading-dot decimals and exponent notation", () => {
    expect(value("1.5 + .25")).toBe(1.75);
    expect(value("2.")).toBe(2);
    expect(value("1e3 / 2.5E-1")).toBe(4000);
  });

  it("ignores whitespace anywhere between tokens", () => {
    expect(value("  ( 1 +\t2 ) *\n3 ")).toBe(9);
  });

  it("accepts the ×, ÷ and ** spellings models often write", () => {
    expect(value("6 × 5 ÷ 3")).toBe(10);
    expect(value("2**3**2")).toBe(512);
  });

  it("nests parentheses", () => {
    expect(value("((((1+2))))*(3-(4-5))")).toBe(12);
  });

  it.each([
    ["", "empty expression", 1],
    ["2 +", "expected a number or '(', found end of expression", 4],
    ["2 + * 3", "expected a number or '(', found '*'", 5],
    ["(1 + 2", "expected ')' to close '(' at column 1, found end of expression", 7],
    ["1 + 2)", "unexpected ')'", 6],
    ["2 3", "unexpected number 3", 3],
    ["2 + x", "unexpected character 'x'", 5],
    ["()", "expected a number or '(', found ')'", 2],
    ["1/0", "division by zero", 2],
    ["1 / (2 - 2)", "division by zero", 3],
  ])("reports %j as %s at column %d", (source, message, column) => {
    expect(failure(source)).toEqual({ message, column });
  });

  it("reports results that are not finite numbers", () => {
    expect(failure("10^400")).toEqual({ message: "result of '^' is not a finite number", column: 3 });
    expect(failure("(-8)^0.5").message).toBe("result of '^' is not a finite number");
    expect(failure("1e308 * 10")).toEqual({ message: "result of '*' is not a finite number", column: 7 });
  });

  it("refuses nesting deep enough to threaten the stack instead of crashing", () => {
    expect(failure(`${"(".repeat(5000)}1${")".repeat(5000)}`).message).toMatch(/nested more than \d+ levels/);
    expect(failure(`${"-".repeat(5000)}1`).message).toMatch(/nested more than \d+ levels/);
  });

  it("never evaluates code", () => {
    expect(failure("process.exit(1)").message).toBe("unexpected character 'p'");
    expect(failure("1; 2").message).toBe("unexpected character ';'");
  });
});

describe("batchCalculation", () => {
  it("splits on semicolons and new lines and skips empty parts", () => {
    const batch = batchCalculation("1+1;\n2*2;;  ");
    expect("error" in batch ? batch : batch.results.map((r) => r.result)).toEqual([2, 4]);
  });

  it("refuses more expressions than one call may hold", () => {
    expect(batchCalculation(Array.from({ length: 101 }, () => "1").join(";"))).toEqual({ error: "operations holds 101 expressions; at most 100 per call" });
  });
});

describe("formatNumber", () => {
  it("hides binary floating-point noise but keeps real digits", () => {
    expect(formatNumber(0.1 + 0.2)).toBe("0.3");
    expect(formatNumber(1 / 3)).toBe("0.3333333333333333");
    expect(formatNumber(1.1 * 3)).toBe("3.3");
    expect(formatNumber(30)).toBe("30");
    expect(formatNumber(-2.5)).toBe("-2.5");
    expect(formatNumber(4.35 * 100)).toBe("435");
  });

  it("keeps every digit a double holds", () => {
    expect(formatNumber(123456789012345)).toBe("123456789012345");
    expect(formatNumber(-9007199254740991)).toBe("-9007199254740991");
    expect(formatNumber(1234567.89012345)).toBe("1234567.89012345");
    expect(formatNumber(1e21)).toBe("1e+21");
    // Past 15 significant digits: nothing is rounded away.
    expect(formatNumber(1234567.8901234567)).toBe("1234567.8901234567");
    expect(formatNumber(0.1234567890123456)).toBe("0.1234567890123456");
    expect(formatNumber(2 ** 60)).toBe("1152921504606846976");
    expect(formatNumber(-(2 ** 60) - 2 ** 9)).toBe("-1152921504606847488");
  });
});
