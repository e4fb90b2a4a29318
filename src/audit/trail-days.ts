/** How the audit trail is split by day (trail.ts, store.ts): one store per organization and UTC day of records. */

/** A UTC day as the day stores are named by it. */
export const AUDIT_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day of an epoch-ms time, `YYYY-MM-DD`. */
export function dayOfTime(timeMs: number): string {
  return new Date(timeMs).toISOString().slice(0, 10);
}

/** The name of an organization's store of one day (organization ids hold no `/`, so no name is another's). */
export function dayStoreName(organizationId: string, day: string): string {
  return `${organizationId}/audit/${day}`;
}
