import { approvalMode } from "../chat/session.js";
import { UsageError } from "../errors.js";
import { openHub } from "../open-hub.js";

/**
 * `toolbridge serve hub`: every configured server's tools, resources and prompts as one MCP
 * server over stdio, with the approval policy applied (nobody can be asked here).
 */
export async function serveHub(options: { http?: unknown; config?: string; root?: string[]; approve?: string }): Promise<void> {
  if (options.http) throw new UsageError("serve hub runs over stdio; for HTTP, `toolbridge gateway` serves the hub at /mcp");
  const approve = options.approve === undefined ? undefined : approvalMode(options.approve);
  const [{ createHubServer, publishHubChanges, resourceOwners, serverNotifier }, { serveResourceListens }, { serveStdio }, { turnSettings }, { sessionSettings }, { TaskStore, serveTaskListens }] = await Promise.all([
    import("../../gateway/hub-server.js"),
    import("../../gateway/hub-server-subscriptions.js"),
    import("../../servers/stdio.js"),
    import("../../gateway/settings.js"),
    import("../../host/session-settings.js"),
    import("../../mcp/tasks/ext-tasks-server.js"),
  ]);
  // The servers' failures go to stderr; stdout belongs to the protocol.
  const opened = await openHub({ onSignal: "abort", ...(options.config ? { config: options.config } : {}), ...(options.root ? { roots: options.root } : {}) });
  // The tasks of every server instance below (a task started in one request is polled in the next).
  const tasks = new TaskStore();
  try {
    const settings = turnSettings(opened.config, sessionSettings(opened.config, {}, process.env), approve ? { approve } : {});
    // One server per connection (and one for a 2026 probe, closed again): each hears the servers' changes while open.
    // A subscriptions/listen naming tasks also hears of their status changes, which the SDK's entry knows nothing of;
    // one naming resources names only those this caller may read, held at their servers while it is open.
    const handle = await serveStdio(
      () => {
        const server = createHubServer(opened.hub, settings, tasks);
        const unpublish = publishHubChanges(opened.hub, serverNotifier(server));
        server.server.onclose = unpublish;
        return server;
      },
      (wire) => {
        serveTaskListens(wire, tasks);
        serveResourceListens(wire, opened.hub, resourceOwners(opened.hub, settings));
      },
    );
    const stopped = new Promise<void>((resolve) => opened.signal.addEventListener("abort", () => resolve(), { once: true }));
    await Promise.race([stopped, handle.closed]);
    await handle.close();
  } finally {
    tasks.close();
    await opened.close();
  }
}
