import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.{ts,tsx}"],
    globalSetup: ["test/support/node-releases.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Many files drive real processes, tmux and Chromium on two shared cores: a test that fails once is run once
    // more. CI's summary (.ci/summary.cjs) names every test that needed it, so a flake is seen and fixed, never hidden.
    retry: 1,
    // Spawned MCP servers and CLI processes dominate, and they wait as much as they compute: on two cores, three
    // files at once took the suite from 839 s to 756 s with no failure and no retry.
    pool: "forks",
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
  },
});
