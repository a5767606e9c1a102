// Kept apart from the servers themselves so the CLI can name them without loading them.
export const BUNDLED_SERVER_NAMES = ["time", "math"] as const;

export type BundledServerName = (typeof BUNDLED_SERVER_NAMES)[number];
