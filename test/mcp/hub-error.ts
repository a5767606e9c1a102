import { expect } from "vitest";
import { HubError } from "../../src/mcp/errors.js";

/** The HubError a hub call rejects with (failing the test if it resolves or throws anything else). */
export async function rejection(promise: Promise<unknown>): Promise<HubError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HubError);
  return error as HubError;
}
