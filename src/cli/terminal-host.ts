import { HostSession, type HostSessionOptions } from "../host/host-session.js";
import { openHub, type HubHandle, type OpenHubOptions } from "./open-hub.js";

export interface TerminalHost {
  session: HostSession;
  /** The process's signals while the session is open: its signal, and the exit code of the one that came. */
  signals: Pick<HubHandle<unknown>, "signal" | "interruptedWith">;
}

/** The host's session (src/host/host-session.ts) started as a command starts it: signals handled as openHub handles them, warnings on stderr. */
export async function openTerminalHost(options: HostSessionOptions, signals: Pick<OpenHubOptions, "onSignal" | "leaveSigint">): Promise<TerminalHost> {
  let handle: HubHandle<unknown> | undefined;
  const session = await HostSession.open(options, async (hostOptions, alongside) => (handle = await openHub({ ...hostOptions, ...signals }, alongside)));
  return { session, signals: handle as HubHandle<unknown> };
}
