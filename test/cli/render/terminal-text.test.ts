import { describe, expect, it } from "vitest";
import { TerminalTextCleaner, cleanTerminalText } from "../../../src/cli/render/terminal-text.js";

const ESC = "\x1b";
const BEL = "\x07";

describe("cleanTerminalText", () => {
  it("removes an OSC window title, ended by BEL or by ST", () => {
    expect(cleanTerminalText(`before${ESC}]2;PWNED${BEL}after`)).toBe("beforeafter");
    expect(cleanTerminalText(`before${ESC}]0;PWNED${ESC}\\after`)).toBe("beforeafter");
  });

  it("removes CSI sequences that hide text, move the cursor or clear the screen", () => {
    expect(cleanTerminalText(`${ESC}[8mhidden${ESC}[0m shown`)).toBe("hidden shown");
    expect(cleanTerminalText(`a${ESC}[2J${ESC}[H${ESC}[1;1Hb`)).toBe("ab");
    expect(cleanTerminalText(`x${ESC}[?1049hy`)).toBe("xy");
  });

  it("removes DCS, APC and PM strings and 8-bit C1 sequences", () => {
    expect(cleanTerminalText(`a${ESC}Pq#0;2;0;0;0${ESC}\\b`)).toBe("ab");
    expect(cleanTerminalText(`a${ESC}_payload${ESC}\\b`)).toBe("ab");
    expect(cleanTerminalText("a\x9b31mred\x9b0m")).toBe("ared");
    expect(cleanTerminalText("a\x9d2;title\x07b")).toBe("ab");
  });

  it("shows other control characters escaped and keeps newline and tab", () => {
    expect(cleanTerminalText(`ring${BEL}\x00\x7f`)).toBe("ring\\x07\\x00\\x7f");
    expect(cleanTerminalText("a\tb\nc")).toBe("a\tb\nc");
  });

  it("keeps CRLF as a newline but shows a lone carriage return, which would overwrite the line", () => {
    expect(cleanTerminalText("one\r\ntwo")).toBe("one\ntwo");
    expect(cleanTerminalText("safe\rEVIL")).toBe("safe\\rEVIL");
    expect(cleanTerminalText("end\r")).toBe("end\\r");
  });

  it("shows bidirectional overrides escaped", () => {
    expect(cleanTerminalText("a\u202eb")).toBe("a\\u202eb");
  });

  it("leaves wide characters, emoji and ordinary punctuation alone", () => {
    const text = "現在是幾點？ 🙂 [1] {x} ~";
    expect(cleanTerminalText(text)).toBe(text);
  });

  it("ends an unterminated sequence after a bound, so it cannot swallow everything after it", () => {
    const out = cleanTerminalText(`${ESC}]2;${"x".repeat(10_000)}`);
    expect(out.length).toBeGreaterThan(5000);
    expect(out).not.toContain(ESC);
  });
});

describe("TerminalTextCleaner", () => {
  it("removes a sequence split across pieces, however the text is cut", () => {
    const text = `start${ESC}]2;PWNED${BEL}mid${ESC}[8mend\r\nnext`;
    for (let size = 1; size <= text.length; size++) {
      const cleaner = new TerminalTextCleaner();
      let out = "";
      for (let i = 0; i < text.length; i += size) out += cleaner.push(text.slice(i, i + size));
      out += cleaner.end();
      expect(out).toBe("startmidend\nnext");
    }
  });
});
