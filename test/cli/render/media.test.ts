import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { describeMedia, describeMediaIn, imageSize } from "../../../src/cli/render/media.js";

function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header;
}

function riff(chunk: string, body: Buffer): Buffer {
  const head = Buffer.alloc(20);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(12 + body.length, 4);
  head.write("WEBP", 8, "latin1");
  head.write(chunk, 12, "latin1");
  head.writeUInt32LE(body.length, 16);
  return Buffer.concat([head, body, Buffer.alloc(16)]);
}

describe("image sizes from headers", () => {
  it("reads PNG, GIF and every WebP flavour", () => {
    expect(imageSize(png(640, 480))).toEqual({ width: 640, height: 480 });
    const gif = Buffer.concat([Buffer.from("GIF89a", "latin1"), Buffer.from([0x20, 0x03, 0x58, 0x02])]);
    expect(imageSize(gif)).toEqual({ width: 800, height: 600 });
    const vp8 = Buffer.alloc(10);
    Buffer.from([0x9d, 0x01, 0x2a]).copy(vp8, 3);
    vp8.writeUInt16LE(300, 6);
    vp8.writeUInt16LE(200, 8);
    expect(imageSize(riff("VP8 ", vp8))).toEqual({ width: 300, height: 200 });
    const vp8l = Buffer.alloc(5);
    vp8l[0] = 0x2f;
    vp8l.writeUInt32LE((1024 - 1) | ((768 - 1) << 14), 1);
    expect(imageSize(riff("VP8L", vp8l))).toEqual({ width: 1024, height: 768 });
    const vp8x = Buffer.alloc(10);
    vp8x.writeUIntLE(4000 - 1, 4, 3);
    vp8x.writeUIntLE(3000 - 1, 7, 3);
    expect(imageSize(riff("VP8X", vp8x))).toEqual({ width: 4000, height: 3000 });
  });

  it("finds a JPEG's size after its other segments", () => {
    const app0 = Buffer.concat([Buffer.from([0xff, 0xe0, 0x00, 0x10]), Buffer.alloc(14)]);
    const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(imageSize(Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]))).toEqual({ width: 640, height: 480 });
  });

  it("says nothing of what it cannot read, and never reads past the data", () => {
    expect(imageSize(Buffer.from("not an image"))).toBeUndefined();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff]))).toBeUndefined();
    expect(imageSize(png(1, 1).subarray(0, 20))).toBeUndefined();
  });

  it("describes server-everything's tiny image with its type, pixels and bytes", () => {
    const source = readFileSync(fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js", import.meta.url)), "utf8");
    const data = /MCP_TINY_IMAGE = "([^"]+)"/.exec(source)?.[1] ?? "";
    expect(describeMedia({ type: "image", mimeType: "image/png", data })).toMatch(/^image image\/png, 20×20 px, [\d.]+ (KB|bytes)$/);
    expect(describeMedia({ type: "audio", mimeType: "audio/wav", data: "AAAA" })).toBe("audio audio/wav, 3 bytes");
  });

  it("lists the media of a result, cleaned of a hostile MIME type", () => {
    const lines = describeMediaIn({
      content: [
        { type: "text", text: "x" },
        { type: "image", mimeType: "image/png\x1b]2;PWNED\x07", data: png(2, 3).toString("base64") },
        { type: "audio", mimeType: "audio/mpeg", data: "AAAA" },
      ],
    });
    expect(lines).toEqual(["image image/png, 2×3 px, 33 bytes", "audio audio/mpeg, 3 bytes"]);
  });
});
