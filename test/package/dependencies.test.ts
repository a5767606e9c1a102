import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * What a global install carries: the command line is bundled (dist/cli), so it needs no package
 * at run time but node-llama-cpp; the library (dist/index.js, the one entry `exports` opens) is
 * not, so every package it reaches must be a dependency. Everything else the source uses is a
 * devDependency, bundled at build time, and does not weigh on the install.
 */
const ROOT = join(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };

/** The packages the built files reached from `entry` import, by name (a scope's package as @scope/name). */
async function packagesReached(entry: string): Promise<string[]> {
  const result = await build({ entryPoints: [join(ROOT, entry)], bundle: true, packages: "external", platform: "node", format: "esm", write: false, metafile: true, logLevel: "silent" });
  const names = new Set<string>();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || imported.path.startsWith("node:") || imported.path.startsWith(".")) continue;
      names.add(imported.path.split("/").slice(0, imported.path.startsWith("@") ? 2 : 1).join("/"));
    }
  }
  return [...names].sort();
}

describe("the package's dependencies", () => {
  it("hold every package the library reaches, and the optional peer node-llama-cpp", async () => {
    const reached = await packagesReached("dist/index.js");
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    expect(reached.filter((name) => !declared.has(name) && !isBuiltin(name))).toEqual([]);
    expect(Object.keys(manifest.dependencies).filter((name) => !reached.includes(name))).toEqual([]);
  });

  it("are not needed by the bundled command line, which imports node-llama-cpp alone", async () => {
    // Redis's client imports @node-rs/xxhash only for its DIGEST command (which it says needs it), which toolbridge never sends.
    expect((await packagesReached("dist/cli/main.js")).filter((name) => !isBuiltin(name))).toEqual(["@node-rs/xxhash", "node-llama-cpp"]);
  });
});

/** Node's own modules written without `node:` (as bundled CommonJS dependencies write them). */
function isBuiltin(name: string): boolean {
  return BUILTINS.has(name);
}

const BUILTINS = new Set((await import("node:module")).builtinModules);
