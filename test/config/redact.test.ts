import { describe, expect, it } from "vitest";
import { maskSecretsIn, redactSecrets, redactUrl, registerSecret } from "../../src/config/redact.js";

describe("redaction", () => {
  it("masks the user name, password and query values of a URL", () => {
    expect(redactUrl("https://alice:hunter22@mcp.example.com/mcp?token=abc123&region=eu")).toBe("https://***@mcp.example.com/mcp?token=***&region=***");
    expect(redactUrl("http://127.0.0.1:8000/v1")).toBe("http://127.0.0.1:8000/v1");
  });

  it("masks every URL inside a message, keeping the sentence around it", () => {
    expect(redactSecrets("Cannot reach the model server at http://u:p4ssword@10.0.0.1/v1 (ECONNREFUSED).")).toBe(
      "Cannot reach the model server at http://***@10.0.0.1/v1 (ECONNREFUSED).",
    );
    expect(redactSecrets('cannot connect to https://x.example/sse?api_key=s3cr3t: fetch failed')).toBe("cannot connect to https://x.example/sse?api_key=***: fetch failed");
  });

  it("masks a registered key wherever a message quotes it, but not short placeholder keys", () => {
    registerSecret("sk-test-0123456789abcdef");
    registerSecret("EMPTY");
    expect(redactSecrets("Incorrect API key provided: sk-test-0123456789abcdef. EMPTY is fine")).toBe("Incorrect API key provided: ***. EMPTY is fine");
  });

  it("masks a registered key deep inside a server's answer, and hands back the same object when none is quoted", () => {
    registerSecret("tok-abcdefgh12345678");
    const clean = { content: [{ type: "text", text: "nothing here" }], structuredContent: { rows: [{ id: 1, tags: ["a"] }] } };
    expect(maskSecretsIn(clean)).toBe(clean);
    const quoting = { content: [{ type: "text", text: "ok" }], structuredContent: { rows: [{ id: 1, tags: ["a", "Bearer tok-abcdefgh12345678"] }] } };
    const masked = maskSecretsIn(quoting);
    expect(masked).toEqual({ content: [{ type: "text", text: "ok" }], structuredContent: { rows: [{ id: 1, tags: ["a", "Bearer ***"] }] } });
    expect(quoting.structuredContent.rows[0]?.tags[1]).toBe("Bearer tok-abcdefgh12345678");
  });
});
