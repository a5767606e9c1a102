import { Fragment } from "preact";
import { argumentBlocks, type ArgumentBlock, type EditDiff } from "../../agent/argument-view.js";

/**
 * A tool's arguments as the person should judge them (argumentBlocks, as the terminal lays them out): each
 * top-level field on its own, strings of several lines as their lines (also inside an object), edits of a
 * file as a coloured diff of old against new lines, the rest pretty-printed JSON. Nothing is cut.
 */
export function Arguments({ value }: { value: unknown }) {
  if (typeof value === "string") return <pre class="args-raw">{value}</pre>;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return <pre class="args-raw">{JSON.stringify(value, null, 2)}</pre>;
  const blocks = argumentBlocks(value as Record<string, unknown>);
  if (blocks.length === 0) return <p class="args-empty">(no arguments)</p>;
  return (
    <dl class="args">
      {blocks.map((block, index) => (
        <div class="arg" key={`${index}-${block.name}`}>
          <dt>{block.name}</dt>
          <dd>
            <Block block={block} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Block({ block }: { block: ArgumentBlock }) {
  if (block.kind === "text") return <pre>{block.lines.join("\n")}</pre>;
  if (block.kind === "value") return <pre>{block.json}</pre>;
  return (
    <>
      {block.edits.map((edit, index) => (
        <Edit key={index} edit={edit} which={block.edits.length === 1 ? "" : `${index + 1} of ${block.edits.length}: `} />
      ))}
    </>
  );
}

const MARK = { same: "  ", removed: "- ", added: "+ " } as const;

/** One edit: how many lines go and come, then its lines marked and coloured (`- ` old, `+ ` new). */
function Edit({ edit, which }: { edit: EditDiff; which: string }) {
  return (
    <div class="diff">
      <p class="diff-count">
        {which}
        {edit.removed} line{edit.removed === 1 ? "" : "s"} out, {edit.added} in
      </p>
      <pre>
        {edit.lines.map((line, index) => (
          <Fragment key={index}>
            <span class={`diff-line diff-${line.kind}`}>
              {MARK[line.kind]}
              {line.text}
            </span>
            {"\n"}
          </Fragment>
        ))}
      </pre>
    </div>
  );
}
