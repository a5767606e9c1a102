import { describe, expect, it } from "vitest";
import { formatDate, zonedIso } from "../../src/servers/time/get-date.js";
import { canonicalZone, completeZone, TIME_ZONES, zoneForPlace } from "../../src/servers/time/time-zones.js";

// 2026-01-07T12:34:56.789Z: winter in the north, summer (DST) in Sydney.
const WINTER = new Date(Date.UTC(2026, 0, 7, 12, 34, 56, 789));
// 2026-07-01T23:30:00.000Z: New York on daylight time, Taipei already on the next day.
const SUMMER = new Date(Date.UTC(2026, 6, 1, 23, 30, 0, 0));

describe("zonedIso", () => {
  it.each([
    [WINTER, "Asia/Taipei", "2026-01-07T20:34:56.789+08:00"],
    [WINTER, "America/New_York", "2026-01-07T07:34:56.789-05:00"],
    [SUMMER, "America/New_York", "2026-07-01T19:30:00.000-04:00"],
    [SUMMER, "Asia/Taipei", "2026-07-02T07:30:00.000+08:00"],
    [WINTER, "Australia/Sydney", "2026-01-07T23:34:56.789+11:00"],
    [WINTER, "Asia/Kathmandu", "2026-01-07T18:19:56.789+05:45"],
    [WINTER, "UTC", "2026-01-07T12:34:56.789+00:00"],
    [new Date(Date.UTC(2026, 0, 7, 0, 5)), "Europe/London", "2026-01-07T00:05:00.000+00:00"],
  ])("writes %o in %s as %s", (date, zone, expected) => {
    expect(zonedIso(date, zone)).toBe(expected);
    expect(Date.parse(expected)).toBe(date.getTime());
  });
});

describe("formatDate", () => {
  it("follows the seed's executeGetDate for every format", () => {
    expect(formatDate(WINTER, "iso")).toBe("2026-01-07T12:34:56.789Z");
    expect(formatDate(WINTER, "locale", "Asia/Taipei")).toBe("1/7/2026, 8:34:56 PM");
    expect(formatDate(WINTER, "date-only", "Pacific/Pago_Pago")).toBe("1/7/2026");
    expect(formatDate(WINTER, "date-only", "Pacific/Kiritimati")).toBe("1/8/2026");
    expect(formatDate(WINTER, "time-only", "America/New_York")).toBe("7:34:56 AM");
    expect(formatDate(WINTER, "timestamp")).toBe(String(WINTER.getTime()));
    expect(formatDate(WINTER, "timestamp", "Asia/Taipei")).toBe(String(WINTER.getTime()));
  });
});

describe("time zones", () => {
  it("knows canonical zones, aliases and any letter case, and nothing else", () => {
    expect(canonicalZone("Asia/Taipei")).toBe("Asia/Taipei");
    expect(canonicalZone("utc")).toBe("UTC");
    expect(canonicalZone("Asia/Calcutta")).toBeDefined();
    expect(canonicalZone("Mars/Olympus_Mons")).toBeUndefined();
    expect(canonicalZone("")).toBeUndefined();
  });

  it("lists UTC with the IANA zones", () => {
    expect(TIME_ZONES[0]).toBe("UTC");
    expect(TIME_ZONES).toContain("Europe/Berlin");
  });

  it("finds the zone of a city by its name", () => {
    expect(zoneForPlace("Taipei")).toBe("Asia/Taipei");
    expect(zoneForPlace("new york")).toBe("America/New_York");
    expect(zoneForPlace("Europe/Paris")).toBe("Europe/Paris");
    expect(zoneForPlace("Atlantis")).toBeUndefined();
  });

  it("completes prefixes first, then zones containing the text", () => {
    expect(completeZone("america/new")).toEqual(["America/New_York"]);
    expect(completeZone("new_")).toEqual(["America/New_York", "America/North_Dakota/New_Salem"]);
    expect(completeZone("new ")).toEqual(["America/New_York", "America/North_Dakota/New_Salem"]);
    const indian = completeZone("indian");
    expect(indian[0]).toBe("Indian/Antananarivo");
    expect(indian.indexOf("America/Indianapolis")).toBeGreaterThan(indian.lastIndexOf("Indian/Reunion"));
    expect(completeZone("london")[0]).toBe("Europe/London");
  });
});
