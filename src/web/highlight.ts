import { createLowlight } from "lowlight";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { escapeHtml } from "./escape.js";

/**
 * Code highlighting with highlight.js's grammars through lowlight (the terminal chat uses the
 * same), limited to the languages models write most so the page stays small. Lowlight returns
 * a tree, turned here into spans whose only attribute is a class; the text is escaped.
 */
const lowlight = createLowlight({ bash, c, cpp, css, diff, go, java, javascript, json, python, rust, sql, typescript, xml, yaml });
lowlight.registerAlias({ bash: ["sh", "shell", "zsh", "console"], javascript: ["js", "jsx", "mjs"], typescript: ["ts", "tsx"], python: ["py"], xml: ["html", "svg"], yaml: ["yml"], rust: ["rs"], cpp: ["c++", "hpp"] });

/** Code longer than this is shown plain: highlighting it would hold up the page. */
const MAX_HIGHLIGHT_CHARS = 50_000;

interface Node {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: Node[];
}

function toHtml(node: Node): string {
  if (node.type === "text") return escapeHtml(node.value ?? "");
  const children = (node.children ?? []).map(toHtml).join("");
  if (node.type !== "element") return children;
  const className = node.properties?.className;
  const classes = Array.isArray(className) ? className.filter((name): name is string => typeof name === "string" && /^[\w-]+$/.test(name)).join(" ") : "";
  return `<span class="${classes}">${children}</span>`;
}

/** The code as HTML, highlighted when its language is one we know. */
export function highlight(code: string, language: string): string {
  const name = language.toLowerCase();
  if (name === "" || code.length > MAX_HIGHLIGHT_CHARS || !lowlight.registered(name)) return escapeHtml(code);
  return toHtml(lowlight.highlight(name, code) as unknown as Node);
}
