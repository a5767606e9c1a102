import { LOG_LEVEL_META_KEY } from "@modelcontextprotocol/server";
import type { LoggingLevel, LoggingMessageNotification, McpServer, ServerContext } from "@modelcontextprotocol/server";
import type { HubEvent } from "../mcp/types.js";

/** The log messages of one server passed on to one client at once; past them, LOG_RATE_PER_SECOND. */
export const LOG_BURST = 50;
export const LOG_RATE_PER_SECOND = 10;

type ServerLogEvent = Extract<HubEvent, { type: "log" }>;
type LogParams = LoggingMessageNotification["params"];

const SEVERITY: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Where a relay's messages go: the client's level decides what is sent at all. */
interface LogSink {
  threshold: LoggingLevel | undefined;
  send(params: LogParams): void;
}

/**
 * The servers' log messages (`notifications/message`, as the hub got them: at or above each server's configured
 * logLevel, one bounded line) passed on to one client of the hub served as one MCP server: only those of servers the
 * caller may see something of, tagged with the server (logger `server` or `server/logger`), at or above the level the
 * client asked for, and at most LOG_BURST of one server at once and LOG_RATE_PER_SECOND after, so that a server
 * flooding its log cannot flood the client; one line says when a server's messages start being dropped, and one how
 * many were once they pass again.
 *
 * The client's level is applied here, not relayed: the servers behind the hub are shared by all its clients.
 * A 2025-11-25 client sets it with `logging/setLevel` (until then it gets every message); a 2026-07-28 client names
 * it in each request, and hears only during its requests, of the server the request went to.
 */
export class HubLogRelay {
  private level: LoggingLevel | undefined;
  private readonly budgets = new Map<string, LogBudget>();
  /** A 2025-11-25 connection that lives on (stdio): every message goes out as it comes, not only during requests. */
  private connection: ((params: LogParams) => void) | undefined;

  constructor(
    private readonly hub: { on?: (listener: (event: HubEvent) => void) => () => void },
    private readonly sees: (server: string) => boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `logging/setLevel` from a 2025-11-25 client. */
  setLevel(level: LoggingLevel): void {
    this.level = level;
  }

  /** From a hub served over a 2025-11-25 connection that outlives each request (`serve hub`): every message goes out as it comes. */
  forwardAll(mcp: McpServer): void {
    this.connection = (params) => void mcp.server.sendLoggingMessage(params).catch(() => undefined);
  }

  /** A log event of the hub's, sent on the connection where one forwards every message (see forwardAll). */
  onEvent(event: ServerLogEvent): void {
    const send = this.connection;
    if (send) this.pass(event, { threshold: this.level, send });
  }

  /**
   * `work`, a request relayed to `server`, with that server's log messages sent meanwhile on the request's own
   * stream: where no connection outlives the request (a 2026-07-28 request; `/mcp`, a server per request).
   */
  async during<T>(ctx: ServerContext, server: string, work: () => Promise<T>): Promise<T> {
    const modern = ctx.mcpReq.envelope !== undefined;
    if ((this.connection && !modern) || !this.hub.on) return work();
    const threshold = modern ? ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY] as LoggingLevel | undefined) : this.level;
    // A 2026-07-28 request that names no level asks for no messages.
    if (modern && threshold === undefined) return work();
    const sink: LogSink = { threshold, send: (params) => void ctx.mcpReq.notify({ method: "notifications/message", params }).catch(() => undefined) };
    const stop = this.hub.on((event) => {
      if (event.type === "log" && event.server === server) this.pass(event, sink);
    });
    try {
      return await work();
    } finally {
      stop();
    }
  }

  private pass(event: ServerLogEvent, sink: LogSink): void {
    const wanted = (level: LoggingLevel): boolean => sink.threshold === undefined || SEVERITY.indexOf(level) >= SEVERITY.indexOf(sink.threshold);
    if (!this.sees(event.server) || !wanted(event.level)) return;
    const send = (params: LogParams): void => {
      if (wanted(params.level)) sink.send(params);
    };
    const verdict = this.budgetOf(event.server).take(this.now());
    if (verdict === "first-dropped") {
      send(notice(`server "${event.server}" logs more than ${LOG_BURST} messages at once or ${LOG_RATE_PER_SECOND} a second: its messages are dropped here until it slows down`));
    }
    if (typeof verdict !== "number") return;
    if (verdict > 0) send(notice(`dropped ${verdict} log message${verdict === 1 ? "" : "s"} of server "${event.server}" (over ${LOG_RATE_PER_SECOND} a second)`));
    send({ level: event.level, logger: event.logger !== undefined ? `${event.server}/${event.logger}` : event.server, data: event.text });
  }

  private budgetOf(server: string): LogBudget {
    let budget = this.budgets.get(server);
    if (!budget) this.budgets.set(server, (budget = new LogBudget(this.now())));
    return budget;
  }
}

/** The hub's own line about a server's log, as a message of its own. */
function notice(text: string): LogParams {
  return { level: "warning", logger: "toolbridge", data: text };
}

/** A token bucket: LOG_BURST tokens, LOG_RATE_PER_SECOND more a second. */
class LogBudget {
  private tokens = LOG_BURST;
  private dropped = 0;

  constructor(private at: number) {}

  /** Passed (the number dropped since the last one passed), or dropped ("first-dropped" the first of a run). */
  take(now: number): number | "dropped" | "first-dropped" {
    this.tokens = Math.min(LOG_BURST, this.tokens + ((now - this.at) * LOG_RATE_PER_SECOND) / 1000);
    this.at = now;
    if (this.tokens < 1) return this.dropped++ === 0 ? "first-dropped" : "dropped";
    this.tokens -= 1;
    const dropped = this.dropped;
    this.dropped = 0;
    return dropped;
  }
}
