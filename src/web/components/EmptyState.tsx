import type { Status } from "../api.js";

/** A new conversation: what this gateway can do (its servers and their tools) and a few prompts to start from. */
export function EmptyState({ status, onExample }: { status: Status | undefined; onExample: (text: string) => void }) {
  const tools = status?.tools ?? [];
  const examples = [
    "What can you do with the tools you have?",
    ...tools.slice(0, 2).map((tool) => `Use ${tool.name} and show me the result.`),
    "Write a small table comparing three sorting algorithms.",
  ].slice(0, 4);
  return (
    <section class="empty" aria-label="Start">
      <h2>What can I help with?</h2>
      <div class="examples">
        {examples.map((example) => (
          <button type="button" class="example" key={example} onClick={() => onExample(example)}>
            {example}
          </button>
        ))}
      </div>
      {status && (
        <div class="empty-servers">
          <h3>
            {status.servers.length} server{status.servers.length === 1 ? "" : "s"}, {tools.length} tool{tools.length === 1 ? "" : "s"}
          </h3>
          <ul>
            {status.servers.map((server) => (
              <li key={server.name}>
                <span class={`dot ${server.status}`} aria-hidden="true" />
                <strong>{server.name}</strong> <span class="muted">{server.status}</span>
                <div class="chips">
                  {tools
                    .filter((tool) => tool.server === server.name)
                    .slice(0, 12)
                    .map((tool) => (
                      <span class="chip" key={tool.name} title={tool.description}>
                        {tool.name}
                      </span>
                    ))}
                </div>
              </li>
            ))}
          </ul>
          <p class="muted">Type / for a server's prompts, @ to attach a resource.</p>
        </div>
      )}
    </section>
  );
}
