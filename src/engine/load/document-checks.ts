/**
 * Structural checks that make a parsed value a usable OpenAPI 3.0/3.1/3.2 document: the fields the engine and
 * payload validation rely on, every `$ref` internal and resolvable, no pure `$ref` cycles, bounded nesting.
 * It is not a full meta-schema validation (that would cost more than the check itself on a 13 MB document);
 * it refuses what would make a verdict wrong or impossible, each problem with its JSON pointer.
 */
import { findUnknownFields } from "./fixed-fields";
import { walkDocument } from "./document-walk";
import { isRecord, pointerOf } from "../normalize/normalize-pointer";
import type { RefResolver } from "../normalize/ref-resolver";
import type { DocumentProblem } from "../types";

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"] as const;
const MAX_PROBLEMS = 50;
const STATUS_KEY = /^(default|[1-5](\d\d|XX))$/i;
const PARAMETER_LOCATIONS = new Set(["query", "header", "path", "cookie", "querystring"]);

class Problems {
  readonly list: DocumentProblem[] = [];
  private dropped = 0;
  add(tokens: readonly (string | number)[], message: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push({ path: pointerOf(tokens), message });
    else this.dropped++;
  }
  finish(): DocumentProblem[] {
    if (this.dropped > 0) this.list.push({ path: "", message: `${this.dropped} more problems not listed` });
    return this.list;
  }
}

export interface StructureResult {
  problems: DocumentProblem[];
  openapiVersion: string;
  operationCount: number;
  /** Every `$ref` of the document already resolved (and cached) by the check; undefined when refused early. */
  resolver?: RefResolver;
}

export interface DocumentCheckOptions {
  /**
   * "ignore" for documents read back from storage: they were valid when stored, and a document stored before the
   * unknown-field check existed must stay readable (a snapshot is then compared with it as before).
   */
  unknownFields?: "refuse" | "ignore";
}

/**
 * Checks `value` (already parsed from JSON or YAML). `mayShareNodes`: the value may reach one object from two
 * places, or contain itself (YAML anchors and aliases do that); JSON.parse output never does, so JSON skips the
 * cycle bookkeeping.
 */
export function checkOpenApiStructure(
  value: unknown,
  mayShareNodes = true,
  options: DocumentCheckOptions = {},
): StructureResult {
  const problems = new Problems();
  if (!isRecord(value)) {
    problems.add([], "an OpenAPI document is an object with `openapi`, `info` and `paths`");
    return { problems: problems.finish(), openapiVersion: "", operationCount: 0 };
  }
  // Nesting, cycles created by YAML anchors, and every $ref resolved, in one pass over the whole value.
  const walked = walkDocument(value, mayShareNodes, problems);
  if (!walked.usable) return { problems: problems.finish(), openapiVersion: "", operationCount: 0 };

  const version = typeof value.openapi === "string" ? value.openapi : "";
  if (typeof value.swagger === "string") {
    problems.add(
      ["swagger"],
      `Swagger ${value.swagger} is not supported: convert the document to OpenAPI 3.0 or 3.1 first`,
    );
  } else if (!/^3\.[012]\.\d+(-.+)?$/.test(version)) {
    problems.add(
      ["openapi"],
      `expected an OpenAPI version 3.0.x, 3.1.x or 3.2.x, got ${JSON.stringify(value.openapi ?? null)}`,
    );
  }
  const minor = version.startsWith("3.0") ? 0 : version.startsWith("3.1") ? 1 : 2;

  if (!isRecord(value.info))
    problems.add(["info"], "`info` is required and must be an object with `title` and `version`");
  else {
    if (typeof value.info.title !== "string")
      problems.add(["info", "title"], "`info.title` is required and must be a string");
    if (typeof value.info.version !== "string")
      problems.add(["info", "version"], "`info.version` is required and must be a string (quote numbers in YAML)");
  }
  if (value.servers !== undefined) checkServers(value.servers, problems);
  if (options.unknownFields !== "ignore")
    for (const unknown of findUnknownFields(value, version, MAX_PROBLEMS))
      problems.add(unknown.tokens, unknown.message);

  let operationCount = 0;
  if (value.paths === undefined) {
    if (minor === 0) problems.add(["paths"], "`paths` is required in OpenAPI 3.0");
    else if (value.components === undefined && value.webhooks === undefined) {
      problems.add(["paths"], "an OpenAPI 3.1 document needs at least one of `paths`, `components` or `webhooks`");
    }
  } else if (!isRecord(value.paths)) {
    problems.add(["paths"], "`paths` must be an object keyed by path templates such as /orders/{id}");
  } else {
    for (const path in value.paths) {
      if (!path.startsWith("/")) problems.add(["paths", path], "path templates must start with /");
      operationCount += checkPathItem(value.paths[path], ["paths", path], minor, problems);
    }
  }
  if (value.components !== undefined && !isRecord(value.components))
    problems.add(["components"], "`components` must be an object");

  // Reference problems were found during the walk; they are listed after the structural ones.
  for (const { at, message } of walked.referenceProblems) problems.add(at, message);
  return { problems: problems.finish(), openapiVersion: version, operationCount, resolver: walked.resolver };
}

function checkServers(servers: unknown, problems: Problems): void {
  if (!Array.isArray(servers)) return problems.add(["servers"], "`servers` must be an array of { url }");
  servers.forEach((server, index) => {
    if (!isRecord(server) || typeof server.url !== "string")
      problems.add(["servers", index, "url"], "each server needs a `url` string");
  });
}

function checkPathItem(item: unknown, at: (string | number)[], minor: number, problems: Problems): number {
  if (!isRecord(item)) {
    problems.add(at, "a path item must be an object of operations");
    return 0;
  }
  if (typeof item.$ref === "string") return 0;
  if (item.parameters !== undefined) checkParameters(item.parameters, at, problems);
  let count = 0;
  for (const method of HTTP_METHODS) {
    if (item[method] === undefined) continue;
    count++;
    checkOperation(item[method], at, method, minor, problems);
  }
  if (isRecord(item.additionalOperations)) {
    for (const [method, operation] of Object.entries(item.additionalOperations)) {
      count++;
      checkOperation(operation, [...at, "additionalOperations"], method, minor, problems);
    }
  }
  return count;
}

/**
 * `parent` and `method` locate the operation; token arrays are built only for a problem (this runs for every
 * operation of every upload, and almost every operation has none).
 */
function checkOperation(
  operation: unknown,
  parent: readonly (string | number)[],
  method: string,
  minor: number,
  problems: Problems,
): void {
  const at = (...tokens: (string | number)[]) => [...parent, method, ...tokens];
  if (!isRecord(operation)) return problems.add(at(), "an operation must be an object");
  if (operation.operationId !== undefined && typeof operation.operationId !== "string") {
    problems.add(at("operationId"), "`operationId` must be a string");
  }
  if (operation.parameters !== undefined) checkParameters(operation.parameters, parent, problems, method);
  if (operation.requestBody !== undefined) {
    const body = operation.requestBody;
    if (!isRecord(body)) problems.add(at("requestBody"), "`requestBody` must be an object");
    else if (typeof body.$ref !== "string" && !isRecord(body.content)) {
      problems.add(at("requestBody", "content"), "`requestBody.content` is required: a map of media types");
    }
  }
  if (operation.responses === undefined) {
    if (minor === 0) problems.add(at("responses"), "`responses` is required in OpenAPI 3.0");
    return;
  }
  const responses = operation.responses;
  if (!isRecord(responses)) return problems.add(at("responses"), "`responses` must be an object keyed by status code");
  for (const status in responses) {
    if (status.startsWith("x-")) continue;
    if (!STATUS_KEY.test(status)) {
      problems.add(at("responses", status), `"${status}" is not a status code: use 200, 4XX or default`);
      continue;
    }
    const response = responses[status];
    if (!isRecord(response)) {
      problems.add(at("responses", status), "a response must be an object");
      continue;
    }
    if (typeof response.$ref === "string") continue;
    if (minor < 2 && typeof response.description !== "string") {
      problems.add(at("responses", status, "description"), "`description` is required on every response");
    }
    if (response.content !== undefined && !isRecord(response.content)) {
      problems.add(at("responses", status, "content"), "`content` must be a map of media types");
    }
  }
}

/** The `parameters` of the path item at `parent`, or of its operation `method`. */
function checkParameters(
  parameters: unknown,
  parent: readonly (string | number)[],
  problems: Problems,
  method?: string,
): void {
  const at = (...tokens: (string | number)[]) =>
    method === undefined ? [...parent, "parameters", ...tokens] : [...parent, method, "parameters", ...tokens];
  if (!Array.isArray(parameters)) return problems.add(at(), "`parameters` must be an array");
  for (let index = 0; index < parameters.length; index++) {
    const parameter: unknown = parameters[index];
    if (!isRecord(parameter)) {
      problems.add(at(index), "a parameter must be an object");
      continue;
    }
    if (typeof parameter.$ref === "string") continue;
    if (typeof parameter.name !== "string") problems.add(at(index, "name"), "`name` is required on every parameter");
    if (typeof parameter.in !== "string" || !PARAMETER_LOCATIONS.has(parameter.in)) {
      problems.add(at(index, "in"), "`in` must be one of query, header, path, cookie");
    } else if (parameter.in === "path" && parameter.required !== true) {
      problems.add(at(index, "required"), "path parameters must have `required: true`");
    }
  }
}
