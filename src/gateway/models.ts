import type { LlmConfig } from "../config/schema.js";
import { createChatModel, openAIFamilyApiKey } from "../llm/create-model.js";
import { listModels } from "../llm/discovery.js";
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
  private listed: { at: number; ids: Promise<string[]> } | undefined;

  constructor(
    readonly primary: ChatModel,
    private readonly llm: LlmConfig,
    private readonly env: Record<string, string | undefined>,
    private readonly aliases: Readonly<Record<string, string>> = {},
  ) {}

  /** The upstream's models, then the aliases. */
  async list(): Promise<string[]> {
    const upstream = await this.upstream();
    return [...upstream, ...Object.keys(this.aliases).filter((alias) => !upstream.includes(alias))];
  }

  /** The model for a request's `model` field, or undefined when nobody serves it. */
  async get(name: string): Promise<ChatModel | undefined> {
    const target = Object.hasOwn(this.aliases, name) ? (this.aliases[name] as string) : name;
    if (target === this.primary.modelId) return this.primary;
    if (!(await this.upstream()).includes(target)) return undefined;
    let model = this.made.get(target);
    if (!model) {
      model = createChatModel({ ...this.llm, model: target }, this.env);
      this.made.set(target, model);
      model.catch(() => this.made.delete(target));
    }
    return model;
  }

  private upstream(): Promise<string[]> {
    const { primary } = this;
    const family = primary.provider !== "anthropic" && primary.provider !== "gemini";
    if (!family || primary.baseURL === undefined) return Promise.resolve([primary.modelId]);
    if (!this.listed || Date.now() - this.listed.at > LIST_TTL_MS) {
      const ids = listModels(primary.baseURL, openAIFamilyApiKey(this.llm, this.env), LIST_TIMEOUT_MS).then(
        (found) => (found.includes(primary.modelId) ? found : [primary.modelId, ...found]),
        // An upstream that cannot list still serves its model.
        () => [primary.modelId],
      );
      this.listed = { at: Date.now(), ids };
    }
    return this.listed.ids;
  }
}
