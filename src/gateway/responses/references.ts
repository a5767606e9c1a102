import { HttpError } from "../http.js";
import { ItemReferenceSchema, responseOfItem, type Item } from "./wire.js";
import type { ResponseStore, StoredResponse } from "../state/state.js";

/** Stored responses the item references of one request may name. */
export const MAX_REFERENCED_RESPONSES = 1000;

export interface ResolvedInput {
  items: Item[];
  /** For each item, its index in the request's input (for errors that name where). */
  origin: number[];
}

/**
 * The input with each `item_reference` replaced by the item it names: the AI SDK's openai()
 * provider, which stores by default, refers so to the items of its earlier steps. An item the
 * conversation holds already (in the previous_response_id chain, or repeated whole in the
 * input) is not added twice; any other is looked up among the caller's stored responses, by
 * the response its id names. An item of another caller's response is as unknown as a missing one.
 */
export async function resolveReferences(input: readonly Item[], prior: readonly Item[], context: { store: ResponseStore; caller: string }): Promise<ResolvedInput> {
  const present = new Set([...prior, ...input].flatMap((item) => (item.type !== "item_reference" && typeof item.id === "string" ? [item.id] : [])));
  const responses = new Map<string, Promise<StoredResponse | undefined>>();
  const stored = (id: string) => {
    let response = responses.get(id);
    if (!response) {
      if (responses.size >= MAX_REFERENCED_RESPONSES) throw new HttpError(400, `input: item references name more than ${MAX_REFERENCED_RESPONSES} stored responses; send the items themselves`, "invalid_request_error");
      response = context.store.get(id);
      responses.set(id, response);
    }
    return response;
  };
  const resolved: ResolvedInput = { items: [], origin: [] };
  for (const [index, item] of input.entries()) {
    if (item.type === "item_reference") {
      const reference = ItemReferenceSchema.safeParse(item);
      if (!reference.success) throw new HttpError(400, `input[${index}]: an item_reference takes the id of an item as a string`, "invalid_request_error");
      const { id } = reference.data;
      if (present.has(id)) continue;
      const responseId = responseOfItem(id);
      const record = responseId === undefined ? undefined : await stored(responseId);
      const found = record?.owner === context.caller ? [...record.input, ...record.output].find((candidate) => candidate.id === id) : undefined;
      if (!found) throw new HttpError(400, `input[${index}]: item_reference "${id}" names no item of a stored response of yours: it was never stored, has expired, or was deleted; send the item itself`, "invalid_request_error");
      resolved.items.push(found);
    } else resolved.items.push(item);
    resolved.origin.push(index);
  }
  return resolved;
}
