import { spawn } from "node:child_process";
import { chmod, lstat, mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { LlmError, MODEL_SERVER_INSTEAD, oneLine } from "./errors.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The node-llama-cpp toolbridge is built and tested against; its prebuilt llama.cpp packages carry the same version. */
export const NODE_LLAMA_CPP_VERSION = "3.21.1";

export const RUNTIME_GPUS = ["cuda", "vulkan"] as const;
export type RuntimeGpu = (typeof RUNTIME_GPUS)[number];

/** The longest an install may take before it is stopped. */
const INSTALL_TIMEOUT_MS = 15 * 60 * 1000;
/** npm's last lines kept, to say why an install failed. */
const KEPT_LINES = 20;

/**
 * Where toolbridge installs llama.cpp's runtime for `--provider local`, and loads it from:
 * `$XDG_DATA_HOME/toolbridge/runtime`, else `~/.local/share/toolbridge/runtime`.
 */
export function localRuntimeDir(env: Env): string {
  const base = env.XDG_DATA_HOME?.startsWith("/") ? env.XDG_DATA_HOME : join(env.HOME || homedir(), ".local", "share");
  return join(base, "toolbridge", "runtime");
}

/**
 * The packages of llama.cpp's prebuilt binaries for a machine, as node-llama-cpp looks them up
 * (`@node-llama-cpp/PLATFORM-ARCH[-GPU]`): the CPU build, and a GPU build beside it only when
 * one is asked for (node-llama-cpp falls back to the CPU build where the GPU's libraries are
 * missing). Apple silicon has one build, with Metal. node-llama-cpp's own package.json lists
 * every one of them as optional, which npm installs all of on a matching machine (700 MB of
 * CUDA and Vulkan builds on Linux x64): they are named here instead, and the rest omitted.
 */
export function binaryPackages(platform: NodeJS.Platform, arch: string, gpu?: RuntimeGpu): string[] {
  const cpu = CPU_BUILDS[`${PLATFORM_NAMES[platform] ?? platform}-${arch}`];
  if (!cpu) throw new LlmError("runtime-missing", `node-llama-cpp has no prebuilt llama.cpp for ${platform}-${arch}; run a model server instead (--base-url URL).`);
  const builds = [cpu];
  if (gpu) {
    const extra = GPU_BUILDS[`${cpu}-${gpu}`];
    if (!extra) throw new LlmError("config", `node-llama-cpp has no ${gpu} build of llama.cpp for ${platform}-${arch}.`);
    builds.push(...extra);
  }
  return builds.map((build) => `@node-llama-cpp/${build}@${NODE_LLAMA_CPP_VERSION}`);
}

/** node-llama-cpp's names for Node's platforms. */
const PLATFORM_NAMES: Partial<Record<NodeJS.Platform, string>> = { linux: "linux", darwin: "mac", win32: "win" };

const CPU_BUILDS: Record<string, string> = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-armv7l",
  "linux-riscv64": "linux-riscv64",
  "mac-arm64": "mac-arm64-metal",
  "mac-x64": "mac-x64",
  "win-x64": "win-x64",
  "win-arm64": "win-arm64",
};

const GPU_BUILDS: Record<string, string[]> = {
  "linux-x64-cuda": ["linux-x64-cuda", "linux-x64-cuda-ext"],
  "linux-x64-vulkan": ["linux-x64-vulkan"],
  "win-x64-cuda": ["win-x64-cuda", "win-x64-cuda-ext"],
  "win-x64-vulkan": ["win-x64-vulkan"],
};

export interface RuntimeInstallOptions {
  /** The directory to install into (made 0700); see localRuntimeDir. */
  dir: string;
  /** PATH (to find npm) and npm's own settings (registry, cache, proxy). */
  env: Env;
  gpu?: RuntimeGpu;
  /** Called as npm gets each package (how many so far), and once more with `done` when npm has ended. */
  onProgress?: (fetched: number, done: boolean) => void;
}

/**
 * node-llama-cpp and this machine's llama.cpp build installed into `dir` by npm, from the
 * registry npm is set up for. Its install script is not run: it would build llama.cpp from
 * source (downloading it from GitHub) where no prebuilt binary fits, and toolbridge only ever
 * loads a prebuilt one.
 */
export async function installLocalRuntime(options: RuntimeInstallOptions): Promise<void> {
  const packages = [`node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, ...binaryPackages(process.platform, process.arch, options.gpu)];
  await ownDir(options.dir);
  const args = ["install", "--prefix", options.dir, "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=http", ...packages];
  const kept: string[] = [];
  let fetched = 0;
  const code = await new Promise<number | null>((resolve, reject) => {
    // npm is a .cmd script on Windows, which only a shell starts; each argument is quoted for it.
    const windows = process.platform === "win32";
    const child = spawn(windows ? "npm.cmd" : "npm", windows ? args.map((arg) => `"${arg}"`) : args, { env: options.env, stdio: ["ignore", "pipe", "pipe"], shell: windows });
    const timer = setTimeout(() => {
      child.kill();
      reject(new LlmError("timeout", `Installing node-llama-cpp into ${options.dir} took longer than ${INSTALL_TIMEOUT_MS / 60_000} minutes; it was stopped.`));
    }, INSTALL_TIMEOUT_MS);
    let partial = "";
    const read = (chunk: Buffer): void => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop()!.slice(-1000);
      for (const line of lines) {
        // Each package's tarball is logged once as npm gets it, from the registry or from its cache.
        if (/^npm http (?:fetch GET 200 |cache )\S+\.tgz\b/.test(line)) options.onProgress?.(++fetched, false);
        else if (line.trim() !== "") kept.push(line.slice(0, 500));
        if (kept.length > KEPT_LINES) kept.shift();
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === "ENOENT"
          ? new LlmError("runtime-missing", `npm was not found on PATH, so node-llama-cpp cannot be installed: run \`npm install --prefix ${options.dir} ${packages.join(" ")}\` where npm is.`)
          : error,
      );
    });
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve(status);
    });
  }).finally(() => options.onProgress?.(fetched, true));
  if (code !== 0) {
    const why = kept.filter((line) => /\berr(or)?!?\b/i.test(line)).at(-1) ?? kept.at(-1) ?? "no output";
    throw new LlmError(
      "runtime-missing",
      `npm could not install node-llama-cpp into ${options.dir} (exit ${code ?? "by signal"}: ${oneLine(why)}). Try again once the npm registry can be reached, or use ${MODEL_SERVER_INSTEAD}.`,
    );
  }
}

/** The directory made private (0700); one that is a symbolic link is refused, not followed. */
async function ownDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await lstat(dir)).isSymbolicLink()) throw new LlmError("config", `${dir} is a symbolic link; toolbridge installs llama.cpp's runtime only into a directory of its own.`);
  await chmod(dir, 0o700);
}
