// The loopback preload must hold on every supported Node: third-party servers read address() right after listen().
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { nodeBinary, OTHER_MAJORS } from "./node-releases.js";

const PRELOAD = fileURLToPath(new URL("./loopback.cjs", import.meta.url));
const PROBE = `
const net = require("node:net");
const forms = [[0], [], [0, "0.0.0.0"], [0, "::"], [{ port: 0 }], [{ port: 0, host: "0.0.0.0" }]];
const seen = [];
for (const args of forms) {
  const server = net.createServer();
  server.listen(...args);
  const address = server.address();
  seen.push(address && address.address);
  server.close();
}
console.log(JSON.stringify(seen));
`;

describe.each([process.execPath, ...OTHER_MAJORS.map(nodeBinary)])("the loopback preload on %s", (node) => {
  it("binds 127.0.0.1 and has the address at once for every form of listen() without a host", async () => {
    const { stdout } = await promisify(execFile)(node, ["--require", PRELOAD, "-e", PROBE]);
    expect(JSON.parse(stdout)).toEqual(Array(6).fill("127.0.0.1"));
  });
});
