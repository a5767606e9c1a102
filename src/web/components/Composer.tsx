import { useEffect, useRef, useState } from "preact/hooks";
import { fetchPrompts, fetchResources, getPrompt, readResource, type PromptView, type ReadQuestion, type ResourceView } from "../api.js";
import { attach, byteSize, sizeText, type Attachment } from "../attachment.js";
import { ArmedButton } from "./Approval.js";
import { Arguments } from "./Arguments.js";
import { Icon } from "./Icon.js";
import { PromptForm } from "./PromptForm.js";

type Menu = { kind: "prompt"; items: PromptView[] } | { kind: "resource"; items: ResourceView[]; query: string };

/** The message box: Enter sends, Shift+Enter a new line, Esc stops; `/` lists the servers' prompts, `@` their resources. */
export function Composer({ running, onSend, onStop, draft, onDraftUsed, onError }: {
  running: boolean;
  onSend: (text: string, attachments: Attachment[]) => void;
  onStop: () => void;
  /** Text put in the box from elsewhere (an example prompt). */
  draft: string | undefined;
  onDraftUsed: () => void;
  onError: (message: string) => void;
}) {
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [prompts, setPrompts] = useState<PromptView[]>();
  const [resources, setResources] = useState<ResourceView[]>();
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [prompt, setPrompt] = useState<PromptView>();
  const [closed, setClosed] = useState(false);
  // A read the gateway asks about first (the policy does not allow this server's resources and prompts unasked).
  const [reading, setReading] = useState<{ question: ReadQuestion; resolve: (allowed: boolean) => void }>();
  const box = useRef<HTMLTextAreaElement>(null);
  const askToRead = (question: ReadQuestion) => new Promise<boolean>((resolve) => setReading({ question, resolve }));
  const answerRead = (allowed: boolean) => {
    reading?.resolve(allowed);
    setReading(undefined);
    box.current?.focus();
  };

  useEffect(() => box.current?.focus(), []);
  useEffect(() => {
    if (draft === undefined) return;
    setText(draft);
    onDraftUsed();
    box.current?.focus();
  }, [draft]);
  // The box grows with its text, up to a third of the screen.
  useEffect(() => {
    const area = box.current;
    if (!area) return;
    area.style.height = "auto";
    area.style.height = `${Math.min(area.scrollHeight, window.innerHeight / 3)}px`;
  }, [text]);

  const before = text.slice(0, caret);
  const slash = /^\/(\S*)$/.exec(text);
  const at = /(?:^|\s)@([^\s@]*)$/.exec(before);
  useEffect(() => {
    if (slash && !prompts) fetchPrompts().then(setPrompts, (error: unknown) => onError(String(error)));
    if (at && !resources) fetchResources().then(setResources, (error: unknown) => onError(String(error)));
  }, [Boolean(slash), Boolean(at)]);

  let menu: Menu | undefined;
  if (!closed && slash && prompts) {
    const query = (slash[1] ?? "").toLowerCase();
    menu = { kind: "prompt", items: prompts.filter((p) => p.name.toLowerCase().includes(query) || (p.title ?? "").toLowerCase().includes(query)).slice(0, 50) };
  } else if (!closed && at && resources) {
    const query = (at[1] ?? "").toLowerCase();
    menu = { kind: "resource", query: at[1] ?? "", items: resources.filter((r) => r.name.toLowerCase().includes(query) || r.uri.toLowerCase().includes(query)).slice(0, 50) };
  }
  const count = menu?.items.length ?? 0;
  const current = count > 0 ? Math.min(active, count - 1) : 0;

  const usePrompt = async (chosen: PromptView, args: Record<string, string>) => {
    try {
      const result = await getPrompt(chosen, args, askToRead);
      if (!result) return;
      const parts = result.messages.map((message) => message.content.text ?? message.content.resource?.text ?? "").filter(Boolean);
      setText(parts.join("\n\n"));
      setPrompt(undefined);
      box.current?.focus();
    } catch (error) {
      onError(error instanceof Error ? error.message : String(error));
    }
  };
  const choose = async (index: number) => {
    if (!menu) return;
    if (menu.kind === "prompt") {
      const chosen = menu.items[index];
      if (!chosen) return;
      setText("");
      if (chosen.arguments.length > 0) setPrompt(chosen);
      else await usePrompt(chosen, {});
      return;
    }
    const chosen = menu.items[index];
    if (!chosen) return;
    const start = before.length - menu.query.length - 1;
    setText(text.slice(0, start) + text.slice(caret));
    try {
      const read = await readResource({ uri: chosen.uri, server: chosen.server }, askToRead);
      if (!read) return;
      const body = read.contents.map((content) => content.text ?? `[${content.mimeType ?? "binary"} content, ${content.blob?.length ?? 0} base64 characters]`).join("\n");
      const { attachment, notice } = attach({ uri: chosen.uri, name: chosen.title ?? chosen.name }, body, attachments);
      if (notice) onError(notice);
      if (attachment) setAttachments((list) => [...list.filter((a) => a.uri !== chosen.uri), attachment]);
    } catch (error) {
      onError(error instanceof Error ? error.message : String(error));
    }
    box.current?.focus();
  };

  const send = () => {
    if ((!text.trim() && attachments.length === 0) || running) return;
    onSend(text.trim(), attachments);
    setText("");
    setAttachments([]);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (menu && count > 0) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        setActive((current + (event.key === "ArrowDown" ? 1 : count - 1)) % count);
        return;
      }
      if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
        event.preventDefault();
        void choose(current);
        return;
      }
    }
    if (menu && event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      setClosed(true);
      return;
    }
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  };
  const optionId = (index: number) => `menu-option-${index}`;

  return (
    <div class="composer-wrap">
      {reading && (
        <section class="approval" role="group" aria-label="Approve reading">
          <p class="approval-title">
            {reading.question.kind === "resource" ? (
              <>
                Read <strong>{reading.question.uri}</strong> from <strong>{reading.question.server}</strong>?
              </>
            ) : (
              <>
                Get the prompt <strong>{reading.question.name}</strong> from <strong>{reading.question.server}</strong>?
              </>
            )}
          </p>
          {reading.question.kind === "prompt" && <Arguments value={reading.question.arguments} />}
          <div class="approval-buttons">
            <ArmedButton class="btn primary" onClick={() => answerRead(true)}>
              Allow once
            </ArmedButton>
            <button type="button" class="btn" onClick={() => answerRead(false)}>
              Don't
            </button>
          </div>
        </section>
      )}
      {prompt && <PromptForm prompt={prompt} onCancel={() => (setPrompt(undefined), box.current?.focus())} onSubmit={(args) => void usePrompt(prompt, args)} onError={onError} />}
      {menu && (
        <ul class="menu" id="composer-menu" role="listbox" tabIndex={0} onKeyDown={onKeyDown} aria-label={menu.kind === "prompt" ? "Prompts" : "Resources"}>
          {menu.items.map((item, index) => (
            <li
              key={`${item.server}:${"uri" in item ? item.uri : item.name}`}
              id={optionId(index)}
              role="option"
              aria-selected={index === current}
              class={index === current ? "active" : ""}
              onMouseDown={(event) => {
                event.preventDefault();
                void choose(index);
              }}
            >
              <span class="menu-name">{menu.kind === "prompt" ? `/${item.name}` : (item.title ?? item.name)}</span>
              <span class="muted">
                {item.server}
                {"uri" in item ? ` · ${item.uri}` : item.description ? ` · ${item.description}` : ""}
              </span>
            </li>
          ))}
          {count === 0 && <li class="muted none">{menu.kind === "prompt" ? "No prompt matches." : "No resource matches."}</li>}
        </ul>
      )}
      {attachments.length > 0 && (
        <ul class="attachments" aria-label="Attached resources">
          {attachments.map((attachment) => (
            <li class="chip" key={attachment.uri} title={attachment.uri}>
              @{attachment.name} <span class="chip-size">{sizeText(byteSize(attachment.text))}</span>
              <button type="button" class="chip-x" aria-label={`Remove ${attachment.name}`} onClick={() => setAttachments((list) => list.filter((a) => a !== attachment))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="composer"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <label for="input" class="visually-hidden">
          Message
        </label>
        <textarea
          id="input"
          ref={box}
          rows={1}
          value={text}
          placeholder="Message · / prompts · @ resources"
          aria-describedby="composer-hint"
          aria-activedescendant={menu && count > 0 ? optionId(current) : undefined}
          aria-controls={menu ? "composer-menu" : undefined}
          onInput={(event) => {
            const area = event.target as HTMLTextAreaElement;
            setText(area.value);
            setCaret(area.selectionStart);
            setActive(0);
            setClosed(false);
          }}
          onKeyUp={(event) => setCaret((event.target as HTMLTextAreaElement).selectionStart)}
          onClick={(event) => setCaret((event.target as HTMLTextAreaElement).selectionStart)}
          onKeyDown={onKeyDown}
        />
        {running ? (
          <button type="button" class="send stop" aria-label="Stop (Esc)" title="Stop (Esc)" onClick={onStop}>
            <Icon name="stop" />
          </button>
        ) : (
          <button type="submit" class="send" aria-label="Send" title="Send (Enter)" disabled={text.trim() === "" && attachments.length === 0}>
            <Icon name="send" />
          </button>
        )}
      </form>
      <p id="composer-hint" class="hint">
        Enter sends · Shift+Enter new line · Esc stops
      </p>
    </div>
  );
}
