import { McpServer, ResourceTemplate, completable, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { z } from "zod";
import { PACKAGE_VERSION } from "../../version.js";
import { STATIC_LIST_HINTS } from "../list-hints.js";
import { DATE_FORMATS, formatDate, zonedIso } from "./get-date.js";
import { canonicalZone, completeZone, EXAMPLE_ZONES, TIME_ZONES, unknownZoneMessage, zoneForPlace } from "./time-zones.js";

// Reserved expansion ({+...}) lets the zone keep its '/': time://now/Asia/Taipei. A
// percent-encoded zone (what some clients send) is decoded on read, so both spellings work.
const NOW_TEMPLATE = "time://now/{+timezone}";

export function nowUri(zone: string): string {
  return `time://now/${zone}`;
}

// The template lists a handful of zones rather than all ~400: resources/list stays readable,
// and completion on {timezone} reaches every zone.
const LISTED_ZONES = ["UTC", "America/New_York", "America/Los_Angeles", "Europe/London", "Europe/Berlin", "Asia/Kolkata", "Asia/Taipei", "Asia/Tokyo", "Australia/Sydney"];

/** The bundled time server: get-date, the zone list, the current time per zone, and a prompt. */
export function createTimeServer(): McpServer {
  const server = new McpServer({ name: "toolbridge-time", title: "toolbridge time", version: PACKAGE_VERSION }, { cacheHints: STATIC_LIST_HINTS });

  server.registerTool(
    "get-date",
    {
      description: "Get the current date and time with optional formatting",
      inputSchema: z.object({
              format: z.enum(DATE_FORMATS).optional().describe("Date format: 'iso' (default), 'locale', 'date-only', 'time-only', or 'timestamp'"),
              timezone: z.string().optional().describe("Optional timezone (e.g., 'Asia/Taipei', 'America/New_York')"),
            }),
      annotations: { title: "Get date", readOnlyHint: true, openWorldHint: false },
    },
    ({ format = "iso", timezone }) => {
      if (timezone !== undefined && canonicalZone(timezone) === undefined) {
        return { content: [{ type: "text", text: unknownZoneMessage(timezone) }], isError: true };
      }
      return { content: [{ type: "text", text: formatDate(new Date(), format, timezone) }] };
    },
  );

  server.registerResource(
    "time-zones",
    "time://zones",
    { title: "IANA time zones", description: "Every IANA time zone name this server accepts, as a JSON array.", mimeType: "application/json" },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(TIME_ZONES) }] }),
  );

  server.registerResource(
    "time-now",
    new ResourceTemplate(NOW_TEMPLATE, {
      list: () => ({
        resources: LISTED_ZONES.map((zone) => ({ uri: nowUri(zone), name: `time-now-${zone}`, title: `Current time in ${zone}`, mimeType: "application/json" })),
      }),
      complete: { timezone: (value) => completeZone(safeDecode(value)) },
    }),
    {
      title: "Current time in a zone",
      description: `The current time in an IANA zone as JSON {timezone, iso, locale, timestamp}, e.g. time://now/${EXAMPLE_ZONES[0]}.`,
      mimeType: "application/json",
    },
    (uri, variables) => {
      const raw = variables.timezone;
      const requested = safeDecode(Array.isArray(raw) ? raw.join(",") : (raw ?? ""));
      const zone = canonicalZone(requested);
      if (zone === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknownZoneMessage(requested));
      const now = new Date();
      const body = { timezone: zone, iso: zonedIso(now, zone), locale: formatDate(now, "locale", zone), timestamp: now.getTime() };
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(body) }] };
    },
  );

  server.registerPrompt(
    "time-in",
    {
      title: "Time in a place",
      description: "Ask for the current time in a city or IANA time zone.",
      argsSchema: z.object({
              place: completable(z.string().describe("A city or IANA time zone, e.g. 'Taipei' or 'Asia/Taipei'"), (value) => completeZone(value)),
            }),
    },
    ({ place }) => {
      const zone = zoneForPlace(place);
      const how = zone
        ? `Call the get-date tool with timezone "${zone}" and format "locale"`
        : `Call the get-date tool with the IANA time zone of ${place} (for example "${EXAMPLE_ZONES[0]}") and format "locale"`;
      return {
        description: `Current time in ${place}`,
        messages: [{ role: "user", content: { type: "text", text: `What time is it in ${place} right now? ${how}, then answer in one sentence.` } }],
      };
    },
  );

  return server;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
