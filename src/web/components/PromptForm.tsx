import { useEffect, useRef, useState } from "preact/hooks";
import { complete, type PromptView } from "../api.js";

/** A prompt's arguments, each with the server's completions as suggestions while it is typed. */
export function PromptForm({ prompt, onSubmit, onCancel, onError }: { prompt: PromptView; onSubmit: (args: Record<string, string>) => void; onCancel: () => void; onError: (message: string) => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [suggestions, setSuggestions] = useState<Record<string, string[]>>({});
  const first = useRef<HTMLInputElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => first.current?.focus(), [prompt]);
  const suggest = (name: string, value: string, all: Record<string, string>) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      complete(prompt.server, { type: "ref/prompt", name: prompt.name }, { name, value }, all).then(
        (found) => setSuggestions((current) => ({ ...current, [name]: found })),
        (error: unknown) => onError(error instanceof Error ? error.message : String(error)),
      );
    }, 120);
  };
  return (
    <form
      class="prompt-form"
      aria-label={`Prompt ${prompt.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(values);
      }}
      onKeyDown={(event) => event.key === "Escape" && (event.stopPropagation(), onCancel())}
    >
      <p class="prompt-title">
        <strong>/{prompt.name}</strong> <span class="muted">{prompt.server}{prompt.description ? ` · ${prompt.description}` : ""}</span>
      </p>
      {prompt.arguments.map((argument, index) => (
        <div class="field" key={argument.name}>
          <label for={`arg-${argument.name}`}>
            {argument.name}
            {argument.required ? " (required)" : ""}
            {argument.description ? <span class="muted"> · {argument.description}</span> : null}
          </label>
          <input
            id={`arg-${argument.name}`}
            ref={index === 0 ? first : undefined}
            list={`arg-${argument.name}-options`}
            required={argument.required}
            autocomplete="off"
            value={values[argument.name] ?? ""}
            onFocus={() => suggest(argument.name, values[argument.name] ?? "", values)}
            onInput={(event) => {
              const value = (event.target as HTMLInputElement).value;
              const next = { ...values, [argument.name]: value };
              setValues(next);
              suggest(argument.name, value, next);
            }}
          />
          <datalist id={`arg-${argument.name}-options`}>
            {(suggestions[argument.name] ?? []).map((option) => (
              <option key={option} value={option} />
            ))}
          </datalist>
        </div>
      ))}
      <div class="approval-buttons">
        <button type="submit" class="btn primary">
          Use prompt
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
