import type { Command } from "commander";
import { action, UsageError } from "../errors.js";

interface InstallLocalFlags {
  gpu?: string;
}

/**
 * `toolbridge install-local [--gpu cuda|vulkan]`: llama.cpp's runtime for `--provider local`
 * (node-llama-cpp and this machine's prebuilt build) installed by npm into the directory
 * toolbridge loads it from. `run` offers the same on first use.
 */
export function registerInstallLocal(program: Command): void {
  program
    .command("install-local")
    .description("install llama.cpp's runtime (node-llama-cpp) for --provider local: the CPU build, or a GPU build beside it")
    .option("--gpu <kind>", "also install llama.cpp's cuda or vulkan build (Linux and Windows x64)")
    .action(action(async (flags: InstallLocalFlags) => installLocal(flags)));
}

async function installLocal(flags: InstallLocalFlags): Promise<void> {
  const [{ installLocalRuntime, localRuntimeDir, NODE_LLAMA_CPP_VERSION, RUNTIME_GPUS }, { runtimeProgress }] = await Promise.all([
    import("../../llm/runtime-install.js"),
    import("../runtime-offer.js"),
  ]);
  const gpu = flags.gpu;
  if (gpu !== undefined && !(RUNTIME_GPUS as readonly string[]).includes(gpu)) throw new UsageError(`--gpu: "${gpu}" is not one of ${RUNTIME_GPUS.join(", ")}`);
  const dir = localRuntimeDir(process.env);
  const progress = runtimeProgress(process.stderr);
  await installLocalRuntime({ dir, env: process.env, ...(gpu ? { gpu: gpu as (typeof RUNTIME_GPUS)[number] } : {}), ...(progress ? { onProgress: progress } : {}) });
  process.stdout.write(`installed node-llama-cpp ${NODE_LLAMA_CPP_VERSION} (${gpu ? `CPU and ${gpu} builds` : "CPU build"}) into ${dir}\n`);
}
