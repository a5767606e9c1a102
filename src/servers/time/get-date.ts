// The get-date tool's behaviour, apart from the MCP plumbing, so it can be tested with a fixed clock.

export const DATE_FORMATS = ["iso", "locale", "date-only", "time-only", "timestamp"] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** ISO 8601 wall time in the zone with the zone's offset, e.g. 2026-01-07T20:30:00.000+08:00. */
export function zonedIso(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "longOffset",
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? "";
  // longOffset reads "GMT+08:00", or plain "GMT" for a zero offset.
  const offset = part("timeZoneName").replace(/^GMT/, "") || "+00:00";
  const millis = String(now.getUTCMilliseconds()).padStart(3, "0");
  return `${part("year")}-${part("month")}-${part("day")}T${part("hour")}:${part("minute")}:${part("second")}.${millis}${offset}`;
}

/**
 * The date in the requested format. Without a zone: iso is UTC (toISOString) and the
 * locale formats use the server's own zone. Locale formats are always en-US so that
 * the answer does not change with the environment the server happens to run in.
 * The zone must already be known valid.
 */
export function formatDate(now: Date, format: DateFormat, timeZone?: string): string {
  const zone = timeZone === undefined ? {} : { timeZone };
  switch (format) {
    case "iso":
      return timeZone === undefined ? now.toISOString() : zonedIso(now, timeZone);
    case "locale":
      return now.toLocaleString("en-US", zone);
    case "date-only":
      return now.toLocaleDateString("en-US", zone);
    case "time-only":
      return now.toLocaleTimeString("en-US", zone);
    case "timestamp":
      return now.getTime().toString();
  }
}
