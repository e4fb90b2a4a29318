/**
 * Accepted breaks (src/engine/verdict/acceptance.ts, stored by acceptance-table.ts): a team accepts a known breaking change of
 * a project with a reason, an owner and an expiry; until it expires (or is revoked) the change is "accepted" in the
 * project's verdicts instead of an error. One door for REST, the MCP tools, the CLI and the console: the input is
 * checked here, the change is named by its fingerprint, or by its rule and location (the fingerprint is computed), and
 * a fingerprint alone is looked up in the project's latest verdicts so the record says what was accepted.
 */
import { z } from "zod";
import { Failure } from "../../core/failure";
import { type AcceptedBreak, breakFingerprint, FINGERPRINT_PATTERN } from "../../engine";
import type { ConformanceConfig } from "../../engine";
import type { Verdict, Violation } from "../../engine";
import type { AcceptedBreakRecord } from "../store/acceptance-table";
import { verdictBody } from "./verdicts";
import { cannotVerify } from "./failure";
import { checkProjectAccess, requireProjectStatus } from "./project-access";
import { projectStoreOf } from "./store-access";
import type { ContractsCaller } from "./caller";

/** How far ahead an acceptance may run: a break accepted for longer is a contract change, not an exception. */
export const MAX_ACCEPTANCE_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The list answers the newest acceptances first, at most this many. */
export const MAX_ACCEPTANCES_LISTED = 500;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export const acceptBreakRequest = z
  .object({
    fingerprint: z
      .string()
      .regex(FINGERPRINT_PATTERN, 'a fingerprint as verdicts give it, "bc-" and 16 hex digits')
      .optional()
      .describe("The change's fingerprint, as the verdict's violation gives it"),
    rule: z.string().min(1).max(100).optional().describe("Instead of a fingerprint: the violation's rule"),
    location: z.string().min(1).max(2000).optional().describe("Instead of a fingerprint: the violation's location"),
    reason: z.string().trim().min(3, "say why the break is accepted").max(500).describe("Why the break is accepted"),
    owner: z.string().trim().min(1).max(200).optional().describe("Who answers for it (a person or team); default: you"),
    expiresAt: z
      .string()
      .max(40)
      .describe(
        `When the acceptance ends: a date (YYYY-MM-DD, the end of that day UTC) or an ISO 8601 date-time, at most ${MAX_ACCEPTANCE_DAYS} days ahead`,
      ),
  })
  .strict();

export type AcceptBreakRequest = z.infer<typeof acceptBreakRequest>;

/** The expiry as an ISO date-time, or a failure saying what to send. */
function expiryOf(text: string, now: number): string {
  const time = DATE_ONLY.test(text) ? Date.parse(`${text}T23:59:59.999Z`) : Date.parse(text);
  const invalid = (problem: string) =>
    cannotVerify(
      "invalid_expiry",
      `expiresAt ${problem}: send a date such as 2027-03-31 or an ISO 8601 date-time.`,
      "invalid-input",
    );
  if (Number.isNaN(time) || (!DATE_ONLY.test(text) && !/^\d{4}-\d{2}-\d{2}T/.test(text)))
    throw invalid(`"${text.slice(0, 40)}" is not a date`);
  if (time <= now) throw invalid(`${new Date(time).toISOString()} is not in the future`);
  if (time > now + MAX_ACCEPTANCE_DAYS * DAY_MS)
    throw invalid(
      `${new Date(time).toISOString()} is more than ${MAX_ACCEPTANCE_DAYS} days ahead (a break accepted for longer belongs in the contract)`,
    );
  return new Date(time).toISOString();
}

/** The project's latest snapshot verdict and latest contract change: where a fingerprint from a verdict comes from. */
async function latestVerdicts(context: ContractsCaller, project: string): Promise<Verdict[]> {
  const store = await projectStoreOf(context, project);
  const status = await requireProjectStatus(context, project);
  const hashes: string[] = [];
  const snapshot = status.latestSnapshot;
  if (snapshot?.verdictId != null) {
    const record = await store.getVerdict(project, snapshot.verdictId);
    if (record) hashes.push(record.verdictHash);
  }
  if (status.activeContract) {
    const latest = (await store.listContracts(project, 1, null)).items[0];
    const changeHash = latest ? await store.contractChangeHash(project, latest.version) : null;
    if (changeHash) hashes.push(changeHash);
  }
  const verdicts = await Promise.all(hashes.map((hash) => verdictBody(context, project, hash)));
  return verdicts.filter((verdict): verdict is Verdict => verdict !== null);
}

/** The change an acceptance names: its rule and location, and their fingerprint. */
async function changeOf(
  context: ContractsCaller,
  project: string,
  request: AcceptBreakRequest,
): Promise<Pick<Violation, "rule" | "location"> & { fingerprint: string }> {
  if (request.rule !== undefined && request.location !== undefined) {
    const fingerprint = breakFingerprint(request.rule, request.location);
    if (request.fingerprint !== undefined && request.fingerprint !== fingerprint)
      throw cannotVerify(
        "fingerprint_mismatch",
        `The fingerprint ${request.fingerprint} is not the one of rule "${request.rule}" at "${request.location}" (${fingerprint}): send either the fingerprint or the rule and location.`,
        "invalid-input",
      );
    return { rule: request.rule, location: request.location, fingerprint };
  }
  if (request.fingerprint === undefined)
    throw cannotVerify(
      "missing_change",
      "Name the change to accept: its fingerprint (every error in a verdict carries one), or its rule and location.",
      "invalid-input",
    );
  const fingerprint = request.fingerprint;
  for (const verdict of await latestVerdicts(context, project)) {
    // A verdict stored before fingerprints has none written: its findings' are computed the same way.
    const found = verdict.violations.find((violation) => fingerprintOf(violation) === fingerprint);
    if (found) return { rule: found.rule, location: found.location, fingerprint };
  }
  throw cannotVerify(
    "unknown_fingerprint",
    `No finding of the latest snapshot or contract change of "${project}" has the fingerprint ${fingerprint}: check it against the verdict, or send the rule and location of the change (for a draft's findings).`,
    "not-found",
  );
}

/**
 * Accepts a break of `project` for the caller; audited by the surface's governed call. The same acceptance sent again
 * (a retry) answers the recorded one with `created: false`.
 */
export async function acceptBreak(
  context: ContractsCaller,
  project: string,
  request: AcceptBreakRequest,
): Promise<{ acceptance: AcceptedBreakRecord; created: boolean }> {
  checkProjectAccess(context.principal, project);
  const expiresAt = expiryOf(request.expiresAt, Date.now());
  const change = await changeOf(context, project, request);
  const result = await (await projectStoreOf(context, project)).acceptBreak({
    project,
    ...change,
    reason: request.reason,
    owner: request.owner ?? context.principal.userId,
    expiresAt,
    createdBy: context.principal.userId,
  });
  if (result.ok) return { acceptance: result.acceptance, created: result.created };
  if (result.code === "already_accepted") throw new Failure("conflict", result.message, {}, result.code);
  throw cannotVerify(result.code, result.message, "not-found");
}

export async function listAcceptedBreaks(context: ContractsCaller, project: string): Promise<AcceptedBreakRecord[]> {
  checkProjectAccess(context.principal, project);
  await requireProjectStatus(context, project);
  return (await projectStoreOf(context, project)).listAcceptedBreaks(project, MAX_ACCEPTANCES_LISTED);
}

export async function revokeAcceptedBreak(
  context: ContractsCaller,
  project: string,
  id: string,
): Promise<AcceptedBreakRecord> {
  checkProjectAccess(context.principal, project);
  const revoked = await (await projectStoreOf(context, project)).revokeAcceptedBreak(
    project,
    id,
    context.principal.userId,
  );
  if (!revoked)
    throw cannotVerify(
      "unknown_acceptance",
      `Project "${project}" has no accepted break ${id.slice(0, 40)}: GET /api/v1/projects/${project}/accepted-breaks lists them.`,
      "not-found",
    );
  return revoked;
}

/** A finding's fingerprint, written or (in a verdict stored before fingerprints) computed. */
export function fingerprintOf(violation: Pick<Violation, "rule" | "location" | "fingerprint">): string {
  return violation.fingerprint ?? breakFingerprint(violation.rule, violation.location);
}

/** The configuration a project's verdict uses: the organization's, with the project's acceptances in force. */
export function withAcceptances(config: ConformanceConfig, acceptances: readonly AcceptedBreak[]): ConformanceConfig {
  return acceptances.length === 0 ? config : Object.freeze({ ...config, acceptances });
}

/** The acceptances a verdict used (listed accepted findings name them). */
export function acceptedIdsOf(verdict: Verdict): string[] {
  const ids = new Set<string>();
  for (const violation of verdict.violations) if (violation.acceptance) ids.add(violation.acceptance.id);
  return [...ids];
}
