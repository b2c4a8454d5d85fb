// How a time reads in what fae tells a person: to the minute, in UTC, said
// so ("2026-11-29 08:28 UTC"), the same in /status, /usage and /approvals.

/** `iso` (an ISO 8601 UTC time, as toISOString gives) to the minute. */
export const utcMinute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
harden(utcMinute);
