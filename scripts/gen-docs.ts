/**
 * Writes the generated references: docs/reference/config.md from the config's zod schema and docs/reference/cli.md
 * from the commander definitions. `npm run docs`; test/docs/docs.test.ts fails while either is out of date.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { cliReference } from "./docs/cli-reference.js";
import { configReference } from "./docs/config-reference.js";

/** Each generated page, by its path from the repository's root. */
export const GENERATED: Record<string, () => string> = {
  "docs/reference/config.md": configReference,
  "docs/reference/cli.md": cliReference,
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL("../", import.meta.url);
  await mkdir(new URL("docs/reference/", root), { recursive: true });
  for (const [path, render] of Object.entries(GENERATED)) {
    await writeFile(new URL(path, root), render());
    process.stdout.write(`wrote ${path}\n`);
  }
}
