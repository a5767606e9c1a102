import type { LlmConfig } from "../config/schema.js";
import { createChatModel, openAIFamilyApiKey } from "../llm/create-model.js";
import { listModelInfo, type ListedModel } from "../llm/discovery.js";
import type { ChatModel } from "../llm/types.js";

const LIST_TIMEOUT_MS = 5000;
/** Upstream lists change rarely; asking once a minute keeps /v1/models cheap under load. */
const LIST_TTL_MS = 60_000;

/**
 * The models clients may name: the configured one, the others its server lists (OpenAI-compatible
 * servers only), and the config's aliases. A model other than the configured one is made on first
 * use with the same settings and kept.
 */
export class GatewayModels {
  private readonly made = new Map<string, Promise<ChatModel>>();
  private listing: { at: number; models: Promise<ListedModel[]> } | undefined;

  constructor(
    readonly primary: ChatModel,
    private readonly llm: LlmConfig,
    private readonly env: Record<string, string | undefined>,
    private readonly aliases: Readonly<Record<string, string>> = {},
  ) {}

  /** The upstream's models, then the aliases. */
  async list(): Promise<string[]> {
    return (await this.listed()).map((model) => model.id);
  }

  /** As list(), with each model's context length where its server gives one (an alias has its target's). */
  async listed(): Promise<ListedModel[]> {
    const upstream = await this.upstreamModels();
    const aliases = Object.entries(this.aliases)
      .filter(([alias]) => !upstream.some((model) => model.id === alias))
      .map(([alias, target]) => ({ ...upstream.find((model) => model.id === target), id: alias }));
    return [...upstream, ...aliases];
  }

  /**
   * `/v1/models`' entries: the upstream's as it lists them, every field kept (vLLM's
   * `max_model_len`, ...); an alias as the entry of the model it names, under its own id.
   */
  async entries(): Promise<Array<Record<string, unknown> & { id: string }>> {
    const created = Math.floor(Date.now() / 1000);
    const upstream = await this.upstreamModels();
    const entry = (model: ListedModel | undefined, id: string) => ({ object: "model", created, owned_by: "toolbridge", ...model?.listing, id });
    const aliases = Object.entries(this.aliases).filter(([alias]) => !upstream.some((model) => model.id === alias));
    return [...upstream.map((model) => entry(model, model.id)), ...aliases.map(([alias, target]) => entry(upstream.find((model) => model.id === target), alias))];
  }

  /** The model for a request's `model` field, or undefined when nobody serves it. */
  async get(name: string): Promise<ChatModel | undefined> {
    const target = Object.hasOwn(this.aliases, name) ? (this.aliases[name] as string) : name;
    if (target === this.primary.modelId) return this.primary;
    if (!(await this.upstreamModels()).some((model) => model.id === target)) return undefined;
    let model = this.made.get(target);
    if (!model) {
      model = createChatModel({ ...this.llm, model: target }, this.env);
      this.made.set(target, model);
      model.catch(() => this.made.delete(target));
    }
    return model;
  }

  private upstreamModels(): Promise<ListedModel[]> {
    const { primary } = this;
    const family = primary.provider !== "anthropic" && primary.provider !== "gemini";
    if (!family || primary.baseURL === undefined) return Promise.resolve([{ id: primary.modelId }]);
    if (!this.listing || Date.now() - this.listing.at > LIST_TTL_MS) {
      const models = listModelInfo(primary.baseURL, openAIFamilyApiKey(this.llm, this.env), LIST_TIMEOUT_MS).then(
        (found) => (found.some((model) => model.id === primary.modelId) ? found : [{ id: primary.modelId }, ...found]),
        // An upstream that cannot list still serves its model.
        () => [{ id: primary.modelId }],
      );
      this.listing = { at: Date.now(), models };
    }
    return this.listing.models;
  }
}
