import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { LlmConfig } from "../config/schema.js";
import { modelCacheDir } from "./model-download.js";

/**
 * The local model to run when no model server answers and none was named: `llm.localModel`,
 * else the GGUF file downloaded into the cache (`--model hf:...`) most recently. Undefined when
 * there is neither.
 */
export async function fallbackModel(llm: LlmConfig, env: Record<string, string | undefined>): Promise<string | undefined> {
  if (llm.localModel) return llm.localModel;
  const dir = modelCacheDir(env);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  let newest: { path: string; time: number } | undefined;
  for (const name of names.filter((file) => file.endsWith(".gguf"))) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && (!newest || info.mtimeMs > newest.time)) newest = { path, time: info.mtimeMs };
  }
  return newest?.path;
}
