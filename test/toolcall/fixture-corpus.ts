/** The corpus of real model outputs in test/fixtures/toolcall, shared by the tests and the bench. */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ParsedToolCall } from "../../src/toolcall/call-shape.js";

export interface FixtureCase {
  file: string;
  name: string;
  /** Where the text comes from (a test suite, model card or issue report). */
  source: string;
  text: string;
  tools?: string[];
  startInReasoning?: boolean;
  calls: ParsedToolCall[];
  content: string;
  reasoning?: string;
  /**
   * The @ai-sdk-tool/parser protocol a user would pick for this format: "hermes",
   * "qwen3coder", "hermes:<start>:<end>" for Hermes with other delimiters, or "none".
   */
  peer: string;
}

const dir = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/toolcall");

export function loadCorpus(): FixtureCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((file) => {
      const { cases } = JSON.parse(readFileSync(join(dir, file), "utf8")) as { cases: Omit<FixtureCase, "file">[] };
      return cases.map((c) => ({ ...c, file }));
    });
}

/** Whitespace around and between calls is not part of what a case asserts. */
export const normalizeSpace = (text: string): string => text.replace(/\s+/g, " ").trim();
