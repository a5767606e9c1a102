import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import wrapAnsi from "wrap-ansi";
import { renderToolResult } from "../render/content.js";
import { describeMedia } from "../render/media.js";
import { cleanTerminalText as clean } from "../render/terminal-text.js";
import { expandHome } from "./home-path.js";
import type { SlashContext } from "./slash-context.js";
import type { KeptResult } from "./tool-results.js";

type Image = { type: "image"; data: string; mimeType: string };

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg" };

function imagesOf(entry: KeptResult): Image[] {
  return (entry.result?.content ?? []).filter((block): block is Image => block.type === "image");
}

/** `/result [N]`: tool result N (default: the last) whole, cleaned and wrapped to the terminal. */
export function showToolResult({ toolResults, colors, print, columns }: SlashContext, argument: string): void {
  if (argument !== "" && !/^\d+$/.test(argument)) return print(colors.red("usage: /result [N]"));
  const entry = toolResults?.get(argument === "" ? undefined : Number(argument)) ?? "no tool results are kept here";
  if (typeof entry === "string") return print(colors.dim(entry));
  const body = entry.result ? renderToolResult(entry.result, colors).replace(/\n$/, "") : clean(entry.summary);
  print(`${colors.bold(`[${entry.number}] ${clean(entry.name)}`)}\n${wrapAnsi(body, Math.max(20, columns), { hard: true, trim: false })}`);
}

/**
 * `/image [N] [FILE]`: writes the images of tool result N (default: the last that has one) to
 * FILE (default: image-N.png here; `~` expanded), private to the user, never over a file.
 */
export function saveToolImages({ toolResults, colors, print }: SlashContext, argument: string): void {
  const match = /^(?:(\d+)(?:\s+|$))?(.*)$/.exec(argument) ?? [];
  const number = match[1] === undefined ? undefined : Number(match[1]);
  const file = (match[2] ?? "").trim();
  const found = number === undefined ? (toolResults?.latest((entry) => imagesOf(entry).length > 0) ?? "no tool result with an image is kept") : (toolResults?.get(number) ?? "no tool results are kept here");
  if (typeof found === "string") return print(colors.dim(found));
  const images = imagesOf(found);
  if (images.length === 0) return print(colors.dim(`tool result ${found.number} has no image`));
  images.forEach((image, index) => {
    const suffix = index === 0 ? "" : `-${index + 1}`;
    const target = file === "" ? `image-${found.number}${suffix}.${EXTENSIONS[image.mimeType] ?? "bin"}` : withSuffix(expandHome(file), suffix);
    try {
      writeFileSync(resolve(target), Buffer.from(image.data, "base64"), { mode: 0o600, flag: "wx" });
      print(colors.dim(clean(`saved ${describeMedia(image)} to ${target}`)));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "EEXIST" ? "it exists already; name another file" : error instanceof Error ? error.message : String(error);
      print(colors.red(clean(`could not save to ${target}: ${why}`)));
    }
  });
}

/** `shot.png` with `-2` → `shot-2.png`. */
function withSuffix(path: string, suffix: string): string {
  if (suffix === "") return path;
  const dot = path.lastIndexOf(".");
  return dot > path.lastIndexOf("/") + 1 ? `${path.slice(0, dot)}${suffix}${path.slice(dot)}` : `${path}${suffix}`;
}
