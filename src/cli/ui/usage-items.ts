import type { TurnError } from "../../agent/events.js";
import { CONTEXT_ADVICE, GAUGE_HIGH, gaugeText, type UsageMeter } from "../chat/usage-meter.js";
import type { ChatItemBody } from "./chat-items.js";

/**
 * What follows a turn: its usage line with the context gauge (yellow from GAUGE_HIGH on), and
 * the first time the conversation nears the context's end, what to do about it.
 */
export function turnUsageItems(line: string, meter: UsageMeter): ChatItemBody[] {
  const gauge = meter.gauge();
  if (!gauge) return [{ kind: "usage", text: line }];
  const items: ChatItemBody[] = [{ kind: "usage", text: `${line} · ${gaugeText(gauge)}`, ...(gauge.share >= GAUGE_HIGH ? { high: true } : {}) }];
  if (meter.takeNearFullWarning()) {
    items.push({ kind: "notice", tone: "warning", text: `the conversation fills ${Math.round(gauge.share * 100)}% of the model's context: ${CONTEXT_ADVICE}` });
  }
  return items;
}

/** After a failed turn, what the user can do about it, when there is something. */
export function errorAdvice(error: TurnError): ChatItemBody | undefined {
  if (error.code !== "context-length") return undefined;
  return { kind: "notice", tone: "warning", text: `the conversation no longer fits the model's context: ${CONTEXT_ADVICE}` };
}
