// Bundles the web chat into dist/web: one script (esbuild), its page and its style, nothing fetched at run time.
import { copyFile, mkdir } from "node:fs/promises";
import { build } from "esbuild";

const out = new URL("../dist/web/", import.meta.url);
await mkdir(out, { recursive: true });
await build({
  entryPoints: [new URL("../src/web/main.tsx", import.meta.url).pathname],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  jsx: "automatic",
  jsxImportSource: "preact",
  outfile: new URL("app.js", out).pathname,
  logLevel: "warning",
});
for (const file of ["index.html", "app.css"]) await copyFile(new URL(`../src/web/${file}`, import.meta.url), new URL(file, out));
