import { useEffect, useState } from "preact/hooks";
import type { ApprovalDecision, ToolView } from "../api.js";
import type { CallView } from "../view.js";
import { AppFrame } from "./AppFrame.js";
import { Approval } from "./Approval.js";
import { Arguments } from "./Arguments.js";
import { Content } from "./Content.js";
import { Icon } from "./Icon.js";

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Time since a running call started, ticking each second while it runs. */
function useElapsed(call: CallView): number | undefined {
  const [now, setNow] = useState(Date.now());
  const running = call.outcome === undefined && call.startedAt !== undefined && !call.approval;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return call.durationMs ?? (running ? now - (call.startedAt as number) : undefined);
}

const OUTCOME: Record<string, string> = { ok: "done", "tool-error": "tool error", "call-failed": "failed", denied: "denied", "not-approved": "not approved", cancelled: "cancelled", error: "error" };

/** One tool call: name, state and duration on its header; arguments, progress, result (and its app) when opened. */
export function ToolCard({ call, tool, onApproval }: { call: CallView; tool?: ToolView; onApproval?: (answer: ApprovalDecision) => void }) {
  const [open, setOpen] = useState(false);
  const elapsed = useElapsed(call);
  const state = call.approval ? "waiting for you" : call.outcome ? (OUTCOME[call.outcome] ?? call.outcome) : "running";
  const failed = call.isError === true || (call.outcome !== undefined && call.outcome !== "ok");
  const progress = call.progress;
  const percent = progress?.total ? Math.min(100, Math.round((progress.progress / progress.total) * 100)) : undefined;
  const bodyId = `call-${call.id}`;
  // Images a tool returned are shown on the card itself; the rest of the result when it is opened.
  const images = typeof call.result === "string" || call.result === undefined ? [] : call.result.filter((part) => part.type === "image");
  return (
    <div class={`tool-card${failed ? " failed" : ""}${call.outcome ? "" : " running"}`} data-call={call.id}>
      <button type="button" class="tool-head" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
        <Icon name="tool" />
        <span class="tool-name">{tool?.title ?? call.name}</span>
        {tool && <span class="tool-server">{tool.server}</span>}
        <span class={`tool-state state-${call.outcome ?? (call.approval ? "asking" : "running")}`}>{state}</span>
        {elapsed !== undefined && <span class="tool-time">{seconds(elapsed)}</span>}
        <span class="chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
      </button>
      {progress && !call.outcome && (
        <div class="tool-progress">
          <progress max={progress.total ?? undefined} value={progress.total ? progress.progress : undefined} aria-label={`${call.name} progress`} />
          <span>{percent !== undefined ? `${percent}%` : progress.progress}{progress.message ? ` · ${progress.message}` : ""}</span>
        </div>
      )}
      {!open && images.length > 0 && (
        <div class="tool-images">
          <Content content={images} />
        </div>
      )}
      {call.approval && onApproval && <Approval question={call.approval} onAnswer={onApproval} />}
      {open && (
        <div class="tool-body" id={bodyId}>
          <div class="label">Arguments</div>
          <Arguments value={call.arguments} />
          {call.result !== undefined ? (
            <>
              <div class="label">Result</div>
              <Content content={call.result} asCode />
            </>
          ) : call.summary !== undefined ? (
            <>
              <div class="label">Result</div>
              <Content content={call.summary} asCode />
            </>
          ) : null}
        </div>
      )}
      {tool?.appUri && call.appResult && <AppFrame tool={tool} uri={tool.appUri} input={call.arguments} result={call.appResult} />}
    </div>
  );
}
