import type { Status } from "../api.js";
import { themeOf } from "../theme.js";
import { Icon } from "./Icon.js";

function short(n: number): string {
  return n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(n);
}

/** The bar: conversations (on a phone), the model and how full its context is, servers, theme, export, new chat. */
export function Header(props: {
  status: Status | undefined;
  model: string;
  onModel: (id: string) => void;
  usedTokens: number | undefined;
  contextLength: number | undefined;
  onMenu: () => void;
  menuOpen: boolean;
  onServers: () => void;
  serversOpen: boolean;
  theme: string | undefined;
  onTheme: () => void;
  onExport: (() => void) | undefined;
  onNew: () => void;
}) {
  const { status, model, usedTokens, contextLength } = props;
  const models = status?.models.map((m) => m.id) ?? (model ? [model] : []);
  const share = usedTokens !== undefined && contextLength ? Math.min(1, usedTokens / contextLength) : undefined;
  const connected = status?.servers.filter((server) => server.status === "connected").length ?? 0;
  return (
    <header class="topbar">
      <button type="button" class="icon-btn menu-btn" aria-label="Conversations" aria-expanded={props.menuOpen} onClick={props.onMenu}>
        <Icon name="menu" />
      </button>
      <h1 class="brand">toolbridge</h1>
      <div class="model">
        <label for="model" class="visually-hidden">
          Model
        </label>
        <select id="model" value={model} onChange={(event) => props.onModel((event.target as HTMLSelectElement).value)}>
          {models.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        {contextLength !== undefined && (
          <span class="gauge" title={`context: ${usedTokens ?? 0} of ${contextLength} tokens used by the last turn`}>
            <meter min={0} max={1} low={0.6} high={0.85} optimum={0} value={share ?? 0} aria-label="Context used" />
            <span class="gauge-text">
              {short(usedTokens ?? 0)}/{short(contextLength)}
            </span>
          </span>
        )}
      </div>
      <span class="spacer" />
      {status && (
        <span class="badge" id="tool-mode" title="How tools are called, and who approves them">
          tools: {status.toolMode} · approve: {status.approve}
        </span>
      )}
      <button type="button" class="icon-btn" aria-label={status ? `Servers ${connected}/${status.servers.length} connected` : "Servers"} title="Servers" aria-expanded={props.serversOpen} aria-controls="servers" onClick={props.onServers}>
        <Icon name="server" />
        {status && <span class="count">{connected}/{status.servers.length}</span>}
      </button>
      <button type="button" class="icon-btn" aria-label={`Switch to ${isDark(props.theme) ? "light" : "dark"} theme`} title="Theme" onClick={props.onTheme}>
        <Icon name={isDark(props.theme) ? "sun" : "moon"} />
      </button>
      {props.onExport && (
        <button type="button" class="icon-btn hide-phone" aria-label="Export" title="Export the conversation (JSON lines)" onClick={props.onExport}>
          <Icon name="download" />
        </button>
      )}
      <button type="button" class="icon-btn" aria-label="New chat" title="New chat (Ctrl+Shift+O)" onClick={props.onNew}>
        <Icon name="plus" />
      </button>
    </header>
  );
}

function isDark(theme: string | undefined): boolean {
  return themeOf(theme) === "dark";
}
