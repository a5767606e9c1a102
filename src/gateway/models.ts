import type { ProbedMode } from "../agent/tool-mode.js";
import type { LlmConfig } from "../config/schema.js";
import type { SessionModel } from "../host/session-model.js";
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
  /** Each model's probed tool mode, where its session model had one. */
  private readonly probed = new WeakMap<ChatModel, ProbedMode>();
  readonly primary: ChatModel;

  /**
   * `primary` is the configured model, as the host made it (openSessionModel, with its probed
   * mode) or as it is; `open` makes the others as the host makes a session's model, or plainly.
   */
  constructor(
    primary: ChatModel | SessionModel,
    private readonly llm: LlmConfig,
    private readonly env: Record<string, string | undefined>,
    private readonly aliases: Readonly<Record<string, string>> = {},
    private readonly open: (llm: LlmConfig) => Promise<SessionModel> = async (other) => ({ model: await createChatModel(other, env) }),
  ) {
    this.primary = this.remember("model" in primary ? primary : { model: primary });
  }

  /** In tool mode "auto": the mode `model`'s probe found best, to start its turns in. */
  probedMode(model: ChatModel): ProbedMode | undefined {
    return this.probed.get(model);
  }

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
      model = this.open({ ...this.llm, model: target }).then((made) => this.remember(made));
      this.made.set(target, model);
      model.catch(() => this.made.delete(target));
    }
    return model;
  }

  private remember({ model, probedMode }: SessionModel): ChatModel {
    if (probedMode) this.probed.set(model, probedMode);
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
