/**
 * What the person allowed "for this session" in this tab, kept by the page (the gateway remembers nothing of one
 * client for another): tools by the fingerprint of their definition (a changed tool is asked about again), servers
 * whose every tool may run, servers that may use the model. Each is still answered through the gateway, which takes
 * it only from the key its question was asked of, after its policy (a deny rule is never asked). Bound to the key
 * they were given under: a new key starts with none.
 */
const STORES = { tools: "toolbridge.allowedTools", servers: "toolbridge.allowedServers", sampling: "toolbridge.allowedSampling" } as const;

export type GrantKind = keyof typeof STORES;

export function granted(kind: GrantKind): Set<string> {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(STORES[kind]) ?? "[]") as string[]);
  } catch {
    return new Set();
  }
}

export function grant(kind: GrantKind, value: string): void {
  sessionStorage.setItem(STORES[kind], JSON.stringify([...granted(kind), value]));
}

/** Every grant of this tab forgotten: another key was given. */
export function forgetGrants(): void {
  for (const store of Object.values(STORES)) sessionStorage.removeItem(store);
}
