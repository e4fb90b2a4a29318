/**
 * What a contract upload with breaking changes says, in one sentence a CI log reader cannot misread: how many
 * changes break clients of which version, whether the new version is active, and why (the organization's
 * policy), with the next step. Before, the answer printed "REJECTED" beside "is now active" and exited 0.
 */
import type { BreakingChangesPolicy } from "../engine";

export interface BreakingUpload {
  project: string;
  /** The uploaded version. */
  version: number;
  /** The version it was compared with: the one active at upload. */
  comparedWithVersion: number;
  breakingChanges: number;
  activated: boolean;
  policy: BreakingChangesPolicy;
}

export function breakingStatement(upload: BreakingUpload): string | null {
  const { project, version, comparedWithVersion: from, breakingChanges: count } = upload;
  if (count === 0 && upload.activated) return null;
  const changes = `${count} breaking ${count === 1 ? "change" : "changes"} for clients of v${from}`;
  if (upload.activated) {
    return `${changes}; v${version} is active because this organization's policy warns (policies/conformance.json contractEvolution.breakingChanges is "${upload.policy}"): clients written against v${from} must be updated. arbiter contract --fail-on-breaking fails CI on this.`;
  }
  return `${changes}; v${version} is stored but NOT active because this organization's policy refuses breaking changes (policies/conformance.json contractEvolution.breakingChanges is "${upload.policy}"). Activate it after review with POST /api/v1/projects/${project}/contracts/${version}/activate?allowBreaking=true.`;
}
