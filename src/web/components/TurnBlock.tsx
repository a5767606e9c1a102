import { useState } from "preact/hooks";
import type { ApprovalDecision, ServerQuestion as Question, ServerQuestionAnswer, ToolView } from "../api.js";
import { byteSize, sizeText, type Attachment } from "../attachment.js";
import { answerText, type TurnView } from "../view.js";
import { copyText } from "./copy.js";
import { Icon } from "./Icon.js";
import { Markdown } from "./Markdown.js";
import { ServerQuestion } from "./ServerQuestion.js";
import { ToolCard } from "./ToolCard.js";

export interface TurnActions {
  onRegenerate?: () => void;
  onEdit?: (input: string) => void;
  onDelete?: () => void;
  onRetry?: () => void;
  /** The person's answer to approval `approvalId`, given on the question whose `fingerprint` they were shown. */
  onApproval?: (approvalId: string, answer: ApprovalDecision, fingerprint: string) => void;
  /** A server's question answered; resolves to why the gateway refused the answer, if it did. */
  onQuestion?: (question: Question, answer: ServerQuestionAnswer) => Promise<string | undefined>;
}

function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function ActionButton({ icon, label, onClick }: { icon: Parameters<typeof Icon>[0]["name"]; label: string; onClick: () => void }) {
  return (
    <button type="button" class="icon-btn" aria-label={label} title={label} onClick={onClick}>
      <Icon name={icon} />
    </button>
  );
}

/** The resources attached to the person's message: a chip each (name, address, size), its text when opened. */
function Attached({ attachments }: { attachments: readonly Attachment[] }) {
  return (
    <ul class="attached" aria-label="Attached resources">
      {attachments.map((attachment) => (
        <li key={attachment.uri}>
          <details class="attachment">
            <summary title={attachment.uri}>
              <span class="attachment-name">@{attachment.name}</span>
              <span class="attachment-uri">{attachment.uri}</span>
              <span class="attachment-size">{attachment.cutFrom !== undefined ? `${sizeText(byteSize(attachment.text))} of ${sizeText(attachment.cutFrom)}` : sizeText(byteSize(attachment.text))}</span>
            </summary>
            <pre class="attachment-text">{attachment.text}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}

/** The person's message (copy, edit and resend), then the assistant's answer with its tools, actions, usage, and any error with Retry. */
export function TurnBlock({ view, tools, actions, live }: { view: TurnView; tools: readonly ToolView[]; actions: TurnActions; live?: boolean }) {
  const [editing, setEditing] = useState<string>();
  const [copied, setCopied] = useState<"user" | "answer">();
  const copy = (which: "user" | "answer", text: string) =>
    void copyText(text).then(() => {
      setCopied(which);
      setTimeout(() => setCopied(undefined), 1500);
    });
  const text = answerText(view);
  const waiting = live && view.segments.every((segment) => segment.text === "" && segment.reasoning === "" && segment.calls.length === 0);
  const lastSegment = view.segments.at(-1);
  const thinking = live && lastSegment !== undefined && lastSegment.text === "" && lastSegment.calls.every((call) => call.outcome !== undefined) && !waiting;
  return (
    <div class="turn">
      <article class="msg user" aria-label="You">
        {editing === undefined ? (
          <>
            <div class="bubble">
              {view.input !== "" && <p class="plain">{view.input}</p>}
              {view.attachments && <Attached attachments={view.attachments} />}
            </div>
            {!live && (
              <div class="actions">
                <ActionButton icon={copied === "user" ? "check" : "copy"} label="Copy message" onClick={() => copy("user", view.input)} />
                {actions.onEdit && <ActionButton icon="edit" label="Edit and resend" onClick={() => setEditing(view.input)} />}
              </div>
            )}
          </>
        ) : (
          <form
            class="edit-form"
            onSubmit={(event) => {
              event.preventDefault();
              if (editing.trim() || view.attachments?.length) actions.onEdit?.(editing);
              setEditing(undefined);
            }}
          >
            <label class="visually-hidden" for="edit-input">
              Edit your message
            </label>
            <textarea
              id="edit-input"
              value={editing}
              ref={(area) => area?.focus()}
              rows={3}
              onInput={(event) => setEditing((event.target as HTMLTextAreaElement).value)}
              onKeyDown={(event) => {
                if (event.key === "Escape") {
                  event.stopPropagation();
                  setEditing(undefined);
                } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
                  event.preventDefault();
                  (event.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
                }
              }}
            />
            <div class="edit-buttons">
              <button type="submit" class="btn primary">
                Send
              </button>
              <button type="button" class="btn" onClick={() => setEditing(undefined)}>
                Cancel
              </button>
            </div>
            <p class="hint">
              Sending replaces this message and everything after it{view.attachments?.length ? `, with ${view.attachments.map((a) => `@${a.name}`).join(", ")} attached again` : ""}.
            </p>
          </form>
        )}
      </article>
      <article class="msg assistant" aria-label="Assistant" aria-busy={live ? "true" : "false"}>
        {view.segments.map((segment, index) => (
          <div class="segment" key={index}>
            {segment.reasoning.trim() !== "" && (
              <details class="reasoning">
                <summary>Reasoning</summary>
                <div class="reasoning-text">{segment.reasoning}</div>
              </details>
            )}
            {segment.text !== "" && <Markdown text={segment.text} />}
            {segment.calls.map((call) => (
              <ToolCard
                key={call.id}
                call={call}
                tool={tools.find((tool) => tool.name === call.name)}
                onApproval={call.approval && actions.onApproval ? (answer) => actions.onApproval?.(call.approval!.id, answer, call.approval!.fingerprint) : undefined}
              />
            ))}
          </div>
        ))}
        {view.notices?.map((text, index) => (
          <p class="turn-notice" key={index}>
            {text}
          </p>
        ))}
        {live &&
          actions.onQuestion &&
          view.questions?.map((question) => <ServerQuestion key={question.id} question={question} onAnswer={(answer) => actions.onQuestion!(question, answer)} />)}
        {(waiting || thinking) && (
          <div class="typing" role="status" aria-label="The assistant is typing">
            <span />
            <span />
            <span />
          </div>
        )}
        {view.status === "aborted" && <p class="stopped">Stopped: what arrived is kept.</p>}
        {view.error && (
          <div class="turn-error" role="alert">
            <p>
              <strong>Error{view.error.code ? ` (${view.error.code})` : ""}:</strong> {view.error.message}
            </p>
            {actions.onRetry && (
              <button type="button" class="btn" onClick={actions.onRetry}>
                <Icon name="retry" /> Retry
              </button>
            )}
          </div>
        )}
        {!live && (
          <div class="actions">
            {text !== "" && <ActionButton icon={copied === "answer" ? "check" : "copy"} label="Copy answer" onClick={() => copy("answer", text)} />}
            {actions.onRegenerate && <ActionButton icon="retry" label="Regenerate" onClick={actions.onRegenerate} />}
            {actions.onDelete && <ActionButton icon="trash" label="Delete this exchange" onClick={actions.onDelete} />}
            {view.usage && (
              <span class="usage" title="tokens in, tokens out, time">
                {/* A turn stopped or broken before the model counted says only how long it took. */}
                {[...(view.usage.inputTokens + view.usage.outputTokens > 0 ? [`${tokens(view.usage.inputTokens)} in`, `${tokens(view.usage.outputTokens)} out`] : []), ...(view.durationMs !== undefined ? [`${(view.durationMs / 1000).toFixed(1)} s`] : [])].join(" · ")}
              </span>
            )}
          </div>
        )}
      </article>
    </div>
  );
}
