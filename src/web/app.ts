import type { Message } from "../llm/types.js";
import { answerApproval, apiKey, exportTranscript, fetchStatus, runTurn, setApiKey, Unauthorized, type Status, type TurnEvent } from "./api.js";
import { escapeHtml } from "./markdown.js";
import { loadConversations, newConversation, saveConversations, type Conversation } from "./store.js";
import { itemsOf, renderItems, type Item, type ToolCallView } from "./view.js";

/** The web chat: one page, its state here, rendered from the stored messages plus the turn in progress. */

const $ = <T extends HTMLElement>(selector: string): T => document.querySelector(selector) as T;
const log = $<HTMLElement>("#log");
const live = $<HTMLElement>("#live");
const input = $<HTMLTextAreaElement>("#input");
const send = $<HTMLButtonElement>("#send");
const stop = $<HTMLButtonElement>("#stop");
const modelPicker = $<HTMLSelectElement>("#model");
const toolMode = $<HTMLElement>("#tool-mode");
const serversPanel = $<HTMLElement>("#servers");
const list = $<HTMLElement>("#conversations");
const notice = $<HTMLElement>("#notice");

let conversations = loadConversations();
let current: Conversation | undefined = conversations[0];
let status: Status | undefined;
let running: AbortController | undefined;
let liveItems: Item[] = [];
let frame = 0;

function showNotice(text: string): void {
  notice.textContent = text;
  notice.hidden = text === "";
}

function renderList(): void {
  list.innerHTML = conversations
    .map((c) => `<li><button type="button" class="conv${c.id === current?.id ? " current" : ""}" data-id="${escapeHtml(c.id)}"${c.id === current?.id ? ' aria-current="true"' : ""}>${escapeHtml(c.title)}</button></li>`)
    .join("");
}

function renderLog(): void {
  log.innerHTML = renderItems(itemsOf(current?.messages ?? []));
  renderList();
}

/** The turn in progress, redrawn at most once a frame however fast the model streams. */
function renderLive(): void {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    live.innerHTML = renderItems(liveItems);
    live.scrollIntoView({ block: "end" });
  });
}

function renderStatus(): void {
  if (!status) return;
  const selected = current?.model ?? status.model;
  modelPicker.innerHTML = status.models.map((id) => `<option${id === selected ? " selected" : ""}>${escapeHtml(id)}</option>`).join("");
  toolMode.textContent = `tools: ${status.toolMode} · approve: ${status.approve}`;
  serversPanel.innerHTML =
    `<h2>Servers</h2><ul>` +
    status.servers
      .map((server) => {
        const tools = status!.tools.filter((tool) => tool.server === server.name);
        return (
          `<li><span class="status ${escapeHtml(server.status)}">${escapeHtml(server.status)}</span> <b>${escapeHtml(server.name)}</b>` +
          (server.error ? `<div class="error">${escapeHtml(server.error)}</div>` : "") +
          `<ul>${tools.map((tool) => `<li title="${escapeHtml(tool.description ?? "")}">${escapeHtml(tool.name)}</li>`).join("")}</ul></li>`
        );
      })
      .join("") +
    `</ul>`;
}

async function loadStatus(): Promise<void> {
  try {
    status = await fetchStatus();
    renderStatus();
    showNotice("");
  } catch (error) {
    if (error instanceof Unauthorized) askForKey();
    else showNotice(error instanceof Error ? error.message : String(error));
  }
}

function askForKey(): void {
  const dialog = $<HTMLDialogElement>("#key-dialog");
  if (!dialog.open) dialog.showModal();
}

function persist(): void {
  if (!current) return;
  current.updatedAt = Date.now();
  conversations = [current, ...conversations.filter((c) => c.id !== current!.id)];
  saveConversations(conversations);
}

function currentAssistant(): Extract<Item, { role: "assistant" }> {
  const last = liveItems.at(-1);
  if (last?.role === "assistant") return last;
  const item: Item = { role: "assistant", text: "", reasoning: "", toolCalls: [] };
  liveItems.push(item);
  return item;
}

function findCall(id: string): ToolCallView | undefined {
  for (const item of liveItems) if (item.role === "assistant") for (const call of item.toolCalls) if (call.id === id) return call;
  return undefined;
}

function onEvent(event: TurnEvent, conversation: Conversation): void {
  switch (event.type) {
    case "tool-mode":
      if (status) toolMode.textContent = `tools: ${event.mode} · approve: ${status.approve}`;
      return;
    case "model-request":
      liveItems.push({ role: "assistant", text: "", reasoning: "", toolCalls: [] });
      break;
    case "text-delta":
      currentAssistant().text += event.text;
      break;
    case "reasoning-delta":
      currentAssistant().reasoning += event.text;
      break;
    case "tool-call-started":
      currentAssistant().toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
      break;
    case "tool-call-finished": {
      const call = findCall(event.id);
      if (call) Object.assign(call, { summary: event.summary, outcome: event.outcome, isError: event.isError, approvalId: undefined });
      break;
    }
    case "approval": {
      const call = findCall(event.callId);
      if (call) call.approvalId = event.id;
      break;
    }
    case "notice":
      showNotice(event.message);
      return;
    case "error":
      showNotice(event.error.message);
      return;
    case "turn-end":
      conversation.messages.push(...event.messages);
      if (event.error) showNotice(event.error.message);
      return;
    default:
      return;
  }
  renderLive();
}

async function sendMessage(): Promise<void> {
  const text = input.value.trim();
  if (text === "" || running) return;
  if (!current) {
    current = newConversation(modelPicker.value || status?.model || "");
    conversations.unshift(current);
  }
  const conversation = current;
  conversation.model = modelPicker.value || conversation.model;
  if (conversation.messages.length === 0) conversation.title = text.slice(0, 60);
  const history: Message[] = [...conversation.messages];
  input.value = "";
  liveItems = [{ role: "user", content: text }];
  renderList();
  renderLive();
  running = new AbortController();
  send.hidden = true;
  stop.hidden = false;
  showNotice("");
  try {
    await runTurn({ model: conversation.model, history, input: text }, (event) => onEvent(event, conversation), running.signal);
  } catch (error) {
    if (error instanceof Unauthorized) askForKey();
    else if (!running.signal.aborted) showNotice(error instanceof Error ? error.message : String(error));
    // What the person wrote is kept even when the turn did not finish.
    if (conversation.messages.length === history.length) conversation.messages.push({ role: "user", content: text });
  } finally {
    running = undefined;
    send.hidden = false;
    stop.hidden = true;
    liveItems = [];
    live.innerHTML = "";
    persist();
    if (current === conversation) renderLog();
    input.focus();
  }
}

async function download(): Promise<void> {
  if (!current) return;
  const text = await exportTranscript(current.model, current.messages);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  link.download = `${current.title.replace(/[^\w.-]+/g, "-").slice(0, 40) || "conversation"}.jsonl`;
  link.click();
  URL.revokeObjectURL(link.href);
}

input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void sendMessage();
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && running) running.abort();
});
send.addEventListener("click", () => void sendMessage());
stop.addEventListener("click", () => running?.abort());
$<HTMLButtonElement>("#new").addEventListener("click", () => {
  if (running) return;
  current = undefined;
  renderLog();
  input.focus();
});
$<HTMLButtonElement>("#export").addEventListener("click", () => void download().catch((error: unknown) => showNotice(String(error))));
$<HTMLButtonElement>("#toggle-servers").addEventListener("click", (event) => {
  serversPanel.hidden = !serversPanel.hidden;
  (event.currentTarget as HTMLButtonElement).setAttribute("aria-expanded", String(!serversPanel.hidden));
});
modelPicker.addEventListener("change", () => {
  if (current) current.model = modelPicker.value;
});
list.addEventListener("click", (event) => {
  const id = (event.target as HTMLElement).closest<HTMLElement>("[data-id]")?.dataset.id;
  if (!id || running) return;
  current = conversations.find((c) => c.id === id);
  renderLog();
  renderStatus();
});
live.addEventListener("click", (event) => {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>("[data-approval]");
  if (!button) return;
  const id = button.dataset.approval as string;
  const decision = button.dataset.decision === "allow-once" ? "allow-once" : "deny";
  for (const item of liveItems) if (item.role === "assistant") for (const call of item.toolCalls) if (call.approvalId === id) call.approvalId = undefined;
  renderLive();
  void answerApproval(id, decision).catch((error: unknown) => showNotice(String(error)));
});
$<HTMLFormElement>("#key-form").addEventListener("submit", () => {
  setApiKey($<HTMLInputElement>("#key").value.trim());
  void loadStatus();
});

if (apiKey() === undefined) localStorage.removeItem("toolbridge.apiKey");
renderLog();
void loadStatus();
input.focus();
