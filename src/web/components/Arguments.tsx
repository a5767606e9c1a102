/**
 * A tool's arguments as the person should judge them: each top-level field on its own, strings
 * whole with their line breaks (not squeezed into one JSON line), the rest pretty-printed JSON.
 */
export function Arguments({ value }: { value: unknown }) {
  if (typeof value === "string") return <pre class="args-raw">{value}</pre>;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return <pre class="args-raw">{JSON.stringify(value, null, 2)}</pre>;
  const entries = Object.entries(value);
  if (entries.length === 0) return <p class="args-empty">(no arguments)</p>;
  return (
    <dl class="args">
      {entries.map(([key, field]) => (
        <div class="arg" key={key}>
          <dt>{key}</dt>
          <dd>
            <pre>{typeof field === "string" ? field : JSON.stringify(field, null, 2)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}
