/**
 * The hub's conformance client (conformance-client.ts) behind a slot of the test's gate (startGate in
 * conformance.ts), for a suite run that starts every scenario's client at once. The slot is taken
 * before the hub's modules are loaded: dozens of clients loading them together starve the few that
 * run (and the suite's own scenario servers) past their time limits. Held until the client is done.
 */
const gate = process.env.TOOLBRIDGE_CONFORMANCE_GATE;
if (!gate) throw new Error("conformance-slot.ts runs under a gate: TOOLBRIDGE_CONFORMANCE_GATE names it");
const held = new AbortController();
const response = await fetch(gate, { signal: held.signal });
await response.body?.getReader().read();
try {
  await import("./conformance-client.js");
} finally {
  held.abort();
}
