import type { Status } from "../api.js";
import { Icon } from "./Icon.js";

/** Each server: status, what it offers, its tools, and the last lines it logged; then the roots the servers are shown. */
export function ServersPanel({ status, onClose, onRefresh }: { status: Status; onClose: () => void; onRefresh: () => void }) {
  return (
    <aside class="panel" id="servers" aria-label="Servers">
      <div class="panel-head">
        <h2>Servers</h2>
        <button type="button" class="btn small" onClick={onRefresh}>
          Refresh
        </button>
        <button type="button" class="icon-btn" aria-label="Close servers" onClick={onClose}>
          <Icon name="close" />
        </button>
      </div>
      <ul class="server-list">
        {status.servers.map((server) => (
          <li key={server.name} class="server">
            <div class="server-head">
              <span class={`status ${server.status}`}>{server.status}</span>
              <strong>{server.name}</strong>
              {server.serverName && (
                <span class="muted">
                  {server.serverName} {server.serverVersion}
                </span>
              )}
            </div>
            <p class="muted">
              {server.toolCount} tools · {server.resourceCount} resources · {server.promptCount} prompts
            </p>
            {server.error && <p class="error-text">{server.error}</p>}
            <ul class="tool-list">
              {status.tools
                .filter((tool) => tool.server === server.name)
                .map((tool) => (
                  <li key={tool.name}>
                    <code>{tool.name}</code>
                    {tool.appUri && <span class="chip">app</span>} <span class="muted">{tool.description}</span>
                  </li>
                ))}
            </ul>
            <details class="server-log">
              <summary>Recent log lines ({server.log.length})</summary>
              {server.log.length > 0 ? <pre>{server.log.join("\n")}</pre> : <p class="muted">Nothing logged.</p>}
            </details>
          </li>
        ))}
      </ul>
      <h3>Roots</h3>
      {status.roots.length > 0 ? (
        <ul class="roots">
          {status.roots.map((root) => (
            <li key={root.uri}>
              <code>{root.uri}</code> {root.name && <span class="muted">{root.name}</span>}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No roots are shared with the servers.</p>
      )}
      <p class="muted">
        Tools: {status.toolMode} calling · approval: {status.approve}
      </p>
    </aside>
  );
}
