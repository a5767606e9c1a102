import { Argument, InvalidArgumentError, type Command } from "commander";
import { isLoopbackHost } from "../../servers/host-check.js";
import { BUNDLED_SERVER_NAMES, type BundledServerName } from "../../servers/names.js";
import { action, UsageError, warn } from "../errors.js";
import { ROOT_OPTION } from "./hub-commands.js";

/** Where `serve --http` reads its bearer token when `--token` is not given (keeps it out of `ps`). */
export const TOKEN_ENV = "TOOLBRIDGE_HTTP_TOKEN";

const HUB = "hub";

export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `--http [host:]port`: "3000", "0.0.0.0:3000", "[::1]:3000". */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d+)$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) throw new InvalidArgumentError("Expected [host:]port, e.g. 3000 or 127.0.0.1:3000 (port 0 picks a free one).");
  const host = match[1]?.replace(/^\[(.*)\]$/, "$1") ?? "127.0.0.1";
  return { host, port };
}

function parseHostList(value: string): string[] {
  return value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

interface ServeOptions {
  http?: ListenAddress;
  allowedHosts?: string[];
  token?: string;
  config?: string;
  /** `--root DIR`, repeatable (hub). */
  root?: string[];
  approve?: string;
}

/** The token clients must send, if any; refuses a non-loopback address without one. */
function bearerToken(http: ListenAddress, flag: string | undefined): string | undefined {
  const token = flag ?? (process.env[TOKEN_ENV] || undefined);
  if (isLoopbackHost(http.host)) return token;
  if (token === undefined) {
    throw new UsageError(`--http ${http.host}: other machines can reach this address; give a bearer token with --token or ${TOKEN_ENV}`);
  }
  warn(`serving on ${http.host}, reachable from the network: clients must send Authorization: Bearer <token>`);
  return token;
}

/** Runs until the client leaves (stdio) or SIGINT/SIGTERM arrives, then closes cleanly. */
async function serve(name: BundledServerName | typeof HUB, options: ServeOptions): Promise<void> {
  if (name === HUB) {
    await (await import("./serve-hub.js")).serveHub(options);
    return;
  }
  // Loaded here, not at the top: every other command, and a hub starting this server, would pay for them.
  const factory = (await import("../../servers/bundled.js")).BUNDLED_SERVERS[name];
  const http = options.http;
  const token = http ? bearerToken(http, options.token) : undefined;
  const handle = http
    ? await (await import("../../servers/http.js"))
        .serveHttp(factory, { ...http, allowedHosts: options.allowedHosts, ...(token ? { token } : {}) })
        .catch((error: unknown) => {
          throw listenError(error, http);
        })
    : await (await import("../../servers/stdio.js")).serveStdio(factory);

  let stopped: () => void = () => {};
  const stop = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  process.once("SIGINT", stopped);
  process.once("SIGTERM", stopped);

  if ("url" in handle) {
    // stderr: in every mode stdout belongs to the protocol or to whoever parses our output.
    process.stderr.write(`toolbridge ${name} server listening on ${handle.url}\n`);
    await stop;
  } else {
    if (process.stdin.isTTY) process.stderr.write(`toolbridge ${name} server on stdio; Ctrl+C to stop\n`);
    await Promise.race([stop, handle.closed]);
  }
  process.off("SIGINT", stopped);
  process.off("SIGTERM", stopped);
  await handle.close();
}

/** Why the address cannot be listened on, in one line. */
function listenError(error: unknown, { host, port }: ListenAddress): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (code === "EADDRINUSE") return new Error(`cannot listen on ${where}: the port is in use (choose another, or 0 for a free one)`);
  if (code === "EADDRNOTAVAIL") return new Error(`cannot listen on ${where}: ${host} is not an address of this machine`);
  if (code === "EACCES") return new Error(`cannot listen on ${where}: permission denied (ports below 1024 need privileges)`);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new Error(`cannot listen on ${where}: no such host ${host}`);
  return error instanceof Error ? error : new Error(String(error));
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("Run a bundled MCP server over stdio, or over Streamable HTTP with --http; `hub` serves every configured server's tools as one (stdio)")
    .addArgument(new Argument("<server>", "which server").choices([...BUNDLED_SERVER_NAMES, HUB]))
    .option("--http <[host:]port>", "serve Streamable HTTP at /mcp on this address (host defaults to 127.0.0.1)", parseListenAddress)
    .option("--allowed-hosts <names>", "comma-separated extra hostnames accepted in Host/Origin headers with --http", parseHostList)
    .option("--token <token>", `with --http, require Authorization: Bearer <token> (default: $${TOKEN_ENV}; required off loopback)`)
    .option("-c, --config <file>", "hub: the config file (default: ./toolbridge.json, then the user config)")
    .option(ROOT_OPTION[0], `hub: ${ROOT_OPTION[1]}`, ROOT_OPTION[2])
    .option("--approve <mode>", "hub: which tools run: ask (trusted servers and listed tools only), readonly, all (default: gateway.approve, else ask)")
    .action(
      action(async (server: BundledServerName | typeof HUB, options: ServeOptions) => {
        await serve(server, options);
      }),
    );
}
