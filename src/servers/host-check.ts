import type { IncomingHttpHeaders } from "node:http";
import { isIPv6 } from "node:net";

// Protection against DNS rebinding: a web page on evil.example whose name is made to
// resolve to 127.0.0.1 can reach a local server, but its requests still carry
// Host: evil.example (and Origin: http://evil.example). Only names that really mean
// this machine, or that the user chose, are let through.

export interface HostPolicy {
  /** Hostnames as URL parsing spells them: lower case, IPv6 in brackets. */
  hostnames: ReadonlySet<string>;
  port: number;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** A host as it must appear in a URL: an IPv6 address goes in brackets. */
export function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${urlHost(host)}`).hostname;
  } catch {
    return undefined;
  }
}

/** Whether binding this address keeps the server on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const name = hostnameOf(host);
  return name === "localhost" || name === "[::1]" || (name !== undefined && /^127\.\d+\.\d+\.\d+$/.test(name));
}

/** Loopback names, the bound host and any extra names the user allows, at the port listened on. */
export function hostPolicy(boundHost: string, port: number, extraHosts: readonly string[] = []): HostPolicy {
  const names = [...LOOPBACK_NAMES, boundHost, ...extraHosts].map(hostnameOf).filter((name): name is string => name !== undefined);
  return { hostnames: new Set(names), port };
}

/** Why the request must be refused, or undefined when its Host and Origin are acceptable. */
export function rejectForeignRequest(headers: IncomingHttpHeaders, policy: HostPolicy): string | undefined {
  const host = headers.host;
  if (!host) return "Missing Host header";
  let hostUrl: URL;
  try {
    hostUrl = new URL(`http://${host}`);
  } catch {
    return `Invalid Host header: ${host}`;
  }
  if (!policy.hostnames.has(hostUrl.hostname) || Number(hostUrl.port || 80) !== policy.port) return `Host not allowed: ${host}`;

  // Browsers send Origin on cross-origin requests. A page on another port of this machine is
  // another site (any local program's page, a dev server): only this server's own pages, at its
  // own port, may call it; other origins are let in by the caller's configuration, if at all.
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    return `Origin not allowed: ${origin}`;
  }
  const originPort = Number(originUrl.port || (originUrl.protocol === "https:" ? 443 : 80));
  return policy.hostnames.has(originUrl.hostname) && originPort === policy.port ? undefined : `Origin not allowed: ${origin}`;
}
