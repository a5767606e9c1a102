import { open } from "node:fs/promises";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { configError, LlmError, oneLine } from "./errors.js";
import { GgufHeaderError, readGgufHeader } from "./gguf-header.js";

type NodeLlamaCpp = typeof import("node-llama-cpp");

/** The version package.json pins, for the install hint. */
const NODE_LLAMA_CPP = "node-llama-cpp@3.21.1";

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
 * first use (never built from source here, never downloaded). It is an optional dependency:
 * without it, one line says how to install it. llama.cpp's own logs are kept, not printed.
 */
export function localRuntime(): Promise<Runtime> {
  runtime ??= loadRuntime().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

async function loadRuntime(): Promise<Runtime> {
  let lib: NodeLlamaCpp;
  try {
    lib = await import("node-llama-cpp");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes("node-llama-cpp")) {
      throw configError(
        `--provider local needs node-llama-cpp, an optional dependency this install left out: run \`npm install ${NODE_LLAMA_CPP}\` in toolbridge's folder (or install toolbridge without --omit=optional).`,
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
 * The model in a GGUF file. A missing file, and one whose header is not a sound GGUF (see
 * readGgufHeader), are each one line naming the file, and llama.cpp never sees them; so is
 * llama.cpp's own refusal of a file that passed.
 */
export async function loadGguf(path: string): Promise<{ runtime: Runtime; model: LlamaModel }> {
  await checkGguf(path);
  const loaded = await localRuntime();
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
