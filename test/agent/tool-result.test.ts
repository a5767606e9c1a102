import { describe, expect, it } from "vitest";
import { base64Bytes, capToolContent, resultBody, summarizeContent, toModelContent } from "../../src/agent/tool-result.js";

describe("toModelContent", () => {
  it("joins text parts into one string", () => {
    expect(toModelContent({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] })).toBe("a\nb");
  });

  it("uses structuredContent as JSON when there is no text", () => {
    expect(toModelContent({ content: [], structuredContent: { sum: 5 } })).toBe('{"sum":5}');
  });

  it("prefers the text when both text and structuredContent are present", () => {
    expect(toModelContent({ content: [{ type: "text", text: "5" }], structuredContent: { sum: 5 } })).toBe("5");
  });

  it("keeps images as image parts next to the text", () => {
    expect(toModelContent({ content: [{ type: "text", text: "a chart" }, { type: "image", data: "AAAA", mimeType: "image/png" }] })).toEqual([
      { type: "text", text: "a chart" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
  });

  it("summarises resource links, embedded resources and audio", () => {
    const content = toModelContent({
      content: [
        { type: "resource_link", uri: "file:///tmp/a.txt", name: "a.txt", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "file:///tmp/b.txt", text: "hello" } },
        { type: "resource", resource: { uri: "file:///tmp/c.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
        { type: "audio", data: "AAAAAA==", mimeType: "audio/wav" },
      ],
    });
    expect(content).toBe(
      [
        "[resource link a.txt: file:///tmp/a.txt (text/plain)]",
        "[resource file:///tmp/b.txt]\nhello",
        "[binary resource file:///tmp/c.bin, application/octet-stream, 3 bytes, not shown]",
        "[audio audio/wav, 4 bytes, not shown]",
      ].join("\n"),
    );
  });

  it("prefixes an error result so the model knows the tool failed", () => {
    expect(toModelContent({ content: [{ type: "text", text: "bad zone" }], isError: true })).toBe("Error: the tool reported a failure.\nbad zone");
  });

  it("marks a failed result that carries an image in its first text part, and leaves the body unmarked", () => {
    const result = { content: [{ type: "text" as const, text: "render failed" }, { type: "image" as const, data: "AAAA", mimeType: "image/png" }], isError: true };
    expect(toModelContent(result)).toEqual([
      { type: "text", text: "Error: the tool reported a failure.\nrender failed" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(resultBody(result)).toEqual([
      { type: "text", text: "render failed" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
  });

  it("says so when the tool returned nothing", () => {
    expect(toModelContent({ content: [] })).toBe("(the tool returned nothing)");
  });
});

describe("capToolContent", () => {
  it("leaves content within the limit untouched", () => {
    expect(capToolContent("short", 10)).toBe("short");
  });

  it("cuts the text parts of mixed content to the budget in total and keeps the images", () => {
    const capped = capToolContent(
      [
        { type: "text", text: "aaaaaa" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "bbbbbb" },
      ],
      8,
    );
    expect(capped).toEqual([
      { type: "text", text: "aaaaaa" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "bb\n[… result cut: showing the first 2 of 12 characters]" },
    ]);
  });
});

describe("summarizeContent", () => {
  it("makes one short line", () => {
    expect(summarizeContent("a\n\n  b   c", 20)).toBe("a b c");
    expect(summarizeContent("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
  });
});

describe("base64Bytes", () => {
  it("counts the bytes base64 encodes, padding included, and never below zero", () => {
    expect(base64Bytes(Buffer.from("hello").toString("base64"))).toBe(5);
    expect(base64Bytes(Buffer.from("hell").toString("base64"))).toBe(4);
    expect(base64Bytes("=")).toBe(0);
  });
});
