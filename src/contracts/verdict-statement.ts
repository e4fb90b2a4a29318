/**
 * How every surface states a snapshot's verdict: which contract version it was judged against, and, when that
 * is no longer the active version, that the verdict says nothing about the active one and what to do. A stored
 * verdict is about the version active at upload; calling it "approved" after a new version became active misled
 * agents (check_api_conformance against the new version says rejected).
 */
import type { SnapshotRecord } from "./store/records";

export type JudgedSnapshot = Pick<SnapshotRecord, "contractVersion" | "approved" | "totalViolations">;

export interface SnapshotVerdictStatement {
  /** "approved against contract v1", "rejected against contract v2 with 3 violations", "not checked". */
  outcome: string;
  /** The version the verdict was judged against. */
  judgedAgainst: number;
  /** False when another contract version is active now: the verdict does not speak for it. */
  judgedAgainstActive: boolean;
  /** When it is not the active one: what that means and what to do; otherwise null. */
  staleNote: string | null;
}

function violations(count: number | null): string {
  return count === null ? "violations" : `${count} ${count === 1 ? "violation" : "violations"}`;
}

export function snapshotVerdictStatement(
  snapshot: JudgedSnapshot,
  activeVersion: number | null,
  project: string,
): SnapshotVerdictStatement {
  const judged = snapshot.contractVersion;
  const outcome =
    snapshot.approved === null
      ? `not checked (contract v${judged})`
      : snapshot.approved
        ? `approved against contract v${judged}`
        : `rejected against contract v${judged} with ${violations(snapshot.totalViolations)}`;
  const judgedAgainstActive = activeVersion === null || activeVersion === judged;
  const staleNote = judgedAgainstActive
    ? null
    : `Contract v${activeVersion} is active now, so this verdict (against v${judged}) says nothing about v${activeVersion}: re-check the snapshot against v${activeVersion} (check_api_conformance for "${project}", or arbiter check), or wait for CI's next snapshot.`;
  return { outcome, judgedAgainst: judged, judgedAgainstActive, staleNote };
}
