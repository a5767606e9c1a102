import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { DESTRUCTIVE_NOTE, UNREAD_ARGUMENTS_NOTE } from "../../agent/approval-facts.js";
import type { ApprovalDecision, ApprovalQuestion } from "../api.js";
import { Arguments } from "./Arguments.js";

/**
 * How long an answer's buttons stay disabled once a question appears (or another takes its
 * place): a click meant for what was there before does not land on what came after.
 */
export const ARM_MS = 700;

/**
 * The question before a tool runs: which tool of which server, the terminal's facts (a tool that
 * may change or delete data), its whole arguments (edits of a file as a diff; Allow waits until all of
 * them have been on screen), and four answers: once, this tool or every tool of its server for this
 * session, or deny, which can say why (the model is told). `session` false hides the answers "for this
 * session" (an app's own calls are allowed one at a time).
 */
export function Approval({ question, onAnswer, session = true }: { question: Omit<ApprovalQuestion, "id" | "callId">; onAnswer: (answer: ApprovalDecision) => void; session?: boolean }) {
  const name = question.title ?? question.tool;
  const args = useRef<HTMLDivElement>(null);
  const read = useSeenWhole(args, question.fingerprint);
  return (
    <Decision label={`Approve ${question.tool}`} id={question.fingerprint} onAnswer={onAnswer} session={session} server={question.server} told="the model is told" allowable={read}>
      <p class="approval-title">
        Run <strong>{name}</strong> from <strong>{question.server}</strong>?
      </p>
      {question.description && <p class="approval-about">{question.description}</p>}
      {question.destructive && <p class="approval-destructive">{DESTRUCTIVE_NOTE}</p>}
      <div class="approval-args" ref={args}>
        <Arguments value={question.arguments} />
      </div>
      {!read && <p class="approval-unread">{UNREAD_ARGUMENTS_NOTE} (scroll down); Deny is always there.</p>}
    </Decision>
  );
}

/**
 * Whether every part of `element` has been on screen since `key` was shown: the parts seen, as
 * the page and any scrolled box around it clip it, are gathered as they scroll by.
 */
function useSeenWhole(element: RefObject<HTMLElement | null>, key: string): boolean {
  const [whole, setWhole] = useState(false);
  useEffect(() => {
    setWhole(false);
    const seen: [number, number][] = [];
    const look = () => {
      const node = element.current;
      if (!node) return;
      const box = node.getBoundingClientRect();
      let top = Math.max(box.top, 0);
      let bottom = Math.min(box.bottom, window.innerHeight);
      for (let parent = node.parentElement; parent; parent = parent.parentElement) {
        const overflow = getComputedStyle(parent).overflowY;
        if (overflow !== "auto" && overflow !== "scroll" && overflow !== "hidden") continue;
        const clip = parent.getBoundingClientRect();
        top = Math.max(top, clip.top);
        bottom = Math.min(bottom, clip.bottom);
      }
      if (bottom > top) seen.push([top - box.top, bottom - box.top]);
      seen.sort((a, b) => a[0] - b[0]);
      // Covered from 0 to the element's height, allowing a pixel between rounded parts.
      let reach = 0;
      for (const [from, to] of seen) if (from <= reach + 1) reach = Math.max(reach, to);
      if (reach >= box.height - 1) {
        setWhole(true);
        stop();
      }
    };
    const stop = () => {
      window.removeEventListener("scroll", look, true);
      window.removeEventListener("resize", look);
    };
    window.addEventListener("scroll", look, true);
    window.addEventListener("resize", look);
    // After the layout of this render (the question may be scrolled into view as it appears).
    const frame = requestAnimationFrame(look);
    return () => {
      cancelAnimationFrame(frame);
      stop();
    };
  }, [key]);
  return whole;
}

/** A button disabled for ARM_MS after it appears: see ARM_MS. */
export function ArmedButton({ class: className, onClick, children }: { class: string; onClick: () => void; children: ComponentChildren }) {
  const armed = useArmed("");
  return (
    <button type="button" class={className} disabled={!armed} onClick={onClick}>
      {children}
    </button>
  );
}

/** False for ARM_MS after `key` first shows, then true. */
function useArmed(key: string): boolean {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    setArmed(false);
    const timer = setTimeout(() => setArmed(true), ARM_MS);
    return () => clearTimeout(timer);
  }, [key]);
  return armed;
}

/**
 * What is asked (`children`), then allow once, allow for this session (and, with `server`, allow every
 * tool of that server for this session), or deny with an optional reason (`told` says who hears it). The allowing buttons wait ARM_MS after the question (by `id`)
 * appears, and while `allowable` is false (its arguments not all seen).
 */
export function Decision({ label, id, children, onAnswer, session = true, server, told, allowable = true }: { label: string; id: string; children: ComponentChildren; onAnswer: (answer: ApprovalDecision) => void; session?: boolean; server?: string; told: string; allowable?: boolean }) {
  const armed = useArmed(id);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const first = useRef<HTMLButtonElement>(null);
  const reasonBox = useRef<HTMLInputElement>(null);
  // The first answer is brought on screen if it is not (an app's question comes after its turn ended), and has the focus once it may be used.
  useEffect(() => {
    first.current?.scrollIntoView({ block: "nearest" });
  }, []);
  const usable = armed && allowable;
  useEffect(() => {
    if (usable) first.current?.focus({ preventScroll: true });
  }, [usable]);
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
          <button type="button" class="btn primary" ref={first} disabled={!armed || !allowable} onClick={() => onAnswer({ decision: "allow-once" })}>
            Allow once
          </button>
          {session && (
            <button type="button" class="btn" disabled={!armed || !allowable} onClick={() => onAnswer({ decision: "allow-session" })}>
              Allow for this session
            </button>
          )}
          {session && server !== undefined && (
            <button type="button" class="btn" disabled={!armed || !allowable} onClick={() => onAnswer({ decision: "allow-server" })}>
              Allow all tools of {server} for this session
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
