import { useEffect, useRef } from "preact/hooks";
import { openableUrl } from "../../mcp/openable-url.js";
import type { ServerQuestion as Question, ServerQuestionAnswer } from "../api.js";
import { Decision } from "./Approval.js";
import { ElicitationForm } from "./ElicitationForm.js";
import { LinkShown } from "./LinkShown.js";

type Answer = (answer: ServerQuestionAnswer) => Promise<string | undefined>;

/** A server's question in the turn that caused it: a form, a page to open, or a request to use the model. */
export function ServerQuestion({ question, onAnswer }: { question: Question; onAnswer: Answer }) {
  switch (question.kind) {
    case "form":
      return <ElicitationForm question={question} onAnswer={onAnswer} />;
    case "url":
      return <UrlConsent question={question} onAnswer={onAnswer} />;
    case "sampling":
      return <SamplingRequest question={question} onAnswer={onAnswer} />;
  }
}

/**
 * A page a server asks the person to open: who asks and why, the whole address and its host,
 * shown exactly as it opens (the gateway parsed it: punycode for an international host), and it
 * opens only on the person's click. The page checks it again with the terminal's own rules.
 */
function UrlConsent({ question, onAnswer }: { question: Extract<Question, { kind: "url" }>; onAnswer: Answer }) {
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus({ preventScroll: true }), []);
  const url = openableUrl(question.url);
  return (
    <section class="approval" role="group" aria-label={`Page to open for ${question.server}`}>
      <p class="approval-title">
        <strong>{question.server}</strong> asks you to open a page:
      </p>
      {question.message && <p class="question-message">{question.message}</p>}
      <LinkShown url={url} />
      <div class="approval-buttons">
        {url.ok && (
          <button
            type="button"
            class="btn primary"
            ref={first}
            onClick={() => {
              window.open(url.href, "_blank", "noopener,noreferrer");
              void onAnswer({ action: "accept" });
            }}
          >
            Open page
          </button>
        )}
        <button type="button" class="btn" ref={url.ok ? undefined : first} onClick={() => void onAnswer({ action: "decline" })}>
          Don't open
        </button>
        <button type="button" class="btn" onClick={() => void onAnswer({ action: "cancel" })}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/**
 * A server asks to use the model: with which model, for how many tokens at most, its system prompt, messages and tools.
 * Its Decision names no server: "every tool of a server" is not an answer here.
 */
function SamplingRequest({ question, onAnswer }: { question: Extract<Question, { kind: "sampling" }>; onAnswer: Answer }) {
  return (
    <Decision label={`Sampling request from ${question.server}`} id={question.id} onAnswer={(answer) => answer.decision !== "allow-server" && void onAnswer(answer)} told="the server is told">
      <p class="approval-title">
        <strong>{question.server}</strong> asks to use the model
      </p>
      <p class="approval-about">
        {question.model}, up to {question.maxTokens} tokens
      </p>
      <dl class="args sampling">
        {question.systemPrompt && (
          <>
            <dt>system</dt>
            <dd>
              <pre>{question.systemPrompt}</pre>
            </dd>
          </>
        )}
        <dt>messages</dt>
        <dd>
          {question.earlier > 0 && <p class="muted">({question.earlier} earlier messages)</p>}
          <pre>{question.messages.join("\n")}</pre>
        </dd>
        {question.tools.length > 0 && (
          <>
            <dt>tools</dt>
            <dd>{question.tools.join(", ")}</dd>
          </>
        )}
      </dl>
    </Decision>
  );
}
