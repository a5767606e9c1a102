import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../support/processes.js";
import { connect, type Connected, type Mode } from "./serve-process.js";

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

function resourceText(contents: Array<{ uri: string; text?: unknown }>): string {
  const text = contents[0]?.text;
  if (typeof text !== "string") throw new Error("resource has no text");
  return text;
}

describe.each<Mode>(["stdio", "http"])("the time server over %s", (mode) => {
  let connected: Connected;
  let client: Client;
  const getDate = async (args: Record<string, unknown>) => (await client.callTool({ name: "get-date", arguments: args })) as CallToolResult;

  beforeAll(async () => {
    connected = await connect("time", mode);
    client = connected.client;
  });

  afterAll(async () => {
    await connected.close();
    expect(isAlive(connected.pid)).toBe(false);
  });

  it("reports the package's own version in serverInfo", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(client.getServerVersion()).toMatchObject({ name: "toolbridge-time", version: pkg.version });
  });

  it("lists get-date with the format enum and optional timezone of its specification", async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const tool = tools[0];
    expect(tool?.name).toBe("get-date");
    expect(tool?.description).toBe("Get the current date and time with optional formatting");
    expect(tool?.inputSchema.properties).toMatchObject({
      format: { type: "string", enum: ["iso", "locale", "date-only", "time-only", "timestamp"] },
      timezone: { type: "string" },
    });
    expect(tool?.inputSchema.required ?? []).toEqual([]);
  });

  it("answers in UTC ISO 8601 by default", async () => {
    const before = Date.now();
    const value = text(await getDate({}));
    expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(value)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(value)).toBeLessThanOrEqual(Date.now());
  });

  it("gives ISO 8601 with the zone's offset when a timezone is given", async () => {
    const before = Date.now();
    const value = text(await getDate({ format: "iso", timezone: "Asia/Taipei" }));
    expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+08:00$/);
    // The same instant as a UTC reading: the offset is applied, not merely appended.
    expect(Date.parse(value)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(value)).toBeLessThanOrEqual(Date.now());
    expect(text(await getDate({ timezone: "Asia/Kolkata" }))).toMatch(/\+05:30$/);
    expect(text(await getDate({ timezone: "UTC" }))).toMatch(/\+00:00$/);
  });

  it("formats locale, date-only and time-only in en-US in the given zone", async () => {
    const expectAround = async (format: string, timeZone: string, render: (d: Date) => string) => {
      const before = render(new Date());
      const value = text(await getDate({ format, timezone: timeZone }));
      expect([before, render(new Date())]).toContain(value);
    };
    await expectAround("locale", "America/New_York", (d) => d.toLocaleString("en-US", { timeZone: "America/New_York" }));
    // Fourteen and eleven hours from UTC: at most instants these two zones are on different dates.
    await expectAround("date-only", "Pacific/Kiritimati", (d) => d.toLocaleDateString("en-US", { timeZone: "Pacific/Kiritimati" }));
    await expectAround("date-only", "Pacific/Pago_Pago", (d) => d.toLocaleDateString("en-US", { timeZone: "Pacific/Pago_Pago" }));
    await expectAround("time-only", "Europe/London", (d) => d.toLocaleTimeString("en-US", { timeZone: "Europe/London" }));
    expect(text(await getDate({ format: "time-only", timezone: "Asia/Tokyo" }))).toMatch(/^\d{1,2}:\d\d:\d\d (AM|PM)$/);
  });

  it("gives milliseconds since the epoch for timestamp", async () => {
    const before = Date.now();
    const value = text(await getDate({ format: "timestamp" }));
    expect(value).toMatch(/^\d+$/);
    expect(Number(value)).toBeGreaterThanOrEqual(before);
    expect(Number(value)).toBeLessThanOrEqual(Date.now());
  });

  it("reports an unknown timezone as a tool error naming it and giving a valid example", async () => {
    const result = await getDate({ format: "locale", timezone: "Mars/Olympus_Mons" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('"Mars/Olympus_Mons"');
    expect(text(result)).toContain("Asia/Taipei");
  });

  it("rejects a format outside the enum with a message naming the argument", async () => {
    const result = await getDate({ format: "rfc2822" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Invalid arguments for tool get-date/);
    expect(text(result)).toMatch(/\bformat: Invalid option/);
  });

  it("lists the zone list and a few current-time resources named by zone", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("time://zones");
    expect(uris).toContain("time://now/Asia/Taipei");
    expect(uris).toContain("time://now/UTC");
  });

  it("reads the IANA zone list as JSON", async () => {
    const { contents } = await client.readResource({ uri: "time://zones" });
    expect(contents[0]?.mimeType).toBe("application/json");
    const zones = JSON.parse(resourceText(contents)) as string[];
    expect(zones).toContain("UTC");
    expect(zones).toContain("America/New_York");
    expect(zones.length).toBeGreaterThan(300);
  });

  it("offers the time://now/{+timezone} template and reads a URI expanded from it", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    const template = resourceTemplates.find((t) => t.uriTemplate === "time://now/{+timezone}");
    expect(template).toBeDefined();
    const uri = new UriTemplate("time://now/{+timezone}").expand({ timezone: "America/New_York" });
    expect(uri).toBe("time://now/America/New_York");
    const { contents } = await client.readResource({ uri });
    const body = JSON.parse(resourceText(contents)) as { timezone: string; iso: string; timestamp: number };
    expect(body.timezone).toBe("America/New_York");
    expect(body.iso).toMatch(/[-+]0[45]:00$/);
    expect(Math.abs(body.timestamp - Date.now())).toBeLessThan(60_000);
  });

  it("reads a percent-encoded zone as well", async () => {
    const { contents } = await client.readResource({ uri: "time://now/Asia%2FTaipei" });
    expect((JSON.parse(resourceText(contents)) as { timezone: string }).timezone).toBe("Asia/Taipei");
  });

  it("refuses to read the current time in an unknown zone, naming the zone", async () => {
    await expect(client.readResource({ uri: "time://now/Mars%2FOlympus_Mons" })).rejects.toThrow(/Unknown timezone "Mars\/Olympus_Mons"/);
  });

  it("completes the template's timezone variable", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/resource", uri: "time://now/{+timezone}" },
      argument: { name: "timezone", value: "Asia/Tai" },
    });
    expect(completion.values).toEqual(["Asia/Taipei"]);
  });

  it("lists the time-in prompt and fills it for a city", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.find((p) => p.name === "time-in")?.arguments).toEqual([expect.objectContaining({ name: "place", required: true })]);
    const prompt = await client.getPrompt({ name: "time-in", arguments: { place: "Taipei" } });
    const message = prompt.messages[0];
    expect(message?.role).toBe("user");
    expect(message?.content.type === "text" && message.content.text).toContain('timezone "Asia/Taipei"');
  });

  it("completes the prompt's place argument", async () => {
    const { completion } = await client.complete({ ref: { type: "ref/prompt", name: "time-in" }, argument: { name: "place", value: "europe/berl" } });
    expect(completion.values).toContain("Europe/Berlin");
  });
});
