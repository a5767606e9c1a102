import type { ReadResourceResult } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { attachMentions, findMentions, MAX_ATTACHED_CHARS, MAX_MENTIONS } from "../../../src/cli/chat/mentions.js";

const text = (uri: string, body: string, mimeType = "text/plain"): ReadResourceResult => ({ contents: [{ uri, mimeType, text: body }] });

describe("@uri mentions", () => {
  it("finds words that start with @ and a URI scheme, once each, without the sentence's punctuation", () => {
    expect(findMentions("see @file:///tmp/a.txt, and @docs://intro. Also @file:///tmp/a.txt")).toEqual(["file:///tmp/a.txt", "docs://intro"]);
  });

  it("leaves @handles, e-mail addresses and a bare scheme as text", () => {
    expect(findMentions("ask @alice or me@example.com about @http: and x@docs://a")).toEqual([]);
  });

  it("sends the message unchanged when it mentions nothing", async () => {
    expect(await attachMentions("hello", async () => text("x", "y"))).toEqual({ content: "hello", attachments: [] });
  });

  it("attaches each resource's text after the message and says what it attached", async () => {
    const result = await attachMentions("compare @docs://a with @docs://b", async (uri) => text(uri, `body of ${uri}`));
    expect(result.content).toBe("compare @docs://a with @docs://b\n\n[resource docs://a (text/plain)]\nbody of docs://a\n\n[resource docs://b (text/plain)]\nbody of docs://b");
    expect(result.attachments).toEqual([
      { uri: "docs://a", attached: true, note: "text/plain, 16 characters" },
      { uri: "docs://b", attached: true, note: "text/plain, 16 characters" },
    ]);
  });

  it("attaches an image as an image part, and names other binary content in a note", async () => {
    const result = await attachMentions("look @img://cat and @bin://x", async (uri) =>
      uri === "img://cat" ? { contents: [{ uri, mimeType: "image/png", blob: "aGVsbG8=" }] } : { contents: [{ uri, mimeType: "application/zip", blob: "aGVsbG8=" }] },
    );
    expect(result.content).toEqual([
      { type: "text", text: "look @img://cat and @bin://x\n\n[resource img://cat (image/png)]" },
      { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      { type: "text", text: "[resource bin://x (application/zip): 5 bytes of binary content, not attached]" },
    ]);
    expect(result.attachments.map((a) => a.attached)).toEqual([true, false]);
    expect(result.attachments[1]?.note).toBe("not attached: application/zip, 5 bytes; binary content is attached only when it is an image");
  });

  it("leaves out text past the size bound with one line naming the resource", async () => {
    const big = "x".repeat(MAX_ATTACHED_CHARS - 10);
    const result = await attachMentions("@docs://big and @docs://more", async (uri) => text(uri, uri === "docs://big" ? big : "0123456789ab"));
    expect(result.attachments[1]).toEqual({ uri: "docs://more", attached: false, note: "not attached: 12 characters, over the 100,000 a message may attach" });
    expect(typeof result.content === "string" && result.content.endsWith("[resource docs://more (text/plain) not attached: too large]")).toBe(true);
    expect((result.content as string).length).toBeLessThan(MAX_ATTACHED_CHARS + 200);
  });

  it("says which resource could not be read, and attaches at most MAX_MENTIONS", async () => {
    const failing = await attachMentions("@docs://gone", async () => {
      throw new Error("no server lists resource docs://gone");
    });
    expect(failing.attachments).toEqual([{ uri: "docs://gone", attached: false, note: "not attached: no server lists resource docs://gone" }]);
    expect(failing.content).toBe("@docs://gone\n\n[resource docs://gone could not be read: no server lists resource docs://gone]");
    const many = Array.from({ length: MAX_MENTIONS + 2 }, (_, i) => `@docs://${i}`).join(" ");
    let reads = 0;
    const bounded = await attachMentions(many, async (uri) => {
      reads += 1;
      return text(uri, "t");
    });
    expect(reads).toBe(MAX_MENTIONS);
    expect(bounded.attachments.filter((a) => !a.attached).map((a) => a.note)).toEqual([
      `not attached: a message attaches at most ${MAX_MENTIONS} resources`,
      `not attached: a message attaches at most ${MAX_MENTIONS} resources`,
    ]);
  });
});
