// IANA time zones as this runtime's Intl knows them.

/** Every zone Intl supports; Intl lists only canonical zones, which leaves out the most used one of all, UTC. */
export const TIME_ZONES: readonly string[] = ["UTC", ...Intl.supportedValuesOf("timeZone")];

/** Shown wherever a user needs an example of a valid zone. */
export const EXAMPLE_ZONES = ["Asia/Taipei", "America/New_York"] as const;

/**
 * The zone's canonical spelling, or undefined when Intl does not know it.
 * Intl also accepts aliases ("Asia/Calcutta") and any letter case ("utc").
 */
export function canonicalZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export function unknownZoneMessage(zone: string): string {
  return `Unknown timezone "${zone}": use an IANA time zone name such as "${EXAMPLE_ZONES[0]}" or "${EXAMPLE_ZONES[1]}" (the resource time://zones lists them all).`;
}

/** Resolves a zone name or a city ("taipei", "New York") to a zone. */
export function zoneForPlace(place: string): string | undefined {
  const zone = canonicalZone(place.trim());
  if (zone) return zone;
  const city = place.trim().replace(/\s+/g, "_").toLowerCase();
  return TIME_ZONES.find((candidate) => candidate.toLowerCase().split("/").pop() === city);
}

/** Completion candidates for a partly typed zone or city: prefix matches first, then any zone containing it. */
export function completeZone(partial: string): string[] {
  const needle = partial.trim().replace(/\s+/g, "_").toLowerCase();
  const starts = TIME_ZONES.filter((zone) => zone.toLowerCase().startsWith(needle));
  const contains = TIME_ZONES.filter((zone) => !zone.toLowerCase().startsWith(needle) && zone.toLowerCase().includes(needle));
  return [...starts, ...contains];
}
