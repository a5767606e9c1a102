import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ApprovalDecision, ApprovalQuestion } from "../api.js";
import { Arguments } from "./Arguments.js";

/**
 * The question before a tool runs: which tool of which server, its whole arguments, and three
 * answers; denying can say why (the model is told). `session` false hides "for this session"
 * (an app's own calls are allowed one at a time).
 */
export function Approval({ question, onAnswer, session = true }: { question: Omit<ApprovalQuestion, "id" | "callId">; onAnswer: (answer: ApprovalDecision) => void; session?: boolean }) {
  const name = question.title ?? question.tool;
  return (
    <Decision label={`Approve ${question.tool}`} id={question.fingerprint} onAnswer={onAnswer} session={session} told="the model is told">
      <p class="approval-title">
        Run <strong>{name}</strong> from <strong>{question.server}</strong>?
      </p>
      {question.description && <p class="approval-about">{question.description}</p>}
      <Arguments value={question.arguments} />
    </Decision>
  );
}

/** What is asked (`children`), then allow once, allow for this session, or deny with an optional reason (`told` says who hears it). */
export function Decision({ label, id, children, onAnswer, session = true, told }: { label: string; id: string; children: ComponentChildren; onAnswer: (answer: ApprovalDecision) => void; session?: boolean; told: string }) {
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const first = useRef<HTMLButtonElement>(null);
  const reasonBox = useRef<HTMLInputElement>(null);
  // The first answer has the focus, and is brought on screen if it is not (an app's question comes after its turn ended).
  useEffect(() => {
    first.current?.focus({ preventScroll: true });
    first.current?.scrollIntoView({ block: "nearest" });
  }, []);
  useEffect(() => {
    if (denying) reasonBox.current?.focus();
  }, [denying]);
  return (
    <section class="approval" role="group" aria-label={label}>
      {children}
      {denying ? (
        <form
          class="deny-form"
          onSubmit={(event) => {
            event.preventDefault();
            onAnswer({ decision: "deny", ...(reason.trim() ? { reason: reason.trim() } : {}) });
          }}
        >
          <label for={`reason-${id}`}>Why not? (optional, {told})</label>
          <input id={`reason-${id}`} ref={reasonBox} value={reason} maxLength={2000} onInput={(event) => setReason((event.target as HTMLInputElement).value)} onKeyDown={(event) => event.key === "Escape" && (event.stopPropagation(), setDenying(false))} />
          <div class="approval-buttons">
            <button type="submit" class="btn danger">
              Deny
            </button>
            <button type="button" class="btn" onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </form>
      ) : (
        <div class="approval-buttons">
          <button type="button" class="btn primary" ref={first} onClick={() => onAnswer({ decision: "allow-once" })}>
            Allow once
          </button>
          {session && (
            <button type="button" class="btn" onClick={() => onAnswer({ decision: "allow-session" })}>
              Allow for this session
            </button>
          )}
          <button type="button" class="btn danger" onClick={() => setDenying(true)}>
            Deny…
          </button>
        </div>
      )}
    </section>
  );
}
