import { useState } from "preact/hooks";
import { searchConversations, type Conversation } from "../store.js";
import { Icon } from "./Icon.js";

/** The conversations: search, new, and per conversation open, rename and delete (asked once, inline). */
export function Sidebar({ conversations, currentId, busy, onOpen, onNew, onRename, onDelete }: {
  conversations: readonly Conversation[];
  currentId: string | undefined;
  busy: boolean;
  onOpen: (id: string) => void;
  onNew: () => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
}) {
  const [query, setQuery] = useState("");
  const [renaming, setRenaming] = useState<{ id: string; title: string }>();
  const [deleting, setDeleting] = useState<string>();
  const shown = searchConversations(conversations, query);
  return (
    <nav class="sidebar" aria-label="Conversations">
      <button type="button" class="btn new-chat" onClick={onNew} disabled={busy}>
        <Icon name="plus" /> New chat
      </button>
      <div class="search">
        <label for="search" class="visually-hidden">
          Search conversations
        </label>
        <input id="search" type="search" placeholder="Search (Ctrl+K)" value={query} onInput={(event) => setQuery((event.target as HTMLInputElement).value)} />
      </div>
      <ul id="conversations">
        {shown.map((conversation) => {
          const current = conversation.id === currentId;
          if (renaming?.id === conversation.id) {
            return (
              <li key={conversation.id} class="conv-item current">
                <form
                  class="rename"
                  onSubmit={(event) => {
                    event.preventDefault();
                    if (renaming.title.trim()) onRename(conversation.id, renaming.title.trim());
                    setRenaming(undefined);
                  }}
                >
                  <label class="visually-hidden" for="rename-input">
                    New name
                  </label>
                  <input id="rename-input" value={renaming.title} maxLength={200} ref={(input) => input?.focus()} onInput={(event) => setRenaming({ id: conversation.id, title: (event.target as HTMLInputElement).value })} onKeyDown={(event) => event.key === "Escape" && (event.stopPropagation(), setRenaming(undefined))} />
                </form>
              </li>
            );
          }
          if (deleting === conversation.id) {
            return (
              <li key={conversation.id} class="conv-item confirm" role="group" aria-label={`Delete ${conversation.title}?`}>
                <span>Delete “{conversation.title}”?</span>
                <button type="button" class="btn danger small" ref={(button) => button?.focus()} onClick={() => (setDeleting(undefined), onDelete(conversation.id))}>
                  Delete
                </button>
                <button type="button" class="btn small" onClick={() => setDeleting(undefined)}>
                  Keep
                </button>
              </li>
            );
          }
          return (
            <li key={conversation.id} class={`conv-item${current ? " current" : ""}`}>
              <button type="button" class="conv" aria-current={current ? "page" : undefined} disabled={busy && !current} onClick={() => onOpen(conversation.id)}>
                {conversation.title}
              </button>
              <button type="button" class="icon-btn" aria-label={`Rename ${conversation.title}`} title="Rename" onClick={() => setRenaming({ id: conversation.id, title: conversation.title })}>
                <Icon name="edit" />
              </button>
              <button type="button" class="icon-btn" aria-label={`Delete ${conversation.title}`} title="Delete" disabled={busy && current} onClick={() => setDeleting(conversation.id)}>
                <Icon name="trash" />
              </button>
            </li>
          );
        })}
        {shown.length === 0 && <li class="none">{query ? "No conversation matches." : "No conversations yet."}</li>}
      </ul>
    </nav>
  );
}
