import { lstat, open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { configError, LlmError, MODEL_SERVER_INSTEAD, oneLine } from "./errors.js";
import { GgufHeaderError, readGgufHeader } from "./gguf-header.js";

type NodeLlamaCpp = typeof import("node-llama-cpp");

interface Runtime {
  lib: NodeLlamaCpp;
  llama: Llama;
  /** llama.cpp's last error line since forgetError, to say why a file did not load. */
  lastError(): string | undefined;
  forgetError(): void;
}

let runtime: Promise<Runtime> | undefined;

/**
 * node-llama-cpp and llama.cpp's prebuilt binary for this machine, loaded once per process on
 * first use (never built from source here, never downloaded): from `dir`, where toolbridge
 * installs it (localRuntimeDir), else from beside toolbridge (a development tree, or a project
 * that has it as toolbridge's peer). Without either, an error of code "runtime-missing" says
 * how to install it. llama.cpp's own logs are kept, not printed.
 */
export function localRuntime(dir?: string): Promise<Runtime> {
  runtime ??= loadRuntime(dir).catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

async function loadRuntime(dir: string | undefined): Promise<Runtime> {
  const own = dir === undefined ? undefined : await installedEntry(dir);
  let lib: NodeLlamaCpp;
  try {
    lib = own ? ((await import(pathToFileURL(own).href)) as NodeLlamaCpp) : await import("node-llama-cpp");
  } catch (error) {
    if (!own && (error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes("node-llama-cpp")) {
      throw new LlmError(
        "runtime-missing",
        `--provider local runs models with llama.cpp (node-llama-cpp), which is not installed: run \`toolbridge install-local\` to install it (CPU build; add --gpu cuda or --gpu vulkan for a GPU one), or use ${MODEL_SERVER_INSTEAD}.`,
      );
    }
    throw configError(`node-llama-cpp could not be loaded: ${oneLine(String((error as Error).message))}`);
  }
  let last: string | undefined;
  try {
    const llama = await lib.getLlama({
      build: "never",
      progressLogs: false,
      logLevel: lib.LlamaLogLevel.error,
      logger: (level, message) => {
        if (level === lib.LlamaLogLevel.error || level === lib.LlamaLogLevel.fatal) last = message.slice(0, 1000);
      },
    });
    return {
      lib,
      llama,
      lastError: () => last,
      forgetError: () => {
        last = undefined;
      },
    };
  } catch (error) {
    throw configError(`node-llama-cpp has no llama.cpp binary for this machine (${process.platform}-${process.arch}): ${oneLine(String((error as Error).message))}`);
  }
}

/**
 * The entry file of node-llama-cpp as installed into `dir`; undefined when nothing is. Code is
 * loaded from there only while the directory is the user's own and written by no one else.
 */
async function installedEntry(dir: string): Promise<string | undefined> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return undefined;
  const foreign = info.isSymbolicLink() || !info.isDirectory() || (info.mode & 0o022) !== 0 || (process.getuid !== undefined && info.uid !== process.getuid());
  if (foreign) throw configError(`${dir} is not a private directory of this user's (a link, or writable by others); llama.cpp's runtime is not loaded from it.`);
  const home = join(dir, "node_modules", "node-llama-cpp");
  let manifest: { main?: unknown; exports?: { ".": { import?: unknown } } };
  try {
    manifest = JSON.parse(await readFile(join(home, "package.json"), "utf8")) as typeof manifest;
  } catch {
    return undefined;
  }
  const entry = manifest.exports?.["."]?.import ?? manifest.main;
  return join(home, typeof entry === "string" ? entry : "index.js");
}

/**
 * The model in a GGUF file. A missing file, and one whose header is not a sound GGUF (see
 * readGgufHeader), are each one line naming the file, and llama.cpp never sees them; so is
 * llama.cpp's own refusal of a file that passed.
 */
export async function loadGguf(path: string, runtimeDir?: string): Promise<{ runtime: Runtime; model: LlamaModel }> {
  await checkGguf(path);
  const loaded = await localRuntime(runtimeDir);
  loaded.forgetError();
  try {
    return { runtime: loaded, model: await loaded.llama.loadModel({ modelPath: path }) };
  } catch (error) {
    throw loadError(path, loaded, error);
  }
}

/** A failure to load `path` (or make its context), in one line: llama.cpp's own words when it logged any. */
export function loadError(path: string, loaded: Runtime, error: unknown): LlmError {
  if (error instanceof LlmError) return error;
  const why = loaded.lastError() ?? (error instanceof Error ? error.message : String(error));
  return configError(`The model file ${path} could not be loaded: ${oneLine(why)}`);
}

async function checkGguf(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT") throw configError(`No model file at ${path}.`);
    throw configError(`Cannot read the model file ${path} (${typeof code === "string" ? code : oneLine(String(error))}).`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw configError(`The model path ${path} is not a file.`);
    await readGgufHeader(handle, info.size);
  } catch (error) {
    if (error instanceof LlmError) throw error;
    if (error instanceof GgufHeaderError) throw configError(`The model file ${path} ${error.message}.`);
    throw configError(`Cannot read the model file ${path} (${oneLine(String(error))}).`);
  } finally {
    await handle.close();
  }
}
