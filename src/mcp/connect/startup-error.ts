import { SdkError, SdkErrorCode, SdkHttpError, UnsupportedProtocolVersionError } from "@modelcontextprotocol/client";
import { isStdioServer, type RemoteServerConfig, type ServerConfig } from "../../config/schema.js";
import { authenticationRequired, type OAuthSession } from "../auth/session.js";
import { HubError } from "../errors.js";
import { describe } from "./describe-error.js";
import { probeFailure } from "./era.js";

/** Why server `name` failed to start, in one line a user can act on (its state's error). */
export function describeStartupError(error: unknown, name: string, config: ServerConfig, auth: OAuthSession | undefined): string {
  error = probeFailure(error);
  // Already one line naming this server (a listing over its limits).
  if (error instanceof HubError && error.server === name) return error.message;
  const authFailure = auth?.describeFailure(error);
  if (authFailure !== undefined) return authFailure;
  // Only a 401 asks for credentials: a 403 may be anything the server refuses (its Host allow-list against DNS
  // rebinding, an IP filter), so its status and words are quoted below as they are.
  if (error instanceof SdkHttpError && error.status === 401) {
    return authenticationRequired(error.status, error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, ""), "the server refused it");
  }
  if (isStdioServer(config) && isErrnoException(error) && error.code === "ENOENT") {
    return `command not found: ${config.command}`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    return isStdioServer(config) ? "the process exited during startup" : "the server closed the connection during startup";
  }
  // v2 asked once more in the version the server named: refused again, the connection is given up.
  if (error instanceof UnsupportedProtocolVersionError) {
    const supported = error.supported.slice(0, 5).join(", ").slice(0, 200);
    error = new Error(`the server refused the protocol version again (-32022) after one retry in a version it names; it names: ${supported}`);
  }
  if (!isStdioServer(config)) return `cannot connect to ${(config as RemoteServerConfig).url}: ${describe(error)}`;
  return describe(error);
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}
