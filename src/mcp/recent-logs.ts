/**
 * The last lines each server logged (`notifications/message`), each cut to one bounded line:
 * what a status view shows of a server's log. Kept by the hub from its first connection on, so
 * what a server logs as it connects (its roots received, a warning at start) is not lost to a
 * viewer that subscribes later.
 */

const LINES_PER_SERVER = 50;
const MAX_LINE_CHARS = 500;
const MAX_SERVERS = 200;

export class RecentLogs {
  private readonly lines = new Map<string, string[]>();

  add(server: string, line: string): void {
    let kept = this.lines.get(server);
    if (!kept) {
      if (this.lines.size >= MAX_SERVERS) return;
      kept = [];
      this.lines.set(server, kept);
    }
    const oneLine = line.replace(/\s+/g, " ");
    kept.push(oneLine.length > MAX_LINE_CHARS ? `${oneLine.slice(0, MAX_LINE_CHARS)}…` : oneLine);
    if (kept.length > LINES_PER_SERVER) kept.shift();
  }

  of(server: string): string[] {
    return [...(this.lines.get(server) ?? [])];
  }
}
