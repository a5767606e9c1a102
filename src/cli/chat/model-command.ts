import { requireListedModel, servedModels, withAliases, type ListedModel } from "../../llm/discovery.js";
import { oneLine } from "../render/one-line.js";
import type { SlashContext } from "./slash-context.js";
import { shortTokens } from "./usage-meter.js";

/** Models shown by `/model` (each with its aliases); a server may list hundreds. */
const MAX_SHOWN = 40;

/** What the model server lists, or why it could not be asked. */
async function listing(context: SlashContext): Promise<{ models: ListedModel[] } | { failure: string }> {
  try {
    return { models: await context.session.listedModels() };
  } catch (error) {
    return { failure: oneLine(error instanceof Error ? error.message : String(error)) };
  }
}

/** `/model`: the model in use, and the models its server lists, the one in use marked. */
export async function showModels(context: SlashContext): Promise<void> {
  const { session, colors, print } = context;
  const { agent } = session;
  const current = agent.model.modelId;
  print(`${colors.bold(oneLine(current))} ${colors.dim(`(${agent.model.provider} at ${session.endpoint.url}, ${agent.toolMode} tool calling)`)}`);
  const listed = await listing(context);
  if ("failure" in listed) return print(colors.dim(`the server's models could not be listed: ${listed.failure}`));
  if (listed.models.length === 0) return print(colors.dim("the server lists no models"));
  session.usage.knowListing(current, listed.models);
  const served = servedModels(listed.models);
  const shown = served.slice(0, MAX_SHOWN).map((model) => {
    const inUse = model.names.includes(current);
    return { inUse, label: oneLine(withAliases(model, inUse ? current : model.names[0])), contextLength: model.contextLength };
  });
  const width = Math.max(...shown.map((model) => model.label.length));
  const lines = shown.map(({ inUse, label, contextLength }) => {
    const name = inUse ? `${colors.green("●")} ${colors.bold(label)}` : `  ${label}`;
    return contextLength === undefined ? name : `${name}${" ".repeat(width - label.length)}  ${colors.dim(`context ${shortTokens(contextLength)}`)}`;
  });
  if (served.length > MAX_SHOWN) lines.push(colors.dim(`  and ${served.length - MAX_SHOWN} more`));
  print(lines.join("\n"));
}

/**
 * `/model NAME`: switches to a model the server lists, the conversation kept. A name it does
 * not list is refused (with the likely name, or those it lists); when the server lists none
 * or cannot be asked, the switch is made and said to be unchecked.
 */
export async function switchModel(context: SlashContext, name: string): Promise<void> {
  const { session, colors, print } = context;
  const listed = await listing(context);
  const models = "models" in listed ? listed.models : [];
  if (models.length > 0) {
    await requireListedModel(session.endpoint.url, undefined, 0, name, models);
  }
  await session.switchModel(name);
  if (models.length > 0) session.usage.knowListing(name, models);
  const unchecked = "failure" in listed ? ` (unchecked: the server's models could not be listed: ${listed.failure})` : models.length === 0 ? " (unchecked: the server lists no models)" : "";
  print(colors.dim(`now talking to ${oneLine(session.agent.model.modelId)}${unchecked}`));
}
