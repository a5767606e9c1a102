import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { chmod, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describeNetworkCause, LlmError, MODEL_SERVER_INSTEAD, oneLine } from "./errors.js";
import { RedirectSchemeError, schemeCheckedFetch } from "./redirects.js";

/**
 * `hf:OWNER/REPO/FILE.gguf[#REVISION]`: a file of a Hugging Face model repository (FILE may be in
 * a folder), from its `main` or from REVISION (a commit, tag or branch, as node-llama-cpp writes it).
 */
const HF_REF = /^hf:([A-Za-z0-9][A-Za-z0-9._-]*)\/([A-Za-z0-9][A-Za-z0-9._-]*)\/((?:[A-Za-z0-9][A-Za-z0-9._-]*\/)*[A-Za-z0-9][A-Za-z0-9._-]*\.gguf)(?:#([A-Za-z0-9][A-Za-z0-9._/-]{0,199}))?$/;
const DEFAULT_REVISION = "main";

export interface HfFile {
  owner: string;
  repo: string;
  file: string;
  /** The commit, tag or branch; absent for `main`. */
  revision?: string;
}

/** The parts of an `hf:` reference; undefined for anything else (a path). Names with `..` are refused. */
export function parseHfRef(ref: string): HfFile | undefined {
  if (!ref.startsWith("hf:")) return undefined;
  const match = HF_REF.exec(ref);
  if (!match || ref.includes("..")) {
    throw new LlmError("config", `"${ref}" is not a Hugging Face model file: write hf:OWNER/REPO/FILE.gguf, or hf:OWNER/REPO/FILE.gguf#REVISION for a commit, tag or branch.`);
  }
  const revision = match[4];
  return { owner: match[1]!, repo: match[2]!, file: match[3]!, ...(revision && revision !== DEFAULT_REVISION ? { revision } : {}) };
}

/** Where downloaded models are kept: `$XDG_CACHE_HOME/toolbridge/models`, else `~/.cache/toolbridge/models`. */
export function modelCacheDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), ".cache");
  return join(base, "toolbridge", "models");
}

export interface DownloadOptions {
  /** The directory files are kept in (created 0700). */
  cacheDir: string;
  /** The hub's address; default https://huggingface.co (`HF_ENDPOINT`). */
  endpoint?: string;
  /** Called as bytes arrive: so far, of the whole file. */
  onProgress?: (received: number, total: number) => void;
  /** The longest the server may send nothing; default 30 s. */
  idleTimeoutMs?: number;
  /** The longest the whole download may take; default 6 hours. */
  timeoutMs?: number;
}

const DEFAULT_ENDPOINT = "https://huggingface.co";
const IDLE_TIMEOUT_MS = 30_000;
const TIMEOUT_MS = 6 * 60 * 60 * 1000;
/** The hub's requests: a redirect to another scheme is refused in one line. */
const hubFetch = schemeCheckedFetch();
/** The hub names an LFS file's content by its SHA-256 (`X-Linked-Etag`, else `ETag`). */
const SHA256_ETAG = /^(?:W\/)?"?([0-9a-f]{64})"?$/;

/**
 * The local path of a model file: the file itself, or for `hf:OWNER/REPO/FILE.gguf[#REVISION]` its
 * copy in the cache, downloaded the first time (a revision's copy apart from `main`'s and any other's). A download goes to a `.part` file beside it and resumes
 * from what that holds (an HTTP Range request); it is checked against the size the server
 * announced and, when the hub gives one, the SHA-256 of its content, and only then named as the
 * model. Files are 0600.
 */
export async function modelFile(ref: string, options: DownloadOptions): Promise<string> {
  const hf = parseHfRef(ref);
  if (!hf) return ref;
  // `@` is in no owner, repository or file name, and the revision's `/` is written %2F: two revisions never share a name.
  const revision = hf.revision ?? DEFAULT_REVISION;
  const pinned = hf.revision === undefined ? "" : `@${encodeURIComponent(hf.revision)}`;
  const target = join(options.cacheDir, `${hf.owner}--${hf.repo}${pinned}--${hf.file.replaceAll("/", "--")}`);
  if (await exists(target)) return target;
  await mkdir(options.cacheDir, { recursive: true, mode: 0o700 });
  await chmod(options.cacheDir, 0o700);
  const endpoint = (options.endpoint || DEFAULT_ENDPOINT).replace(/\/+$/, "");
  const url = `${endpoint}/${hf.owner}/${hf.repo}/resolve/${encodeURIComponent(revision)}/${hf.file.split("/").map(encodeURIComponent).join("/")}`;
  await download(ref, url, target, options);
  return target;
}

async function download(ref: string, url: string, target: string, options: DownloadOptions): Promise<void> {
  const part = `${target}.part`;
  const fail = (code: "http" | "connection" | "bad-response" | "timeout", reason: string) => new LlmError(code, `Downloading ${ref} failed: ${reason}`, { url });
  const deadline = AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS);
  const idleMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  let have = (await exists(part)) ? (await stat(part)).size : 0;

  const get = async (address: string, redirect: RequestRedirect) => {
    try {
      return await hubFetch(address, { redirect, signal: deadline, headers: have > 0 ? { range: `bytes=${have}-` } : {} });
    } catch (error) {
      if (error instanceof RedirectSchemeError) throw fail("bad-response", error.message);
      if (deadline.aborted) throw fail("timeout", `it took longer than ${options.timeoutMs ?? TIMEOUT_MS} ms`);
      // Nothing came: most often no network (the first run offline), so say what else would do.
      const host = new URL(address).host;
      throw new LlmError("connection", `Cannot download ${ref}: ${host} cannot be reached (${describeNetworkCause(error)}). Use ${MODEL_SERVER_INSTEAD} or a GGUF file already on disk (--model PATH).`, { url: address, cause: error });
    }
  };
  // The hub answers a redirect to its file store, with the file's size and hash beside it.
  let response = await get(url, "manual");
  const first = response.headers;
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get("location");
    if (!location) throw fail("bad-response", `HTTP ${response.status} without a Location`);
    await response.body?.cancel();
    response = await get(new URL(location, url).href, "follow");
  }
  const etag = first.get("x-linked-etag") ?? first.get("etag") ?? response.headers.get("etag") ?? "";
  const sha256 = SHA256_ETAG.exec(etag.trim())?.[1];
  if (response.status === 416 && have > 0) {
    // The part is already whole (or longer than the file): check it as it is.
    await response.body?.cancel();
    await finish(part, target, have, sha256, fail);
    return;
  }
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel();
    throw fail("http", `HTTP ${response.status} from ${new URL(url).origin}`);
  }
  if (response.status === 200) have = 0;
  const total = announcedSize(response, first, have);
  if (total === undefined) {
    await response.body?.cancel();
    throw fail("bad-response", "the server did not say how large the file is");
  }

  const hash = createHash("sha256");
  if (have > 0) await hashFile(part, hash);
  const handle = await open(part, have > 0 ? "a" : "w", 0o600);
  let received = have;
  try {
    const reader = response.body!.getReader();
    for (;;) {
      const chunk = await withIdleTimeout(reader.read(), idleMs, () => void reader.cancel());
      if (chunk === "idle") throw fail("timeout", `the server sent nothing for ${idleMs} ms (what came is kept; run again to resume)`);
      if (chunk.done) break;
      received += chunk.value.length;
      if (received > total) {
        await reader.cancel();
        throw fail("bad-response", `the server sent more than the ${total} bytes it announced`);
      }
      await handle.write(chunk.value);
      hash.update(chunk.value);
      options.onProgress?.(received, total);
    }
  } catch (error) {
    if (error instanceof LlmError) throw error;
    if (deadline.aborted) throw fail("timeout", `it took longer than ${options.timeoutMs ?? TIMEOUT_MS} ms (what came is kept; run again to resume)`);
    throw fail("connection", `${oneLine(String((error as Error).message))} (what came is kept; run again to resume)`);
  } finally {
    await handle.close();
  }
  if (received < total) throw fail("connection", `the server sent ${received} of ${total} bytes (what came is kept; run again to resume)`);
  await finish(part, target, total, sha256, fail, hash);
}

/** Names the part as the model once its size and hash are right; a wrong one is deleted. */
async function finish(
  part: string,
  target: string,
  total: number,
  sha256: string | undefined,
  fail: (code: "bad-response", reason: string) => LlmError,
  hash?: Hash,
): Promise<void> {
  if ((await stat(part)).size !== total) {
    await rm(part, { force: true });
    throw fail("bad-response", `the file is not the ${total} bytes announced; it was deleted`);
  }
  if (sha256) {
    const digest = (hash ?? (await hashFile(part, createHash("sha256")))).digest("hex");
    if (digest !== sha256) {
      await rm(part, { force: true });
      throw fail("bad-response", `its SHA-256 is ${digest}, not the ${sha256} the hub gives; it was deleted`);
    }
  }
  await rename(part, target);
}

/** The whole file's size: from Content-Range, the hub's X-Linked-Size, or Content-Length after what we have. */
function announcedSize(response: Response, first: Headers, have: number): number | undefined {
  const range = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "");
  const candidates = [range?.[1], first.get("x-linked-size"), response.status === 200 ? response.headers.get("content-length") : undefined];
  for (const text of candidates) {
    const size = Number(text);
    if (text && Number.isSafeInteger(size) && size > 0) return size;
  }
  const length = Number(response.headers.get("content-length"));
  return response.status === 206 && Number.isSafeInteger(length) && length > 0 ? have + length : undefined;
}

async function hashFile(path: string, hash: Hash): Promise<Hash> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash;
}

async function withIdleTimeout<T>(read: Promise<T>, ms: number, onIdle: () => void): Promise<T | "idle"> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<"idle">((resolve) => {
    timer = setTimeout(() => {
      // Settled first: cancelling ends the pending read too, and the race must not take that for the end of the file.
      resolve("idle");
      onIdle();
    }, ms);
  });
  try {
    return await Promise.race([read, idle]);
  } finally {
    clearTimeout(timer);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
