import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ApprovalPolicy } from "../../src/agent/approval.js";
import { SKILL_TOOL_NAME } from "../../src/agent/skills.js";
import { Hub } from "../../src/mcp/hub.js";
import { HubError } from "../../src/mcp/errors.js";
import { calls, FakeModel, text } from "../agent/fakes.js";
import { expectNoChildren, fixture } from "./processes.js";

/**
 * Skills over MCP (SEP-2640) against test/fixtures/servers/skills-server.mjs, a server on the v2
 * SDK's skills extension: "docs" speaks 2026-07-28 and is hostile (tampered files, invalid
 * entries, a 50 MiB skill, 1000 more skills than anyone needs), "old" speaks 2025-11-25 only.
 * One hub for the file; every skill file read is logged by the server, so prefetching shows.
 */

const dir = mkdtempSync(join(tmpdir(), "toolbridge-skills-"));
const stderrLogFile = join(dir, "servers.log");
let hub: Hub;
const log = (): string => readFileSync(stderrLogFile, "utf8");
const reads = (): string[] => [...log().matchAll(/\] read (\S+)/g)].map((match) => match[1] as string);

beforeAll(async () => {
  hub = await Hub.connect(
    { docs: fixture("skills-server.mjs", "--hostile", "--many", "1000"), old: fixture("skills-server.mjs", "--legacy") },
    { stderrLogFile },
  );
}, 60_000);
afterAll(async () => {
  await hub.close();
  await expectNoChildren();
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(name: string): Promise<HubError> {
  const error = await hub.loadSkill(name, { server: "docs" }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(HubError);
  return error as HubError;
}

describe("skills from servers of both protocol eras", () => {
  it("lists each server's skills without reading a file of theirs, leaving out invalid entries and the excess with one log line each", () => {
    expect(hub.servers().map((state) => [state.name, state.status, state.protocolVersion])).toEqual([
      ["docs", "connected", "2026-07-28"],
      ["old", "connected", "2025-11-25"],
    ]);
    const skills = hub.skills();
    expect(skills.filter((skill) => skill.server === "old").map((skill) => skill.name)).toEqual(["pdf-processing", "release-notes"]);
    expect(skills.filter((skill) => skill.server === "docs")).toHaveLength(1000);
    expect(skills.find((skill) => skill.server === "docs" && skill.name === "pdf-processing")).toEqual({
      server: "docs",
      name: "pdf-processing",
      description: "Extract text from PDFs and fill PDF forms",
      uri: "skill://pdf-processing/SKILL.md",
      files: 2,
    });
    expect(skills.some((skill) => skill.name === "no-digest" || skill.name === "no-description")).toBe(false);
    const lines = log().split("\n");
    expect(lines.filter((line) => line.includes("skills/list: left out 2 invalid entries (skill://no-digest/SKILL.md: resources.0.digest:"))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("[docs] skills/list: lists 1006 skills; kept the first 1000 (the limit)"))).toHaveLength(1);
    expect(reads()).toEqual([]);
  });

  it("loads a skill's SKILL.md verified, naming its other files, and one of those on request", async () => {
    const loaded = await hub.loadSkill("pdf-processing", { server: "old" });
    expect(loaded).toMatchObject({ server: "old", name: "pdf-processing", uri: "skill://pdf-processing/SKILL.md", otherFiles: ["references/FORMS.md"] });
    expect(loaded.text).toContain("description: Extract text from PDFs and fill PDF forms\n---\n\n# PDF processing");
    const forms = await hub.loadSkill("pdf-processing", { server: "docs", file: "references/FORMS.md" });
    expect(forms).toMatchObject({ uri: "skill://pdf-processing/references/FORMS.md", text: "# Forms\n\nFill fields with pdftk.\n", otherFiles: ["SKILL.md"] });
  });

  it("asks which server when two offer the skill, and lists the skills when none does", async () => {
    await expect(hub.loadSkill("pdf-processing")).rejects.toThrow('skill "pdf-processing" is offered by docs, old: name the server');
    await expect(hub.loadSkill("nope")).rejects.toThrow(/^no server offers a skill "nope" \(skills: pdf-processing, release-notes, wrong-digest, .* and \d+ more\)$/);
  });

  it("refuses a file whose digest, size or frontmatter differs from the listing, each with one line naming the skill and the server", async () => {
    expect((await refusal("wrong-digest")).message).toMatch(
      /^skill "wrong-digest" of server "docs" was not loaded: skill:\/\/wrong-digest\/SKILL\.md has digest sha256:[0-9a-f]{64}; the skill entry lists sha256:[0-9a-f]{64}$/,
    );
    expect((await refusal("wrong-size")).message).toBe('skill "wrong-size" of server "docs" was not loaded: skill://wrong-size/SKILL.md is 109 bytes; the skill entry lists 70');
    expect((await refusal("bad-frontmatter")).message).toBe(
      'skill "bad-frontmatter" of server "docs" was not loaded: the frontmatter of skill://bad-frontmatter/SKILL.md differs from the skill entry: description: the entry has "Summarise documents", SKILL.md has "Exfiltrate credentials"',
    );
    for (const error of [await refusal("wrong-digest"), await refusal("bad-frontmatter")]) expect(error.code).toBe("skill-refused");
  });

  it("refuses a skill file listed over the size bound without reading it", async () => {
    const error = await refusal("huge");
    expect(error.message).toBe('skill "huge" of server "docs" was not loaded: skill://huge/SKILL.md is 50 MiB, over the 256 KiB a skill file may take in a conversation');
    expect(reads()).not.toContain("skill://huge/SKILL.md");
  });
});

describe("skills in a turn", () => {
  const agentWith = (model: FakeModel, policy: ApprovalPolicy, extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) =>
    new Agent({ model, tools: hub, skills: hub, approval: { policy }, ...extra });

  it("shows the model each skill's summary in load_skill, and loads the one it picks as a read of that skill's server", async () => {
    const model = new FakeModel([calls(["c1", SKILL_TOOL_NAME, '{"name":"release-notes","server":"old"}']), text("Done.")]);
    const asked: Array<{ server: string; name: string }> = [];
    const agent = agentWith(model, new ApprovalPolicy({ mode: "ask" }), {
      approval: {
        policy: new ApprovalPolicy({ mode: "ask" }),
        ask: async (request) => {
          asked.push({ server: request.tool.server, name: request.tool.name });
          return { decision: "allow-once" };
        },
      },
    });
    const turn = await agent.send("Write the release notes");
    const offered = model.requests[0]?.tools?.find((tool) => tool.name === SKILL_TOOL_NAME);
    expect(offered?.description).toContain("- release-notes (server old): Write release notes from a list of merged changes");
    expect(offered?.description).toContain("(and 902 more skills not listed here)");
    expect(asked).toEqual([{ server: "old", name: SKILL_TOOL_NAME }]);
    expect(turn.toolCalls[0]).toMatchObject({ outcome: "ok", isError: false });
    expect(turn.toolCalls[0]?.content).toContain('Skill "release-notes" from server "old" (skill://release-notes/SKILL.md), verified');
    expect(turn.toolCalls[0]?.content).toContain("Group changes by kind; one line each.");
  });

  it("refuses the load where the policy does not allow reading that server and nobody can be asked; a trusted server's loads run", async () => {
    const args = '{"name":"pdf-processing","server":"docs"}';
    const refused = await agentWith(new FakeModel([calls(["c1", SKILL_TOOL_NAME, args]), text("ok")]), new ApprovalPolicy({ mode: "ask" })).send("pdf");
    expect(refused.toolCalls[0]).toMatchObject({ outcome: "not-approved" });
    const trusted = await agentWith(new FakeModel([calls(["c1", SKILL_TOOL_NAME, args]), text("ok")]), new ApprovalPolicy({ mode: "ask", servers: { docs: { trust: true } } })).send("pdf");
    expect(trusted.toolCalls[0]).toMatchObject({ outcome: "ok" });
    const tampered = await agentWith(new FakeModel([calls(["c1", SKILL_TOOL_NAME, '{"name":"wrong-digest"}']), text("ok")]), new ApprovalPolicy({ mode: "readonly" })).send("x");
    expect(tampered.toolCalls[0]).toMatchObject({ outcome: "tool-error", isError: true });
    expect(tampered.toolCalls[0]?.content).toContain('skill "wrong-digest" of server "docs" was not loaded');
  });

  it("in prompt mode puts the summaries in the prompt and runs a load_skill call written as text", async () => {
    const call = '<tool_call>\n{"name": "load_skill", "arguments": {"name": "release-notes", "server": "old"}}\n</tool_call>';
    const model = new FakeModel([text(call), text("Done.")], "Qwen/Qwen3-8B");
    const turn = await agentWith(model, new ApprovalPolicy({ mode: "readonly" }), { toolMode: "prompt" }).send("notes");
    expect(JSON.stringify(model.requests[0]?.messages)).toContain("release-notes (server old): Write release notes");
    expect(model.requests[0]?.tools).toBeUndefined();
    expect(turn.toolCalls[0]).toMatchObject({ name: SKILL_TOOL_NAME, outcome: "ok" });
    expect(turn.toolCalls[0]?.content).toContain("Group changes by kind; one line each.");
  });
});
