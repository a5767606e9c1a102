import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.{ts,tsx}"],
    globalSetup: ["test/support/node-releases.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Spawned MCP servers and CLI processes dominate; two cores run two files at once.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
