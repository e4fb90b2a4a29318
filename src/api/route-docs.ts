/**
 * What each REST route accepts and answers, beside the route table: the source of the implementation snapshot
 * that test/worker/api/openapi-contract.test.ts checks against the contract (src/api/openapi.json) with
 * Arbiter's own engine. A route without an entry here fails that test, and so does an entry the contract lacks.
 * Schemas are not repeated here: real answers are validated against the contract's schemas in the REST tests.
 */
export interface RouteDoc {
  operationId: string;
  /** Query parameters the route reads; a trailing "!" marks a required one. */
  query?: readonly string[];
  /** Media types of the request body; absent when the route reads none. */
  body?: readonly string[];
  /** Whether the body may be left out (a document comparison with ?to=). */
  bodyOptional?: boolean;
  /** The success status and the media types it may have. */
  ok: readonly [number, readonly string[]];
  /** Error statuses of the route itself (problem+json); 401, 403, 429 and 500 come from the router and OAuth layer. */
  errors: readonly number[];
}

const JSON_ONLY = ["application/json"] as const;
const VERDICT_MEDIA = [
  "application/json",
  "text/markdown",
  "application/xml",
  "application/sarif+json",
  "text/plain",
] as const;
const DOCUMENT_MEDIA = ["application/json", "application/yaml"] as const;
const FORMAT_QUERY = ["format", "formats", "artifact"] as const;
const PAGE_QUERY = ["limit", "before"] as const;
const P = "/api/v1/projects/:project";

/** Keyed by `${method} ${path}` exactly as the route table has them. */
export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  "GET /api/v1/whoami": { operationId: "getWhoami", ok: [200, JSON_ONLY], errors: [] },
  "GET /api/v1/storage": { operationId: "getStorage", query: ["limit", "after"], ok: [200, JSON_ONLY], errors: [400] },
  "POST /api/v1/storage/retention-runs": { operationId: "runRetention", ok: [200, JSON_ONLY], errors: [404] },
  "GET /api/v1/organization": { operationId: "getOrganization", ok: [200, JSON_ONLY], errors: [] },
  "PATCH /api/v1/organization": {
    operationId: "changeOrganization",
    query: ["dryRun"],
    body: ["application/json", "application/yaml"],
    ok: [200, JSON_ONLY],
    errors: [400, 409, 422],
  },
  "PUT /api/v1/organization": {
    operationId: "applyOrganization",
    query: ["dryRun"],
    body: ["application/json", "application/yaml"],
    ok: [200, JSON_ONLY],
    errors: [400, 409, 422],
  },
  "PUT /api/v1/organization/secrets/:name": {
    operationId: "setOrganizationSecret",
    body: JSON_ONLY,
    ok: [200, JSON_ONLY],
    errors: [400, 404, 503],
  },
  "GET /api/v1/organization/members": {
    operationId: "listOrganizationMembers",
    query: ["limit", "after"],
    ok: [200, JSON_ONLY],
    errors: [400],
  },
  "PUT /api/v1/organization/members/:email": {
    operationId: "putOrganizationMember",
    body: JSON_ONLY,
    ok: [200, JSON_ONLY],
    errors: [400, 409],
  },
  "DELETE /api/v1/organization/members/:email": {
    operationId: "removeOrganizationMember",
    ok: [200, JSON_ONLY],
    errors: [400, 404, 409],
  },
  "POST /api/v1/organization/invitations": {
    operationId: "createOrganizationInvitation",
    body: JSON_ONLY,
    ok: [201, JSON_ONLY],
    errors: [400, 409],
  },
  "GET /api/v1/organization/invitations": {
    operationId: "listOrganizationInvitations",
    query: PAGE_QUERY,
    ok: [200, JSON_ONLY],
    errors: [400],
  },
  "DELETE /api/v1/organization/invitations/:id": {
    operationId: "withdrawOrganizationInvitation",
    ok: [200, JSON_ONLY],
    errors: [400, 404, 409],
  },
  "GET /api/v1/organization/changes": {
    operationId: "listOrganizationChanges",
    query: PAGE_QUERY,
    ok: [200, JSON_ONLY],
    errors: [400],
  },
  "POST /api/v1/organization/upstream/test": {
    operationId: "testOrganizationUpstream",
    ok: [200, JSON_ONLY],
    errors: [],
  },
  "GET /api/v1/openapi.json": { operationId: "getOpenApi", ok: [200, JSON_ONLY], errors: [] },
  "GET /api/v1/audit/events": {
    operationId: "listAuditEvents",
    query: [
      "from",
      "to",
      "userId",
      "clientId",
      "target",
      "kind",
      "outcome",
      "correlationId",
      "limit",
      "cursor",
      "organizationId",
    ],
    ok: [200, JSON_ONLY],
    errors: [400],
  },
  "GET /api/v1/audit/trail": { operationId: "getAuditTrail", ok: [200, JSON_ONLY], errors: [] },
  "GET /api/v1/mcp/tolerances": { operationId: "listMcpTolerances", ok: [200, JSON_ONLY], errors: [] },
  "POST /api/chat": { operationId: "chat", body: JSON_ONLY, ok: [200, JSON_ONLY], errors: [400, 413, 503] },
  "POST /api/v1/keys": {
    operationId: "createCiKey",
    body: JSON_ONLY,
    ok: [201, JSON_ONLY],
    errors: [400, 403, 409, 413],
  },
  "GET /api/v1/keys": { operationId: "listCiKeys", query: ["limit", "after"], ok: [200, JSON_ONLY], errors: [400] },
  "DELETE /api/v1/keys/:id": { operationId: "revokeCiKey", ok: [200, JSON_ONLY], errors: [400, 403, 404] },
  "GET /api/v1/clients": {
    operationId: "listConnectedClients",
    query: ["limit", "cursor"],
    ok: [200, JSON_ONLY],
    errors: [400],
  },
  "DELETE /api/v1/clients/grants/:userId/:grantId": {
    operationId: "revokeConnectedClient",
    ok: [200, JSON_ONLY],
    errors: [400, 404],
  },
  "GET /api/v1/projects": {
    operationId: "listProjects",
    query: ["limit", "after"],
    ok: [200, JSON_ONLY],
    errors: [400],
  },
  [`GET ${P}`]: { operationId: "getProject", ok: [200, JSON_ONLY], errors: [400, 404] },
  [`POST ${P}/contracts`]: {
    operationId: "uploadContract",
    query: ["label", "allowEmpty", "create", ...FORMAT_QUERY],
    body: DOCUMENT_MEDIA,
    ok: [201, VERDICT_MEDIA],
    errors: [400, 403, 404, 409, 413, 422, 507],
  },
  [`GET ${P}/contracts`]: { operationId: "listContracts", query: PAGE_QUERY, ok: [200, JSON_ONLY], errors: [400, 404] },
  [`GET ${P}/contracts/active`]: { operationId: "getActiveContract", ok: [200, JSON_ONLY], errors: [400, 404] },
  [`GET ${P}/contracts/:version`]: { operationId: "getContract", ok: [200, JSON_ONLY], errors: [400, 404] },
  [`GET ${P}/contracts/:version/document`]: {
    operationId: "getContractDocument",
    ok: [200, DOCUMENT_MEDIA],
    errors: [400, 404],
  },
  [`POST ${P}/contracts/:version/activate`]: {
    operationId: "activateContract",
    query: ["allowBreaking"],
    ok: [200, JSON_ONLY],
    errors: [400, 404, 409, 422],
  },
  [`GET ${P}/contracts/:version/changes`]: {
    operationId: "getContractChanges",
    query: FORMAT_QUERY,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404, 409],
  },
  [`POST ${P}/contracts/compare`]: {
    operationId: "compareContracts",
    query: ["from", "to", ...FORMAT_QUERY],
    body: DOCUMENT_MEDIA,
    bodyOptional: true,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404, 409, 413, 422],
  },
  [`POST ${P}/drafts`]: {
    operationId: "checkDraft",
    query: ["contractVersion", ...FORMAT_QUERY],
    body: DOCUMENT_MEDIA,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404, 409, 413, 422],
  },
  [`POST ${P}/snapshots`]: {
    operationId: "uploadSnapshot",
    query: ["commit!", "branch", "runUrl", ...FORMAT_QUERY],
    body: DOCUMENT_MEDIA,
    ok: [201, VERDICT_MEDIA],
    errors: [400, 403, 404, 409, 413, 422, 507],
  },
  [`GET ${P}/snapshots`]: { operationId: "listSnapshots", query: PAGE_QUERY, ok: [200, JSON_ONLY], errors: [400, 404] },
  [`GET ${P}/snapshots/latest`]: {
    operationId: "getLatestSnapshot",
    query: FORMAT_QUERY,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404],
  },
  [`GET ${P}/snapshots/:id`]: {
    operationId: "getSnapshot",
    query: FORMAT_QUERY,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404],
  },
  [`GET ${P}/snapshots/:id/document`]: {
    operationId: "getSnapshotDocument",
    ok: [200, DOCUMENT_MEDIA],
    errors: [400, 404],
  },
  [`POST ${P}/builds`]: {
    operationId: "recordBuild",
    body: JSON_ONLY,
    ok: [201, JSON_ONLY],
    errors: [400, 403, 404, 413, 507],
  },
  [`GET ${P}/accepted-breaks`]: { operationId: "listAcceptedBreaks", ok: [200, JSON_ONLY], errors: [400, 404] },
  [`POST ${P}/accepted-breaks`]: {
    operationId: "acceptBreak",
    body: JSON_ONLY,
    ok: [201, JSON_ONLY],
    errors: [400, 404, 409, 413],
  },
  [`DELETE ${P}/accepted-breaks/:id`]: { operationId: "revokeAcceptedBreak", ok: [200, JSON_ONLY], errors: [400, 404] },
  [`POST ${P}/usage`]: { operationId: "ingestUsage", body: JSON_ONLY, ok: [201, JSON_ONLY], errors: [400, 404, 413] },
  [`GET ${P}/builds`]: { operationId: "listBuilds", query: PAGE_QUERY, ok: [200, JSON_ONLY], errors: [400, 404] },
  [`POST ${P}/exchanges`]: {
    operationId: "uploadExchanges",
    query: ["contractVersion", "commit", "branch", "runUrl", ...FORMAT_QUERY],
    body: ["application/json", "application/x-ndjson"],
    ok: [201, VERDICT_MEDIA],
    errors: [400, 403, 404, 409, 413, 422, 507],
  },
  [`GET ${P}/exchanges`]: {
    operationId: "listExchangeRuns",
    query: PAGE_QUERY,
    ok: [200, JSON_ONLY],
    errors: [400, 404],
  },
  [`GET ${P}/exchanges/latest`]: {
    operationId: "getLatestExchangeRun",
    query: FORMAT_QUERY,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404],
  },
  [`GET ${P}/exchanges/:id`]: {
    operationId: "getExchangeRun",
    query: FORMAT_QUERY,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404],
  },
  [`GET ${P}/verdicts`]: { operationId: "listVerdicts", query: PAGE_QUERY, ok: [200, JSON_ONLY], errors: [400, 404] },
  [`GET ${P}/verdicts/:id`]: {
    operationId: "getVerdict",
    query: FORMAT_QUERY,
    ok: [200, VERDICT_MEDIA],
    errors: [400, 404],
  },
};
