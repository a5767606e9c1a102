import { lstat, mkdtemp, rm, stat, symlink, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { binaryPackages, installLocalRuntime, localRuntimeDir } from "../../src/llm/runtime-install.js";
import { writeFakeNpm } from "../support/fake-npm.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbridge-runtime-install-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("llama.cpp's packages for a machine", () => {
  it.each([
    ["linux", "x64", undefined, ["linux-x64"]],
    ["linux", "x64", "cuda", ["linux-x64", "linux-x64-cuda", "linux-x64-cuda-ext"]],
    ["linux", "x64", "vulkan", ["linux-x64", "linux-x64-vulkan"]],
    ["linux", "arm64", undefined, ["linux-arm64"]],
    ["linux", "arm", undefined, ["linux-armv7l"]],
    ["darwin", "arm64", undefined, ["mac-arm64-metal"]],
    ["darwin", "x64", undefined, ["mac-x64"]],
    ["win32", "x64", "cuda", ["win-x64", "win-x64-cuda", "win-x64-cuda-ext"]],
  ] as const)("%s-%s with gpu %s is the CPU build plus only the GPU build asked for", (platform, arch, gpu, builds) => {
    expect(binaryPackages(platform, arch, gpu)).toEqual(builds.map((build) => `@node-llama-cpp/${build}@3.21.1`));
  });

  it("refuses a GPU build node-llama-cpp does not ship, and a machine it has no build for, in one line", () => {
    expect(() => binaryPackages("darwin", "arm64", "cuda")).toThrow("node-llama-cpp has no cuda build of llama.cpp for darwin-arm64.");
    expect(() => binaryPackages("freebsd", "x64")).toThrow("node-llama-cpp has no prebuilt llama.cpp for freebsd-x64; run a model server instead (--base-url URL).");
  });

  it("is kept under XDG_DATA_HOME, else ~/.local/share", () => {
    expect(localRuntimeDir({ XDG_DATA_HOME: "/data", HOME: "/home/u" })).toBe("/data/toolbridge/runtime");
    expect(localRuntimeDir({ XDG_DATA_HOME: "relative", HOME: "/home/u" })).toBe("/home/u/.local/share/toolbridge/runtime");
  });
});

describe("installing llama.cpp's runtime with npm", () => {
  it("installs node-llama-cpp and the CPU build alone, without install scripts, into a 0700 directory, saying how it comes along", async () => {
    const npm = await writeFakeNpm(join(dir, "bin"), "install");
    const target = join(dir, "data", "toolbridge", "runtime");
    const progress: Array<[number, boolean]> = [];
    await installLocalRuntime({ dir: target, env: { PATH: `${npm.bin}:${process.env.PATH}` }, onProgress: (fetched, done) => progress.push([fetched, done]) });
    const args = await npm.args();
    expect(args?.slice(0, 3)).toEqual(["install", "--prefix", target]);
    expect(args).toContain("--omit=optional");
    expect(args).toContain("--ignore-scripts");
    expect(args?.filter((arg) => arg.includes("node-llama-cpp"))).toEqual(["node-llama-cpp@3.21.1", ...binaryPackages(process.platform, process.arch)]);
    expect(progress).toEqual([
      [1, false],
      [2, false],
      [2, true],
    ]);
    expect((await stat(target)).mode & 0o777).toBe(0o700);
    expect((await lstat(join(target, "node_modules", "node-llama-cpp"))).isSymbolicLink()).toBe(true);
  });

  it("says in one line why npm could not install it", async () => {
    const npm = await writeFakeNpm(join(dir, "bin"), "offline");
    const target = join(dir, "runtime");
    const failed = installLocalRuntime({ dir: target, env: { PATH: `${npm.bin}:${process.env.PATH}` } });
    await expect(failed).rejects.toThrow(
      `npm could not install node-llama-cpp into ${target} (exit 1: npm error request to https://registry.npmjs.org/node-llama-cpp failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org). Try again once the npm registry can be reached, or use a model server instead (--base-url URL, without --provider local).`,
    );
    await expect(failed).rejects.toBeInstanceOf(LlmError);
  });

  it("says what to run where npm is, when there is no npm on PATH", async () => {
    const target = join(dir, "runtime");
    await expect(installLocalRuntime({ dir: target, env: { PATH: join(dir, "nothing-here") } })).rejects.toThrow(
      `npm was not found on PATH, so node-llama-cpp cannot be installed: run \`npm install --prefix ${target} node-llama-cpp@3.21.1 ${binaryPackages(process.platform, process.arch).join(" ")}\` where npm is.`,
    );
  });

  it("refuses to install through a symbolic link", async () => {
    const npm = await writeFakeNpm(join(dir, "bin"), "install");
    await mkdir(join(dir, "elsewhere"));
    await symlink(join(dir, "elsewhere"), join(dir, "runtime"));
    await expect(installLocalRuntime({ dir: join(dir, "runtime"), env: { PATH: `${npm.bin}:${process.env.PATH}` } })).rejects.toThrow("is a symbolic link");
    expect(await npm.args()).toBeUndefined();
  });
});
