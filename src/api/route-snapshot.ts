/**
 * The implementation snapshot of the REST API, generated from the route table and ROUTE_DOCS: every route as an
 * operation with its path and query parameters, request body media types, responses (its own and the router's
 * 401/403/429/500) and security (the route's scopes; CI keys where they can carry them). Response and body schemas
 * are taken from the contract where it has them: the schemas are checked against real answers instead (the REST
 * tests' payload validation), the rest here. Used by the test that runs checkConformance(contract, snapshot).
 */
import { ARBITER_VERSION } from "../version";
import { CI_KEY_SCOPES } from "../oauth/cikeys";
import type { OpenApiDocument } from "../engine";
import type { RouteDoc } from "./route-docs";
import type { ApiRoute } from "./router";

const PROBLEM = "application/problem+json";
const ROUTER_ERRORS = [401, 403, 429, 500] as const;

type Json = Record<string, unknown>;

function at(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = current && typeof current === "object" ? (current as Json)[key] : undefined;
  return current;
}

/** `/api/v1/projects/:project` -> `/api/v1/projects/{project}` and its path parameter names. */
export function openApiPath(pattern: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = pattern.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    names.push(name);
    return `{${name}}`;
  });
  return { path, names };
}

export function routeKey(route: Pick<ApiRoute, "method" | "path">): string {
  return `${route.method} ${route.path}`;
}

function content(
  contract: OpenApiDocument,
  path: string,
  method: string,
  status: string,
  media: readonly string[],
): Json {
  const out: Json = {};
  for (const type of media) {
    const schema = at(contract, "paths", path, method, "responses", status, "content", type, "schema");
    out[type] = { schema: schema ?? {} };
  }
  return out;
}

function operationOf(contract: OpenApiDocument, route: ApiRoute, doc: RouteDoc): { path: string; operation: Json } {
  const { path, names } = openApiPath(route.path);
  const method = route.method.toLowerCase();
  const contractParameter = (name: string, where: string) =>
    ((at(contract, "paths", path, method, "parameters") as Json[] | undefined) ?? []).find(
      (parameter) => parameter.name === name && parameter.in === where,
    );
  const parameters = [
    ...names.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: at(contractParameter(name, "path"), "schema") ?? { type: "string" },
    })),
    ...(doc.query ?? []).map((entry) => {
      const name = entry.replace(/!$/, "");
      return {
        name,
        in: "query",
        required: entry.endsWith("!"),
        schema: at(contractParameter(name, "query"), "schema") ?? { type: "string" },
      };
    }),
  ];
  const responses: Json = {
    [String(doc.ok[0])]: {
      description: "Success",
      content: content(contract, path, method, String(doc.ok[0]), doc.ok[1]),
    },
  };
  for (const status of [...new Set([...doc.errors, ...ROUTER_ERRORS])].sort()) {
    responses[String(status)] = {
      description: "Error",
      content: content(contract, path, method, String(status), [PROBLEM]),
    };
  }
  const ciKeyCan = route.requiredScopes.every((scope) => (CI_KEY_SCOPES as readonly string[]).includes(scope));
  const operation: Json = {
    operationId: doc.operationId,
    security: [{ oauth2: [...route.requiredScopes] }, ...(ciKeyCan ? [{ ciKey: [...route.requiredScopes] }] : [])],
    responses,
    ...(parameters.length ? { parameters } : {}),
  };
  if (doc.body) {
    const body: Json = {};
    for (const type of doc.body)
      body[type] = { schema: at(contract, "paths", path, method, "requestBody", "content", type, "schema") ?? {} };
    operation.requestBody = { required: !doc.bodyOptional, content: body };
  }
  return { path, operation };
}

/** The snapshot; routes without a RouteDoc are listed in `undocumented` (the test fails on them). */
export function snapshotFromRoutes(
  contract: OpenApiDocument,
  routes: readonly ApiRoute[],
  docs: Readonly<Record<string, RouteDoc>>,
): { snapshot: OpenApiDocument; undocumented: string[] } {
  const paths: Record<string, Json> = {};
  const undocumented: string[] = [];
  for (const route of routes) {
    const doc = docs[routeKey(route)];
    if (!doc) {
      undocumented.push(routeKey(route));
      continue;
    }
    const { path, operation } = operationOf(contract, route, doc);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  const snapshot: OpenApiDocument = {
    openapi: "3.1.0",
    info: { title: "Arbiter REST API (from the route table)", version: ARBITER_VERSION },
    paths,
    components: {
      schemas: at(contract, "components", "schemas") ?? {},
      securitySchemes: at(contract, "components", "securitySchemes") ?? {},
    },
  };
  return { snapshot, undocumented };
}
