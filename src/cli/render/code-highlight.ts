import type { Element, ElementContent, Root } from "hast";
import type { Colors } from "./colors.js";

/**
 * Syntax highlighting for fenced code, with highlight.js's grammars through lowlight, which
 * gives a syntax tree rather than HTML: its text nodes are the code as it was given (already
 * cleaned of terminal controls), and the only escape sequences added are our own colours.
 *
 * The grammars take a quarter of a second to load, so they are loaded on demand
 * (`loadHighlighter`) and never by commands that do not render code: `toolbridge --version`
 * stays fast. Until they are loaded, code is shown unhighlighted.
 */
type Lowlight = { registered(language: string): boolean; highlight(language: string, code: string): Root };

let lowlight: Lowlight | undefined;
let loading: Promise<void> | undefined;

export function loadHighlighter(): Promise<void> {
  loading ??= import("lowlight").then(({ createLowlight, common }) => {
    lowlight = createLowlight(common);
  });
  return loading;
}

/** highlight.js scopes, as terminal colours; the rest is the terminal's own colour. */
function styleFor(classes: readonly string[], c: Colors): ((text: string) => string) | undefined {
  for (const name of classes) {
    switch (name.replace(/^hljs-/, "")) {
      case "comment":
      case "quote":
      case "meta":
        return c.dim;
      case "keyword":
      case "selector-tag":
      case "doctag":
        return c.magenta;
      case "string":
      case "regexp":
      case "symbol":
      case "template-tag":
        return c.green;
      case "number":
      case "literal":
        return c.yellow;
      case "title":
      case "section":
      case "name":
      case "tag":
        return c.blue;
      case "built_in":
      case "type":
      case "attr":
      case "attribute":
      case "property":
        return c.cyan;
      case "deletion":
        return c.red;
      case "addition":
        return c.green;
    }
  }
  return undefined;
}

function paint(nodes: readonly ElementContent[], c: Colors, outer: ((text: string) => string) | undefined): string {
  let out = "";
  for (const node of nodes) {
    if (node.type === "text") out += outer ? styleLines(node.value, outer) : node.value;
    else if (node.type === "element") {
      const classes = (node as Element).properties.className;
      const style = styleFor(Array.isArray(classes) ? classes.map(String) : [], c) ?? outer;
      out += paint(node.children, c, style);
    }
  }
  return out;
}

/** Each line styled on its own, so a line cut out of the block (by wrapping) carries its own colour and reset. */
function styleLines(text: string, style: (text: string) => string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : style(line)))
    .join("\n");
}

/** The code coloured for `language`, when its grammar is known and loaded; otherwise the code as it is. */
export function highlightCode(code: string, language: string, c: Colors): string {
  const name = language.trim().toLowerCase();
  if (!lowlight || name === "" || !lowlight.registered(name)) return code;
  return paint(lowlight.highlight(name, code).children as ElementContent[], c, undefined);
}
