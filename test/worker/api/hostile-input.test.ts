/**
 * Every REST operation of src/api/openapi.json, called with malformed input: path parameters that are too long,
 * not UTF-8, not numbers or out of range; query parameters that are empty, negative, repeated, huge or badly
 * percent-encoded; bodies that are empty, truncated, of the wrong JSON type, nested past any sane depth, not UTF-8
 * or sent under the wrong media type. Each answer must be a clear refusal or a normal answer: never a 5xx, always
 * declared by the contract for its status (problem+json for errors, with a detail), and never a stack trace.
 */
import { beforeAll, describe, expect, it } from "vitest";
import contract from "../../../src/api/openapi.json";
import { getPolicy } from "../../../src/policy/load";
import { callJson, contractProblems } from "../contracts-api/api-helpers";
import { ordersContract, text } from "../contracts-api/fixtures";
import { signedIn } from "../console/console-helpers";
import { operator } from "../directory/helpers";
import { fetchAs, restPrincipal, type Caller } from "../harness";
import { BASE } from "../helpers";

interface Parameter {
  name: string;
  in: string;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  mediaTypes: string[];
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function operations(): Operation[] {
  const paths = contract.paths as Record<string, Record<string, { parameters?: Parameter[]; requestBody?: unknown }>>;
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const body = operation.requestBody as { content?: Record<string, unknown> } | undefined;
      found.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        mediaTypes: Object.keys(body?.content ?? {}),
      });
    }
  }
  return found;
}

/** A valid value for each path parameter, so that one parameter at a time can be made hostile. */
const GOOD_PATH_VALUES: Record<string, string> = {
  project: "orders",
  version: "1",
  id: "1",
  userId: "ana",
  grantId: "g1",
  name: "UPSTREAM_TOKEN",
  email: "someone%40acme.example",
};

const HOSTILE_SEGMENTS = [
  "x".repeat(4096),
  "%ZZ",
  "%C3%28",
  "%00",
  "..%2F..%2Fadmin",
  "-1",
  "1e309",
  "99999999999999999999999",
  "%F0%9F%92%A9",
  "%20",
];

const HOSTILE_QUERY_VALUES = ["", "-1", "abc", "0", "1e309", "99999999999999999999999", "%ZZ", "x".repeat(8192)];

const HOSTILE_BODIES: { label: string; body: BodyInit; contentType: string }[] = [
  { label: "empty", body: "", contentType: "application/json" },
  { label: "truncated JSON", body: '{"a": [1, 2', contentType: "application/json" },
  { label: "JSON null", body: "null", contentType: "application/json" },
  { label: "JSON array", body: "[1, 2, 3]", contentType: "application/json" },
  { label: "JSON string", body: '"text"', contentType: "application/json" },
  {
    label: "deeply nested JSON",
    body: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    contentType: "application/json",
  },
  {
    label: "not UTF-8",
    body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    contentType: "application/json",
  },
  { label: "broken YAML", body: "a: [1, 2\nb: {", contentType: "application/yaml" },
  { label: "an unsupported media type", body: "<xml/>", contentType: "application/xml" },
  { label: "no content type", body: '{"a": 1}', contentType: "" },
];

function pathWith(operation: Operation, hostile?: { name: string; value: string }): string {
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    hostile?.name === name ? hostile.value : (GOOD_PATH_VALUES[name] ?? "x"),
  );
}

/**
 * An administrator with every REST scope, as a new OAuth client every 100 calls: the REST quota (120 a minute per
 * client, policies/rate-limits.json) would otherwise answer most of these calls with 429 before they reach the
 * operation.
 */
let current: { caller: Caller; calls: number } | undefined;
function admin(): Caller {
  if (!current || current.calls >= 100) {
    const policy = getPolicy();
    const scopes = policy.scopeNames.filter((scope) => policy.scopes[scope]?.resources.includes("api"));
    current = { caller: restPrincipal("ana", scopes.join(" ")), calls: 0 };
  }
  current.calls++;
  return current.caller;
}

beforeAll(async () => {
  expect(
    (await callJson(admin(), "POST", "/projects/orders/contracts?label=hostile", text(ordersContract()))).status,
  ).toBe(201);
});

async function expectClearAnswer(
  label: string,
  method: string,
  path: string,
  init: { body?: BodyInit; contentType?: string } = {},
): Promise<string[]> {
  const headers: Record<string, string> = init.contentType ? { "Content-Type": init.contentType } : {};
  const response = await fetchAs(admin(), `${BASE}${path}`, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const answer = await response.text();
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`${label}: ${response.status} ${answer.slice(0, 200)}`);
  if (/\n\s+at .+:\d+:\d+/.test(answer)) problems.push(`${label}: a stack trace in the answer`);
  let parsed: unknown = answer;
  try {
    parsed = JSON.parse(answer);
  } catch {
    // Not JSON: the contract check says whether that is allowed.
  }
  if (response.status >= 400) {
    const type = response.headers.get("content-type") ?? "";
    if (!type.startsWith("application/problem+json")) problems.push(`${label}: ${response.status} as ${type}`);
    else if (typeof (parsed as { detail?: unknown }).detail !== "string")
      problems.push(`${label}: ${response.status} without a detail`);
  }
  const url = `${BASE}${path.split("?")[0]}`;
  for (const problem of contractProblems(method, url, response.status, response.headers.get("content-type"), parsed))
    problems.push(`${label}: ${problem}`);
  return problems;
}

const OPERATIONS = operations();

describe.each(OPERATIONS.filter((operation) => operation.parameters.length > 0))(
  "$method $path with malformed input",
  (operation) => {
    const pathParameters = operation.parameters.filter((p) => p.in === "path");
    const queryParameters = operation.parameters.filter((p) => p.in === "query");
    // An operation without path (or query) parameters gets no test of them, rather than one that checks nothing.
    if (pathParameters.length > 0)
      it("answers every hostile path parameter with a declared refusal", async () => {
        const problems: string[] = [];
        for (const parameter of pathParameters)
          for (const value of HOSTILE_SEGMENTS)
            problems.push(
              ...(await expectClearAnswer(
                `{${parameter.name}} = ${value.slice(0, 20)}`,
                operation.method,
                pathWith(operation, { name: parameter.name, value }),
              )),
            );
        expect(problems).toEqual([]);
      });

    if (queryParameters.length > 0)
      it("answers every hostile query parameter with a declared refusal", async () => {
        const problems: string[] = [];
        const base = pathWith(operation);
        for (const parameter of queryParameters) {
          for (const value of HOSTILE_QUERY_VALUES)
            problems.push(
              ...(await expectClearAnswer(
                `?${parameter.name}=${value.slice(0, 20)}`,
                operation.method,
                `${base}?${parameter.name}=${value}`,
              )),
            );
          problems.push(
            ...(await expectClearAnswer(
              `?${parameter.name} twice`,
              operation.method,
              `${base}?${parameter.name}=1&${parameter.name}=2`,
            )),
          );
        }
        expect(problems).toEqual([]);
      });
  },
);

describe.each(OPERATIONS.filter((operation) => !["GET", "DELETE"].includes(operation.method)))(
  "$method $path with a malformed body",
  (operation) => {
    it("answers every malformed body with a declared refusal", async () => {
      const problems: string[] = [];
      for (const { label, body, contentType } of HOSTILE_BODIES)
        problems.push(
          ...(await expectClearAnswer(`body ${label}`, operation.method, pathWith(operation), { body, contentType })),
        );
      expect(problems).toEqual([]);
    });
  },
);

describe("the operator API with malformed path segments", () => {
  it("answers a member address that is not percent-encoded UTF-8 with 400, not a crash", async () => {
    expect((await operator("POST", "/organizations", { id: "hostile", name: "Hostile" })).status).toBe(201);
    for (const segment of ["%ZZ", "%C3%28", "%E0%A4%A"]) {
      const put = await operator("PUT", `/organizations/hostile/members/${segment}`, { role: "member" });
      expect(put.status).toBe(400);
      expect(put.body.code ?? put.body.type).toMatch(/invalid_path/);
      expect(put.body.detail).toContain("encodeURIComponent");
      const removed = await operator("DELETE", `/organizations/hostile/members/${segment}`);
      expect(removed.status).toBe(400);
    }
  });
});

const MARKUP = `"><script>alert(1)</script>`;

describe("the admin console with malformed paths and queries", () => {
  const PAGES = [
    "/admin",
    "/admin/clients",
    "/admin/keys",
    "/admin/projects",
    "/admin/audit",
    "/admin/usage",
    "/admin/organization",
    "/admin/projects/orders",
  ];
  const PROJECT_PATHS = [
    "/admin/projects/:segment",
    "/admin/projects/orders/verdicts/:segment",
    "/admin/projects/orders/verdicts/:segment/report.md",
    "/admin/projects/orders/contracts/:segment/changes",
    "/admin/projects/orders/contracts/:segment/document",
    "/admin/projects/orders/snapshots/:segment/document",
  ];

  it("answers every page's hostile query with a page, never a 5xx, and never echoes markup unescaped", async () => {
    const ana = await signedIn("ana");
    const problems: string[] = [];
    for (const page of PAGES) {
      // The audit page reads every filter; the others read at most a notice (`done`) and a page's bounds.
      const names =
        page === "/admin/audit"
          ? ["from", "to", "userId", "clientId", "target", "outcome", "cursor", "limit", "done"]
          : ["done", "cursor", "limit"];
      for (const name of names) {
        for (const value of ["%ZZ", "x".repeat(4096), encodeURIComponent(MARKUP)]) {
          const { status, text } = await ana.get(`${page}?${name}=${value}`);
          const label = `${page}?${name}=${value.slice(0, 20)}`;
          if (status >= 500) problems.push(`${label}: ${status}`);
          if (text.includes("<script>alert(1)")) problems.push(`${label}: markup echoed unescaped`);
          if (/\n\s+at .+:\d+:\d+/.test(text)) problems.push(`${label}: a stack trace`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("answers every project page's hostile path segment with a page, never a 5xx or unescaped markup", async () => {
    const ana = await signedIn("ana");
    const problems: string[] = [];
    for (const template of PROJECT_PATHS) {
      for (const segment of [...HOSTILE_SEGMENTS, encodeURIComponent(MARKUP)]) {
        const { status, text } = await ana.get(template.replace(":segment", segment));
        const label = `${template} with ${segment.slice(0, 20)}`;
        if (status >= 500) problems.push(`${label}: ${status}`);
        if (text.includes("<script>alert(1)")) problems.push(`${label}: markup echoed unescaped`);
        if (/\n\s+at .+:\d+:\d+/.test(text)) problems.push(`${label}: a stack trace`);
      }
    }
    expect(problems).toEqual([]);
  });
});
