/**
 * What a global install of toolbridge weighs on disk: the package as `npm pack` makes it,
 * installed with `npm install -g` into a temporary prefix (npm's cache first, the registry for
 * what it lacks), measured with `du`. Goal: under 200 MB without the local model's runtime
 * (node-llama-cpp, an optional peer that `toolbridge install-local` adds). Beside the total, the
 * ten largest packages it brought, and the engine warnings the install printed (goal: none).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GOAL_MB = 200;
const exec = promisify(execFile);
const MB = 1024 * 1024;

/** Disk usage of `path` in bytes, as `du -sk` counts it (blocks, not file lengths). */
async function diskBytes(path: string): Promise<number> {
  const { stdout } = await exec("du", ["-sk", path]);
  return Number(stdout.split("\t")[0]) * 1024;
}

/** Each package directly under node_modules (a scope's packages one by one). */
function packages(modules: string): Array<{ name: string; path: string }> {
  return readdirSync(modules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) => (name.startsWith("@") ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]))
    .map((name) => ({ name, path: join(modules, name) }));
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-bench-install-"));
  try {
    const { stdout: packed } = await exec("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT, maxBuffer: 64 * MB });
    const tarball = join(dir, (JSON.parse(packed) as Array<{ filename: string }>)[0]!.filename);
    const prefix = join(dir, "prefix");
    const started = performance.now();
    const install = await exec("npm", ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", "--no-update-notifier", tarball], { cwd: dir, maxBuffer: 64 * MB });
    const installMs = performance.now() - started;
    const engineWarnings = `${install.stdout}\n${install.stderr}`.split("\n").filter((line) => line.includes("EBADENGINE")).length;
    const home = join(prefix, "lib", "node_modules", "toolbridge");
    const total = await diskBytes(prefix);
    const parts = await Promise.all(packages(join(home, "node_modules")).map(async (pkg) => ({ name: pkg.name, bytes: await diskBytes(pkg.path) })));
    parts.push({ name: "toolbridge's own dist/", bytes: await diskBytes(join(home, "dist")) });
    parts.sort((a, b) => b.bytes - a.bytes);
    console.log(`\na global install of the packed toolbridge (npm install -g into a temporary prefix; du); goal under ${GOAL_MB} MB, no engine warnings`);
    console.table([
      { what: "the whole install", MB: (total / MB).toFixed(1), goal: total < GOAL_MB * MB ? "met" : "MISSED" },
      { what: "engine warnings (EBADENGINE lines)", MB: "", goal: engineWarnings === 0 ? "met" : `MISSED (${engineWarnings})` },
      { what: "install time (s)", MB: (installMs / 1000).toFixed(1), goal: "" },
    ]);
    console.log("the ten largest parts");
    console.table(parts.slice(0, 10).map((part) => ({ part: part.name, MB: (part.bytes / MB).toFixed(1) })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
