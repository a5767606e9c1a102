import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { modelCacheDir, modelFile, parseHfRef } from "../../src/llm/model-download.js";
import { freePort } from "../support/free-port.js";

/** A hub on 127.0.0.1 serving one file the way huggingface.co does: resolve/main redirects to a file store, Range honoured. */
interface Hub {
  endpoint: string;
  requests: Array<{ url: string; range: string | undefined }>;
  close(): Promise<void>;
}

const FILE = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 251));
const SHA = createHash("sha256").update(FILE).digest("hex");
/** The same file at two other revisions of the repository: a commit, and a pull request's branch (a revision with `/`). */
const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const OLDER = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 11) % 253));
const PR_FILE = Buffer.from("pull request 1's file");
const REVISIONS: Record<string, Buffer<ArrayBuffer>> = { main: FILE, [COMMIT]: OLDER, "refs/pr/1": PR_FILE };

async function startHub(options: { sha?: string; cutFirstAt?: number; direct?: boolean; announce?: number; stall?: boolean; beforeCut?: () => Promise<unknown> } = {}): Promise<Hub> {
  const requests: Hub["requests"] = [];
  let served = 0;
  const sendFile = (req: IncomingMessage, res: ServerResponse, file = FILE) => {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const from = range ? Number(range[1]) : 0;
    const body = file.subarray(from);
    const headers: Record<string, string | number> = { "content-type": "application/octet-stream" };
    // A hub that announces a size in X-Linked-Size sends the body chunked.
    if (options.announce === undefined) headers["content-length"] = body.length;
    if (options.stall) {
      res.writeHead(200, headers);
      res.write(body.subarray(0, 1000));
      return;
    }
    if (options.direct) headers.etag = `"${options.sha ?? SHA}"`;
    if (range) headers["content-range"] = `bytes ${from}-${file.length - 1}/${file.length}`;
    res.writeHead(range ? 206 : 200, headers);
    if (served++ === 0 && options.cutFirstAt !== undefined) {
      // The connection drops part way, once the client has kept what came: bytes still queued in
      // its body stream when the connection fails are dropped, so cutting at once may leave nothing.
      res.write(body.subarray(0, options.cutFirstAt), () => void (options.beforeCut ?? Promise.resolve)().then(() => res.socket?.destroy()));
      return;
    }
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", range: req.headers.range });
    if (req.url === "/owner/repo/resolve/main/tiny.gguf") {
      if (options.direct) return sendFile(req, res);
      res.writeHead(302, { location: "/store/abc", "x-linked-etag": `"${options.sha ?? SHA}"`, "x-linked-size": options.announce ?? FILE.length, "content-length": 0 });
      return res.end();
    }
    if (req.url === "/store/abc") return sendFile(req, res);
    // Other revisions, as huggingface.co names them: resolve/REVISION, a `/` in it written %2F.
    const other = /^\/owner\/repo\/resolve\/([^/]+)\/tiny\.gguf$/.exec(req.url ?? "");
    const revision = other && decodeURIComponent(other[1]!);
    if (revision && Object.hasOwn(REVISIONS, revision)) {
      const file = REVISIONS[revision]!;
      res.writeHead(302, { location: `/store/${encodeURIComponent(revision)}`, "x-linked-etag": `"${createHash("sha256").update(file).digest("hex")}"`, "x-linked-size": file.length, "content-length": 0 });
      return res.end();
    }
    const stored = /^\/store\/(.+)$/.exec(req.url ?? "");
    if (stored && Object.hasOwn(REVISIONS, decodeURIComponent(stored[1]!))) return sendFile(req, res, REVISIONS[decodeURIComponent(stored[1]!)]);
    res.writeHead(404).end("Entry not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let dir: string;
let hub: Hub | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbridge-download-"));
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await rm(dir, { recursive: true, force: true });
});

const ref = "hf:owner/repo/tiny.gguf";

describe("a model file named hf:OWNER/REPO/FILE.gguf", () => {
  it("is downloaded once into the cache, 0600 in a 0700 directory, with progress", async () => {
    hub = await startHub();
    const cacheDir = join(dir, "cache", "toolbridge", "models");
    const progress: number[] = [];
    const path = await modelFile(ref, { cacheDir, endpoint: hub.endpoint, onProgress: (received, total) => progress.push(received / total) });
    expect(path).toBe(join(cacheDir, "owner--repo--tiny.gguf"));
    expect(await readFile(path)).toEqual(FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    expect(progress.at(-1)).toBe(1);
    expect(hub.requests.map((r) => r.url)).toEqual(["/owner/repo/resolve/main/tiny.gguf", "/store/abc"]);
    expect(await modelFile(ref, { cacheDir, endpoint: hub.endpoint })).toBe(path);
    expect(hub.requests).toHaveLength(2);
  });

  it("resumes an interrupted download from what the .part file holds", async () => {
    const cacheDir = join(dir, "models");
    const partFile = join(cacheDir, "owner--repo--tiny.gguf.part");
    const partHolds = async (size: number) => {
      while (((await stat(partFile).catch(() => undefined))?.size ?? 0) < size) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    hub = await startHub({ cutFirstAt: 70_000, beforeCut: () => partHolds(70_000) });
    const error = await modelFile(ref, { cacheDir, endpoint: hub.endpoint }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toMatch(/^Downloading hf:owner\/repo\/tiny\.gguf failed: .*run again to resume\)$/);
    const kept = (await stat(partFile)).size;
    expect(kept).toBe(70_000);

    const path = await modelFile(ref, { cacheDir, endpoint: hub.endpoint });
    expect(await readFile(path)).toEqual(FILE);
    expect(hub.requests.at(-1)).toEqual({ url: "/store/abc", range: `bytes=${kept}-` });
  });

  it("deletes a download whose SHA-256 is not the hub's", async () => {
    hub = await startHub({ sha: "0".repeat(64) });
    const cacheDir = join(dir, "models");
    const error = await modelFile(ref, { cacheDir, endpoint: hub.endpoint }).catch((e: unknown) => e);
    expect((error as LlmError).message).toBe(`Downloading ${ref} failed: its SHA-256 is ${SHA}, not the ${"0".repeat(64)} the hub gives; it was deleted`);
    await expect(stat(join(cacheDir, "owner--repo--tiny.gguf"))).rejects.toThrow();
    await expect(stat(join(cacheDir, "owner--repo--tiny.gguf.part"))).rejects.toThrow();
  });

  it("takes the hash from the ETag of a server that answers without a redirect", async () => {
    hub = await startHub({ direct: true, sha: "f".repeat(64) });
    const error = await modelFile(ref, { cacheDir: join(dir, "models"), endpoint: hub.endpoint }).catch((e: unknown) => e);
    expect((error as LlmError).message).toContain("not the ffff");
  });

  it("finishes a part already whole without asking for more", async () => {
    hub = await startHub();
    const cacheDir = join(dir, "models");
    await modelFile(ref, { cacheDir, endpoint: hub.endpoint });
    const path = join(cacheDir, "owner--repo--tiny.gguf");
    await rm(path);
    await writeFile(`${path}.part`, FILE, { mode: 0o600 });
    expect(await modelFile(ref, { cacheDir, endpoint: hub.endpoint })).toBe(path);
  });

  it("stops reading at the size the hub announced", async () => {
    hub = await startHub({ announce: 1000 });
    const error = await modelFile(ref, { cacheDir: join(dir, "models"), endpoint: hub.endpoint }).catch((e: unknown) => e);
    expect((error as LlmError).message).toBe(`Downloading ${ref} failed: the server sent more than the 1000 bytes it announced`);
  });

  it("gives up on a server that stops sending, keeping what came", async () => {
    hub = await startHub({ stall: true });
    const cacheDir = join(dir, "models");
    const error = await modelFile(ref, { cacheDir, endpoint: hub.endpoint, idleTimeoutMs: 300 }).catch((e: unknown) => e);
    expect((error as LlmError).code).toBe("timeout");
    expect((error as LlmError).message).toBe(`Downloading ${ref} failed: the server sent nothing for 300 ms (what came is kept; run again to resume)`);
    expect((await stat(join(cacheDir, "owner--repo--tiny.gguf.part"))).size).toBe(1000);
  });

  it("is downloaded from the revision after #, kept apart from main's and any other revision's", async () => {
    hub = await startHub();
    const cacheDir = join(dir, "models");
    const main = await modelFile(ref, { cacheDir, endpoint: hub.endpoint });
    const pinned = await modelFile(`${ref}#${COMMIT}`, { cacheDir, endpoint: hub.endpoint });
    const pr = await modelFile(`${ref}#refs/pr/1`, { cacheDir, endpoint: hub.endpoint });
    expect(pinned).toBe(join(cacheDir, `owner--repo@${COMMIT}--tiny.gguf`));
    expect(pr).toBe(join(cacheDir, "owner--repo@refs%2Fpr%2F1--tiny.gguf"));
    expect(await readFile(main)).toEqual(FILE);
    expect(await readFile(pinned)).toEqual(OLDER);
    expect(await readFile(pr)).toEqual(PR_FILE);
    expect(hub.requests.map((r) => r.url).filter((url) => url.includes("/resolve/"))).toEqual([
      "/owner/repo/resolve/main/tiny.gguf",
      `/owner/repo/resolve/${COMMIT}/tiny.gguf`,
      "/owner/repo/resolve/refs%2Fpr%2F1/tiny.gguf",
    ]);
    // Each is downloaded once; #main is main.
    const asked = hub.requests.length;
    expect(await modelFile(`${ref}#${COMMIT}`, { cacheDir, endpoint: hub.endpoint })).toBe(pinned);
    expect(await modelFile(`${ref}#main`, { cacheDir, endpoint: hub.endpoint })).toBe(main);
    expect(hub.requests).toHaveLength(asked);
  });

  it("says which revision the hub does not have", async () => {
    hub = await startHub();
    const error = await modelFile(`${ref}#v9`, { cacheDir: join(dir, "models"), endpoint: hub.endpoint }).catch((e: unknown) => e);
    expect((error as LlmError).message).toBe(`Downloading ${ref}#v9 failed: HTTP 404 from ${hub.endpoint}`);
  });

  it("says which file the hub does not have", async () => {
    hub = await startHub();
    const error = await modelFile("hf:owner/repo/other.gguf", { cacheDir: join(dir, "models"), endpoint: hub.endpoint }).catch((e: unknown) => e);
    expect((error as LlmError).message).toBe(`Downloading hf:owner/repo/other.gguf failed: HTTP 404 from ${hub.endpoint}`);
  });

  it("says, when the hub cannot be reached, what else would do", async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const error = await modelFile(ref, { cacheDir: join(dir, "models"), endpoint }).catch((e: unknown) => e);
    expect((error as LlmError).code).toBe("connection");
    expect((error as LlmError).message).toBe(
      `Cannot download ${ref}: ${new URL(endpoint).host} cannot be reached (connection refused). Use a model server instead (--base-url URL, without --provider local) or a GGUF file already on disk (--model PATH).`,
    );
  });

  it("refuses names that climb out of the cache", () => {
    expect(() => parseHfRef("hf:owner/repo/../../etc/x.gguf")).toThrow("write hf:OWNER/REPO/FILE.gguf");
    expect(() => parseHfRef("hf:owner/repo")).toThrow("write hf:OWNER/REPO/FILE.gguf");
    expect(() => parseHfRef("hf:owner/repo/x.gguf#../../x")).toThrow("hf:OWNER/REPO/FILE.gguf#REVISION");
    expect(() => parseHfRef("hf:owner/repo/x.gguf#a b")).toThrow("hf:OWNER/REPO/FILE.gguf#REVISION");
    expect(() => parseHfRef(`hf:owner/repo/x.gguf#${"a".repeat(201)}`)).toThrow("hf:OWNER/REPO/FILE.gguf#REVISION");
    expect(parseHfRef("hf:owner/repo/x.gguf#v1.0")).toEqual({ owner: "owner", repo: "repo", file: "x.gguf", revision: "v1.0" });
    expect(parseHfRef("hf:owner/repo/x.gguf#main")).toEqual({ owner: "owner", repo: "repo", file: "x.gguf" });
    expect(parseHfRef("hf:Qwen/Qwen3-0.6B-GGUF/q4/Qwen3-0.6B-Q4_K_M.gguf")).toEqual({ owner: "Qwen", repo: "Qwen3-0.6B-GGUF", file: "q4/Qwen3-0.6B-Q4_K_M.gguf" });
    expect(parseHfRef("/models/x.gguf")).toBeUndefined();
  });

  it("is kept under XDG_CACHE_HOME, else ~/.cache", () => {
    expect(modelCacheDir({ XDG_CACHE_HOME: "/x/cache", HOME: "/home/u" })).toBe("/x/cache/toolbridge/models");
    expect(modelCacheDir({ HOME: "/home/u" })).toBe("/home/u/.cache/toolbridge/models");
  });
});
