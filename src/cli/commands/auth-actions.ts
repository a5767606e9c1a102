/** What `toolbridge auth …` does; loaded only when one of them runs. */
import { loadConfig } from "../../config/load.js";
import { userOAuthDir } from "../../config/locate.js";
import { isStdioServer, type RemoteServerConfig } from "../../config/schema.js";
import { TokenStore } from "../../mcp/auth/token-store.js";
import { ReportedFailure, UsageError, warn, errorLine } from "../errors.js";
import { openInBrowser } from "../open-browser.js";
import { colorsFor } from "../render/colors.js";
import { renderTable } from "../render/table.js";

export interface AuthOptions {
  config?: string;
  json?: boolean;
}

/** The remote servers of the config (or the one named), which are the ones that can log in. */
function remoteServers(options: AuthOptions, server: string | undefined): Record<string, RemoteServerConfig> {
  const { config } = loadConfig({ file: options.config, cwd: process.cwd(), env: process.env });
  const remote = Object.fromEntries(
    Object.entries(config.mcpServers).filter((entry): entry is [string, RemoteServerConfig] => !isStdioServer(entry[1]) && !entry[1].disabled),
  );
  if (server === undefined) return remote;
  const one = remote[server];
  if (!one) {
    const why = server in config.mcpServers ? "is not an enabled remote (url) server" : "is not in the config";
    throw new UsageError(`server "${server}" ${why}; remote servers: ${Object.keys(remote).join(", ") || "none"}`);
  }
  return { [server]: one };
}

export interface LoginStatus {
  server: string;
  url: string;
  /** "logged in", "expired" (a refresh token may renew it) or "not logged in". */
  login: string;
  expiresAt?: string;
  scope?: string;
  issuer?: string;
}

/** What is stored for a server, without a token in it. */
function loginStatus(store: TokenStore, server: string, url: string, now = Date.now()): LoginStatus {
  const stored = store.read(server, url);
  const tokens = stored.tokens;
  const expired = stored.expiresAt !== undefined && stored.expiresAt <= now;
  return {
    server,
    url,
    login: tokens === undefined ? "not logged in" : expired ? (tokens.refresh_token ? "expired, renewable" : "expired") : "logged in",
    ...(stored.expiresAt !== undefined ? { expiresAt: new Date(stored.expiresAt).toISOString() } : {}),
    ...(tokens?.scope ? { scope: tokens.scope } : {}),
    ...(tokens?.issuer ? { issuer: tokens.issuer } : {}),
  };
}


/** Logs in through the browser to SERVER, or to every remote server that asks for a login. */
export async function login(server: string | undefined, options: AuthOptions): Promise<void> {
  const servers = remoteServers(options, server);
  const { Hub } = await import("../../mcp/hub.js");
  const hub = await Hub.connect(servers, { oauthDir: userOAuthDir(process.env) });
  let failed = false;
  try {
    for (const state of hub.servers()) {
      // A server named on the command line logs in again even when it need not (another account, more scope).
      if (!state.needsLogin && server === undefined) {
        if (state.status === "connected") process.stderr.write(`${state.name}: already logged in\n`);
        else warn(`server "${state.name}": ${state.error ?? state.status}`);
        continue;
      }
      try {
        await hub.login(state.name, (url) => openInBrowser(state.name, url));
        process.stderr.write(`${state.name}: logged in\n`);
      } catch (error) {
        warn(`could not log in to server "${state.name}": ${errorLine(error)}`);
        failed = true;
      }
    }
  } finally {
    await hub.close();
  }
  if (failed) throw new ReportedFailure();
}

/** Forgets the tokens and client registration kept for SERVER, or for every remote server. */
export async function logout(server: string | undefined, options: AuthOptions): Promise<void> {
  const store = new TokenStore(userOAuthDir(process.env));
  for (const [name, config] of Object.entries(remoteServers(options, server))) {
    process.stderr.write(`${name}: ${store.remove(name, config.url) ? "logged out" : "was not logged in"}\n`);
  }
}

/** Prints, per remote server, whether it is logged in, until when, and with which scope (never a token). */
export async function status(server: string | undefined, options: AuthOptions): Promise<void> {
  const store = new TokenStore(userOAuthDir(process.env));
  const statuses = Object.entries(remoteServers(options, server)).map(([name, config]) => loginStatus(store, name, config.url));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
    return;
  }
  if (statuses.length === 0) {
    process.stderr.write("no remote servers configured\n");
    return;
  }
  const c = colorsFor(process.stdout, process.env);
  process.stdout.write(
    renderTable(
      [
        { header: "NAME", value: (s: LoginStatus) => s.server, color: (text) => c.bold(text) },
        { header: "LOGIN", value: (s) => s.login, color: (text, s) => (s.login === "logged in" ? c.green(text) : c.yellow(text)) },
        { header: "EXPIRES", value: (s) => s.expiresAt ?? "" },
        { header: "SCOPE", value: (s) => s.scope ?? "" },
        { header: "ISSUER", value: (s) => s.issuer ?? "", shrink: true },
      ],
      statuses,
      { colors: c, ...(process.stdout.isTTY && process.stdout.columns ? { maxWidth: process.stdout.columns } : {}) },
    ),
  );
}
