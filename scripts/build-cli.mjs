// Bundles the command line (dist/cli/main.js, as tsc wrote it) into dist/cli/main.js and chunks beside it, with
// its dependencies. Started unbundled, Node resolves and reads thousands of files first (Ink alone pulls in
// es-toolkit's 1,300-file barrel): `toolbridge --version` took half a second and the chat's prompt several.
// Split at the dynamic imports, so each command loads only its own code. The chunks sit in dist/cli/ beside
// main.js, so paths built from `import.meta.url` resolve as they do in the unbundled files of that folder.
// The library (dist/index.js) stays unbundled: its users bundle it themselves.
import { chmod, readdir, rm } from "node:fs/promises";
import { build } from "esbuild";

const cli = new URL("../dist/cli/", import.meta.url);
for (const file of await readdir(cli)) if (/^chunk-.*\.js(\.map)?$/.test(file)) await rm(new URL(file, cli));
await build({
  entryPoints: { main: new URL("main.js", cli).pathname },
  outdir: cli.pathname,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: "chunk-[hash]",
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  // node-llama-cpp (an optional peer, loaded only by --provider local, often from the directory `toolbridge
  // install-local` fills) finds its llama.cpp binaries beside its own files, and may be absent: it stays a package import.
  external: ["node-llama-cpp"],
  // Through the maps tsc wrote, back to src/ (for `node --enable-source-maps`). Without the sources' text, which
  // stack traces do not need: it was 17 of the package's 42 MB.
  sourcemap: true,
  sourcesContent: false,
  // CommonJS dependencies (React, ajv, cross-spawn) call `require` for Node's own modules.
  banner: { js: 'import { createRequire as __cliRequire } from "node:module"; const require = __cliRequire(import.meta.url);' },
  plugins: [
    {
      // Ink imports React's devtools only when DEV=true; they are not a dependency, so that import gets an empty module.
      name: "no-react-devtools",
      setup(build) {
        build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: "react-devtools-core", namespace: "empty" }));
        build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "export default {};", loader: "js" }));
      },
    },
  ],
});
await chmod(new URL("main.js", cli), 0o755);
