import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpClientTransport } from "@modelcontextprotocol/client";
import { SKILLS_EXTENSION_ID, SkillsClient, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport as ModernStdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CLI_ENTRY } from "../../src/config/bundled-servers.js";
import type { ServerConfig } from "../../src/config/schema.js";
import { SKILLS_PAGE_SIZE } from "../../src/gateway/hub-server-skills.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * The skills (SEP-2640) of the servers behind the hub served as one MCP server, to the official SDK clients of both
 * eras, over `serve hub` (stdio) and the gateway's `/mcp`: listed as their servers listed them (digests and sizes), and
 * their files read from their servers, which list them nowhere else (--unlisted-files); a server the caller may not
 * read (untrusted, nobody to ask) has its skills neither listed nor read.
 */

const FIXTURE = join(import.meta.dirname, "../fixtures/servers/skills-server.mjs");
const SERVERS: Record<string, ServerConfig> = {
  skills: { command: process.execPath, args: [FIXTURE, "--unlisted-files", "--directories"], trust: true },
  hidden: { command: process.execPath, args: [FIXTURE, "--unlisted-files", "--directories", "--many", "2"], trust: false },
};
const FORMS = "skill://pdf-processing/references/FORMS.md";
const HIDDEN_FILE = "skill://filler-0/SKILL.md";

/** What a test does with the skills a front serves: each front speaks through its own SDK client. */
interface SkillsFront {
  capabilities(): Record<string, unknown> | undefined;
  list(): Promise<Skill[]>;
  get(uri: string): Promise<Skill>;
  /** A file's text, verified against the skill's entry (digest and size). */
  read(skill: Skill, uri: string): Promise<string>;
  readRaw(uri: string): Promise<unknown>;
  /** resources/directory/read: the children's URIs and names. */
  readDirectory(uri: string): Promise<{ uri: string; name: string }[]>;
  close(): Promise<void>;
}

let home: string;
let harness: Harness;
const hubCommand = () => ({ command: process.execPath, args: [CLI_ENTRY, "serve", "hub", "--config", join(home, "toolbridge.json")], stderr: "pipe" as const });

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "toolbridge-hub-skills-"));
  writeFileSync(join(home, "toolbridge.json"), JSON.stringify({ mcpServers: SERVERS }));
  harness = await startHarness({ servers: SERVERS, approve: "ask" });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  rmSync(home, { recursive: true, force: true });
});

const looseSkill = z.looseObject({ uri: z.string(), frontmatter: z.looseObject({ name: z.string() }), resources: z.unknown() });

/** A 2025-11-25 client (SDK v1), which has no skills client: the requests by hand, the digest checked here. */
async function legacyFront(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<SkillsFront> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return {
    capabilities: () => client.getServerCapabilities()?.extensions as Record<string, unknown> | undefined,
    list: async () => (await client.request({ method: "skills/list", params: {} }, z.looseObject({ skills: z.array(looseSkill) }))).skills as Skill[],
    get: async (uri) => (await client.request({ method: "skills/get", params: { uri } }, z.looseObject({ skill: looseSkill }))).skill as Skill,
    read: async (skill, uri) => {
      const [content] = (await client.readResource({ uri })).contents;
      const text = content && "text" in content ? content.text : "";
      const listed = skill.resources === "dynamic" ? undefined : skill.resources.find((resource) => resource.uri === uri);
      expect(`sha256:${createHash("sha256").update(text).digest("hex")}`).toBe(listed?.digest);
      return text;
    },
    readRaw: (uri) => client.readResource({ uri }),
    readDirectory: async (uri) =>
      (await client.request({ method: "resources/directory/read", params: { uri } }, z.looseObject({ resources: z.array(z.looseObject({ uri: z.string(), name: z.string() })) }))).resources,
    close: () => client.close(),
  };
}

/** A 2026-07-28 client (SDK v2) and its SkillsClient, which verifies every file it reads. */
async function modernFront(transport: ModernStdioClientTransport | ModernHttpClientTransport): Promise<SkillsFront> {
  const client = new ModernClient({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(transport);
  expect(client.getProtocolEra()).toBe("modern");
  const skills = new SkillsClient(client);
  return {
    capabilities: () => client.getServerCapabilities()?.extensions,
    list: async () => (await skills.list()).skills,
    get: async (uri) => (await skills.get(uri)).skill,
    read: async (skill, uri) => (await skills.read(skill, uri)).text ?? "",
    readRaw: (uri) => client.readResource({ uri }),
    readDirectory: async (uri) => (await skills.readDirectory(uri)).resources,
    close: () => client.close(),
  };
}

describe.each([
  { name: "serve hub, a 2025-11-25 client (SDK v1)", open: () => legacyFront(new StdioClientTransport(hubCommand())) },
  { name: "serve hub, a 2026-07-28 client (SDK v2)", open: () => modernFront(new ModernStdioClientTransport(hubCommand())) },
  { name: "/mcp, a 2025-11-25 client (SDK v1)", open: () => legacyFront(new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`))) },
  { name: "/mcp, a 2026-07-28 client (SDK v2)", open: () => modernFront(new ModernHttpClientTransport(new URL(`${harness.gateway.url}/mcp`))) },
])("$name", ({ open }) => {
  let front: SkillsFront;
  beforeAll(async () => {
    front = await open();
  }, 60_000);
  afterAll(async () => {
    await front?.close();
  });

  it("declares the skills extension and lists the skills of the servers the caller may read, as their servers listed them", async () => {
    expect(front.capabilities()?.[SKILLS_EXTENSION_ID]).toBeDefined();
    const skills = await front.list();
    expect(skills.map((skill) => skill.frontmatter.name).sort()).toEqual(["pdf-processing", "release-notes"]);
    const pdf = skills.find((skill) => skill.frontmatter.name === "pdf-processing")!;
    expect(pdf.resources).toEqual([
      { uri: "skill://pdf-processing/SKILL.md", digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: expect.any(Number) },
      { uri: FORMS, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: 33 },
    ]);
    // The untrusted server's skills (filler-0, filler-1, and its own pdf-processing) are not this caller's: nobody can be asked here.
    expect((await front.get("skill://release-notes/SKILL.md")).frontmatter.name).toBe("release-notes");
    await expect(front.get(HIDDEN_FILE)).rejects.toThrow(/No skill is served at skill:\/\/filler-0/);
  });

  it("reads a skill's files from its server, verified against its entry, though no list or template names them; a refused server's are unknown", async () => {
    // Routed by the skill's entry alone: its server lists no such resource and no template.
    expect(JSON.stringify(await front.readRaw(FORMS))).toContain("Fill fields with pdftk.");
    const pdf = (await front.list()).find((skill) => skill.frontmatter.name === "pdf-processing")!;
    expect(await front.read(pdf, FORMS)).toBe("# Forms\n\nFill fields with pdftk.\n");
    expect(await front.read(pdf, pdf.uri)).toContain("# PDF processing");
    await expect(front.readRaw(HIDDEN_FILE)).rejects.toThrow(/Resource not found/);
  });

  it("reads a skill's folders from its server (resources/directory/read); a refused server's are no directory here", async () => {
    expect(front.capabilities()?.[SKILLS_EXTENSION_ID]).toEqual({ directoryRead: true });
    const names = (children: { uri: string; name: string }[]) => children.map(({ uri, name }) => ({ uri, name })).sort((a, b) => a.name.localeCompare(b.name));
    expect(names(await front.readDirectory("skill://pdf-processing"))).toEqual([
      { uri: "skill://pdf-processing/references/", name: "references" },
      { uri: "skill://pdf-processing/SKILL.md", name: "SKILL.md" },
    ]);
    expect(names(await front.readDirectory("skill://pdf-processing/references/"))).toEqual([{ uri: FORMS, name: "FORMS.md" }]);
    await expect(front.readDirectory("skill://filler-0/")).rejects.toThrow(/skill:\/\/filler-0\/ is not a directory resource/);
  });
});

/** `use` with a 2026-07-28 client (SDK v2) of the `/mcp` of the gateway at `url`, closed after. */
async function atMcp<T>(url: string, use: (client: ModernClient) => Promise<T>): Promise<T> {
  const client = new ModernClient({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  try {
    await client.connect(new ModernHttpClientTransport(new URL(`${url}/mcp`)));
    return await use(client);
  } finally {
    await client.close();
  }
}

describe("skills/list of the hub", () => {
  it(`pages what its servers list, ${SKILLS_PAGE_SIZE} entries a page, and refuses a cursor it did not give`, async () => {
    const many = await startHarness({ servers: { many: { command: process.execPath, args: [FIXTURE, "--many", "150"], trust: true } }, approve: "ask" });
    try {
      await atMcp(many.gateway.url, async (client) => {
        const skills = new SkillsClient(client);
        // Without a cursor the SDK walks every page; with one, it asks for that page alone.
        const all = await skills.list();
        expect(new Set(all.skills.map((skill) => skill.frontmatter.name)).size).toBe(152);
        const first = await skills.list({ cursor: "0" });
        expect(first.skills).toHaveLength(SKILLS_PAGE_SIZE);
        expect(first.nextCursor).toBe(String(SKILLS_PAGE_SIZE));
        const last = await skills.list({ cursor: first.nextCursor! });
        expect(last.skills.map((skill) => skill.uri)).toEqual(all.skills.slice(SKILLS_PAGE_SIZE).map((skill) => skill.uri));
        expect(last.nextCursor).toBeUndefined();
        await expect(skills.list({ cursor: "not-a-cursor" })).rejects.toThrow(/skills\/list: no such cursor: not-a-cursor/);
      });
    } finally {
      await many.close();
    }
  }, 60_000);
});

describe("the skills extension", () => {
  it("is declared only where a server the caller may read offers skills", async () => {
    const untrusted = await startHarness({ servers: { hidden: SERVERS.hidden! }, approve: "ask" });
    const declared = (url: string) => atMcp(url, async (client) => client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION_ID]);
    try {
      // The hidden server declares skills, with directoryRead, but nobody can be asked here to let it be read.
      expect(await declared(untrusted.gateway.url)).toBeUndefined();
      expect(await declared(harness.gateway.url)).toEqual({ directoryRead: true });
    } finally {
      await untrusted.close();
    }
  }, 60_000);
});
