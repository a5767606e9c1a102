/**
 * TEST INFRASTRUCTURE ONLY: the two scripted vLLM servers a strict-mode test needs, started
 * once for the file (beforeAll) and closed after it: `modern` takes `strict` on tools, `old`
 * refuses it as vLLM 0.9 and older do.
 */
import { afterAll, beforeAll } from "vitest";
import { startVllmServer, type VllmServer } from "./vllm-server.js";

export function useStrictVllmServers(): { readonly modern: VllmServer; readonly old: VllmServer } {
  const servers: { modern?: VllmServer; old?: VllmServer } = {};
  beforeAll(async () => {
    [servers.modern, servers.old] = await Promise.all([startVllmServer(), startVllmServer({ strictTools: false })]);
  });
  afterAll(async () => {
    await Promise.all([servers.modern?.close(), servers.old?.close()]);
  });
  return {
    get modern() {
      return servers.modern!;
    },
    get old() {
      return servers.old!;
    },
  };
}
