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
    // Spawned MCP servers and CLI processes dominate; two cores run two files at once.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
