// Days as the stores count them: whole UTC days since 1970-01-01 (day 0), the
// key of click statistics, visits and conversions. A day is exactly DAY_MS:
// UTC has no daylight saving, and JavaScript time ignores leap seconds.

export const DAY_MS = 86_400_000;

/** The UTC day holding `ms` (milliseconds since 1970; before 1970 a negative day). */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** A day as its ISO 8601 date, YYYY-MM-DD. */
export const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * One number for a (route, UTC day) pair, a Map key made without a string
 * (the redirect's click and visit counters, the click batches): days stay
 * under 65,536 until the year 2149, and route ids under 2^37 keep the key an
 * exact integer.
 */
export const routeDayKey = (routeId: number, day: number): number => routeId * 65536 + day;
