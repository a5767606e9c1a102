import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** Where the client is to send its requests: the gateway's root URL, its one key and its model. */
export interface LaunchTarget {
  url: string;
  apiKey: string;
  model: string;
}

export interface LaunchRecipe {
  /** The name looked up on PATH. */
  command: string;
  /** The one line shown when it is not there. */
  missing: string;
  /** What the client is given to use the gateway: the key goes in `env`, never in `args`, which `ps` shows. */
  point(target: LaunchTarget): { env: Record<string, string>; args: string[] };
}

/** The variable Codex reads the gateway's key from (its provider's `env_key`). */
export const CODEX_KEY_ENV = "TOOLBRIDGE_GATEWAY_KEY";

/** A TOML basic string, as Codex parses a `-c` value (a JSON string is one). */
const toml = (value: string): string => JSON.stringify(value);

/** The coding agents `toolbridge launch` can start, each pointed at a gateway of its own. */
export const LAUNCH_RECIPES = {
  claude: {
    command: "claude",
    missing: "claude (Claude Code) is not on PATH: install it with npm install -g @anthropic-ai/claude-code",
    point: ({ url, apiKey, model }) => ({
      env: {
        ANTHROPIC_BASE_URL: url,
        // A bearer token, which Claude Code does not ask the person to approve as it does a new ANTHROPIC_API_KEY;
        // theirs is blanked so that the gateway's is the one sent.
        ANTHROPIC_AUTH_TOKEN: apiKey,
        ANTHROPIC_API_KEY: "",
        // Every model it may ask for (main, opus, sonnet, haiku, background, subagents) is the gateway's.
        ANTHROPIC_MODEL: model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        ANTHROPIC_SMALL_FAST_MODEL: model,
        CLAUDE_CODE_SUBAGENT_MODEL: model,
      },
      args: [],
    }),
  },
  codex: {
    command: "codex",
    missing: "codex (Codex CLI) is not on PATH: install it with npm install -g @openai/codex",
    // A provider of its own given with -c, before the user's arguments (a subcommand such as `exec` takes them too), so no config file of theirs changes.
    point: ({ url, apiKey, model }) => ({
      env: { [CODEX_KEY_ENV]: apiKey },
      args: [
        ...[`name=${toml("toolbridge")}`, `base_url=${toml(`${url}/v1`)}`, `wire_api=${toml("responses")}`, `env_key=${toml(CODEX_KEY_ENV)}`].flatMap((setting) => ["-c", `model_providers.toolbridge.${setting}`]),
        ...["-c", `model_provider=${toml("toolbridge")}`, "-m", model],
      ],
    }),
  },
} as const satisfies Record<string, LaunchRecipe>;

export type LaunchClient = keyof typeof LAUNCH_RECIPES;

/** The executable file `command` names on `path` (a PATH value), as a shell would find it; undefined if none. */
export function findOnPath(command: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    // An empty or relative entry would find a file in whatever directory this runs in.
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, command);
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}
