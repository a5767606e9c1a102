import { McpServer } from "@modelcontextprotocol/server";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/server";
import { z } from "zod";
import { PACKAGE_VERSION } from "../../version.js";
import { STATIC_LIST_HINTS } from "../list-hints.js";
import { batchCalculation, batchSchema, binaryCalculation, calculationSchema, formatNumber, squareRootCalculation, type Batch, type Calculation } from "./calculation.js";

const PURE: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

// The result's shape is in each tool's outputSchema; descriptions stay short because a
// model reads every one of them on every request.

/** structuredContent, and the same JSON as text for clients that read only text (as the spec advises). */
function success(result: Calculation | Batch): CallToolResult {
  const structuredContent = { result };
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

interface BinaryTool {
  name: string;
  title: string;
  summary: string;
  operation: string;
  symbol: string;
  left: { name: string; description: string };
  right: { name: string; description: string };
  compute: (a: number, b: number) => number | { error: string };
}

const BINARY_TOOLS: BinaryTool[] = [
  {
    name: "add",
    title: "Add",
    summary: "Add two numbers (a + b).",
    operation: "addition",
    symbol: "+",
    left: { name: "a", description: "First number" },
    right: { name: "b", description: "Second number" },
    compute: (a, b) => a + b,
  },
  {
    name: "subtract",
    title: "Subtract",
    summary: "Subtract b from a (a - b).",
    operation: "subtraction",
    symbol: "-",
    left: { name: "a", description: "Number to subtract from" },
    right: { name: "b", description: "Number to subtract" },
    compute: (a, b) => a - b,
  },
  {
    name: "multiply",
    title: "Multiply",
    summary: "Multiply two numbers (a × b).",
    operation: "multiplication",
    symbol: "×",
    left: { name: "a", description: "First factor" },
    right: { name: "b", description: "Second factor" },
    compute: (a, b) => a * b,
  },
  {
    name: "divide",
    title: "Divide",
    summary: "Divide a by b (a ÷ b). Dividing by zero is an error.",
    operation: "division",
    symbol: "÷",
    left: { name: "a", description: "Dividend" },
    right: { name: "b", description: "Divisor (must not be 0)" },
    compute: (a, b) => (b === 0 ? { error: `Cannot divide by zero: ${formatNumber(a)} ÷ 0 is undefined.` } : a / b),
  },
  {
    name: "power",
    title: "Power",
    summary: "Raise base to exponent (base ^ exponent). A result that is not a real, finite number (e.g. (-8) ^ 0.5) is an error.",
    operation: "exponentiation",
    symbol: "^",
    left: { name: "base", description: "Base" },
    right: { name: "exponent", description: "Exponent" },
    compute: (a, b) => a ** b,
  },
];

function registerBinaryTool(server: McpServer, tool: BinaryTool): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.summary,
      inputSchema: z.object({
              [tool.left.name]: z.number().describe(tool.left.description),
              [tool.right.name]: z.number().describe(tool.right.description),
            }),
      outputSchema: z.object({ result: calculationSchema }),
      annotations: { title: tool.title, ...PURE },
    },
    (args) => {
      // The SDK has validated both operands against the input schema before this runs.
      const a = args[tool.left.name] as number;
      const b = args[tool.right.name] as number;
      const result = tool.compute(a, b);
      if (typeof result !== "number") return failure(result.error);
      const calculation = binaryCalculation(tool.operation, a, tool.symbol, b, result);
      if (!Number.isFinite(result)) return failure(`${calculation.expression} has no finite real result.`);
      return success(calculation);
    },
  );
}

/** The bundled math server: arithmetic tools with structured results, and a batch calculator. */
export function createMathServer(): McpServer {
  const server = new McpServer({ name: "toolbridge-math", title: "toolbridge math", version: PACKAGE_VERSION }, { cacheHints: STATIC_LIST_HINTS });

  for (const tool of BINARY_TOOLS) registerBinaryTool(server, tool);

  server.registerTool(
    "square_root",
    {
      title: "Square root",
      description: "Square root of a non-negative number (√number). A negative number is an error.",
      inputSchema: z.object({ number: z.number().describe("A non-negative number") }),
      outputSchema: z.object({ result: calculationSchema }),
      annotations: { title: "Square root", ...PURE },
    },
    ({ number }) => {
      if (number < 0) return failure(`Cannot take the square root of a negative number: ${formatNumber(number)}.`);
      return success(squareRootCalculation(number, Math.sqrt(number)));
    },
  );

  server.registerTool(
    "batch_calculate",
    {
      title: "Batch calculate",
      description:
        "Compute several arithmetic expressions at once, separated by ';', e.g. \"2+3; 5*4; 10/2\". " +
        "Supports + - * / ^ (power, right-associative), parentheses, unary minus and decimals. " +
        "Each expression is computed on its own: a bad one is reported in its place with the column and what was wrong, and the others still compute.",
      inputSchema: z.object({ operations: z.string().max(10_000).describe("Expressions separated by ';', e.g. \"2+3; 5*4; 10/2\"") }),
      outputSchema: z.object({ result: batchSchema }),
      annotations: { title: "Batch calculate", ...PURE },
    },
    ({ operations }) => {
      const batch = batchCalculation(operations);
      return "error" in batch ? failure(batch.error) : success(batch);
    },
  );

  return server;
}
