/**
 * Validates recorded exchanges against a contract: each exchange's operation is found from its method and
 * concrete path (payload-route.ts, the lookup validate_response_payload uses), then its request (parameters,
 * body, content type) and its response (status, required headers, body) are checked, and the findings become one
 * verdict. Locations read "GET /orders/{id}#exchange/3/response/body/total": the operation, then the exchange's
 * position in the upload and a JSON pointer into it. Pure: no I/O, no clock.
 */
import { indexDocument, type DocumentIndex, type IndexedOperation } from "../normalize/normalize-document";
import { escapeToken, isRecord } from "../normalize/normalize-pointer";
import { findOperation, findResponseKey } from "../payload/payload-route";
import { mediaTypeFamily, pickMediaType } from "../diff/media-types";
import { contentOf, responsesOf } from "../diff/operation-parts";
import type { Direction } from "../diff/schema-change";
import type { OpenApiDocument, RuleSummary, Severity, Verdict, Violation } from "../types";
import { MAX_EXCHANGE_VIOLATIONS_LISTED, type RecordedExchange } from "./exchange";
import { pathParameterValues, typedValue } from "./parameters";
import { SchemaValidators } from "./schemas";
import { trafficMediaType, trafficMessage, trafficPointer } from "./traffic-text";
import { UPLOAD_SECONDS, UPLOAD_WORK_UNITS, WorkBudget, WorkBudgetExhausted } from "../payload/work-budget";
import { TRAFFIC_RULES } from "../rules/rule-registry";

const TRAFFIC_RULE_IDS = TRAFFIC_RULES.map((rule) => rule.id);
const severities = new Map(TRAFFIC_RULES.map((rule) => [rule.id, rule.severity]));
/** A traffic finding's severity, from the rule registry (src/engine/rules/rule-registry.ts). */
const exchangeRuleSeverity = (id: string): Severity => severities.get(id) ?? "error";

/** Header parameters OpenAPI says to ignore: the HTTP layer and the security schemes own them. */
const IGNORED_HEADER_PARAMETERS = new Set(["accept", "content-type", "authorization"]);

export interface ExchangeValidator {
  /** Throws WorkBudgetExhausted (work-budget.ts) when the upload, or one value in it, needs more than its budget. */
  validate(document: OpenApiDocument, documentKey: string, exchanges: readonly RecordedExchange[]): Verdict;
  /** The same, calling `pause` between slices of exchanges so a long upload does not hold the isolate. */
  validateYielding(
    document: OpenApiDocument,
    documentKey: string,
    exchanges: readonly RecordedExchange[],
    pause: () => Promise<void>,
  ): Promise<Verdict>;
  /** Validators built so far (cache misses). */
  readonly buildCount: number;
}

type Report = (rule: string, location: string, message: string) => void;

interface Listed {
  position: number;
  order: number;
  violation: Violation;
}

/**
 * Collects findings: all are counted, the first MAX_EXCHANGE_VIOLATIONS_LISTED in exchange order are listed.
 * Exchanges are checked grouped by operation, not in upload order, so findings arrive out of order; once twice
 * the cap is held, everything past the cap in exchange order is dropped (it can never move back in front, since
 * later findings only add to what precedes it), which keeps memory bounded whatever the upload holds.
 */
class Findings {
  private listed: Listed[] = [];
  private readonly counts = new Map<string, number>();
  private total = 0;
  private order = 0;
  position = 0;

  readonly report: Report = (rule, location, message) => {
    this.total++;
    this.counts.set(rule, (this.counts.get(rule) ?? 0) + 1);
    this.listed.push({
      position: this.position,
      order: this.order++,
      violation: { rule, severity: exchangeRuleSeverity(rule), location, message },
    });
    if (this.listed.length >= 2 * MAX_EXCHANGE_VIOLATIONS_LISTED) this.prune();
  };

  private prune(): void {
    this.listed.sort((a, b) => a.position - b.position || a.order - b.order);
    this.listed.length = Math.min(this.listed.length, MAX_EXCHANGE_VIOLATIONS_LISTED);
  }

  verdict(): Verdict {
    this.prune();
    const summary: RuleSummary[] = TRAFFIC_RULE_IDS.filter((id) => this.counts.has(id)).map((id) => ({
      rule: id,
      severity: exchangeRuleSeverity(id),
      count: this.counts.get(id) ?? 0,
    }));
    return {
      approved: !summary.some((entry) => entry.severity === "error"),
      totalViolations: this.total,
      violations: this.listed.map((entry) => entry.violation),
      summary,
    };
  }
}

const isJson = (mediaType: string) => mediaTypeFamily(mediaType) === "json";

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function pathOf(target: string): string {
  return (target.split(/[?#]/)[0] ?? "") || "/";
}

function queryOf(target: string): URLSearchParams {
  const at = target.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : target.slice(at + 1).split("#")[0]);
}

/**
 * Parameter schemas are small and mostly shared between operations (GitHub's owner and repo appear in hundreds),
 * so their validators are keyed by the schema's text: one validator per distinct schema, not per operation.
 */
function parameterKey(schema: unknown): string {
  return `param:${JSON.stringify(schema)}`;
}

/** One exchange against its operation. */
class ExchangeCheck {
  private readonly at: string;

  constructor(
    private readonly index: DocumentIndex,
    private readonly documentKey: string,
    private readonly schemas: SchemaValidators,
    private readonly operation: IndexedOperation,
    private readonly exchange: RecordedExchange,
    position: number,
    private readonly report: Report,
    private readonly budget: WorkBudget,
  ) {
    this.at = `${operation.label}#exchange/${position}`;
  }

  /** `shared`: the key names the schema itself, not a part of this operation (parameters shared by operations). */
  private schemaFindings(
    rule: string,
    key: string,
    schema: unknown,
    direction: Direction,
    value: unknown,
    where: string,
    what: string,
    shared = false,
  ): void {
    const checked = this.schemas.check(
      shared ? `${this.documentKey}\n${key}` : `${this.documentKey}\n${this.operation.label}\n${key}`,
      this.index.document,
      this.index.version,
      schema,
      direction,
      value,
      this.budget,
    );
    if (!checked.ok) {
      if ("tooDeep" in checked) this.report(rule, `${this.at}${where}`, `${what} nests too deeply to be validated`);
      else if ("tooCostly" in checked)
        this.report("work-budget-exhausted", `${this.at}${where}`, `${what} was not checked: ${checked.tooCostly}`);
      else
        this.report(
          "schema-unusable",
          `${this.at}${where}`,
          `the contract's schema for ${what} cannot be used, so it was not checked: ${checked.unusable}`,
        );
      return;
    }
    for (const error of checked.errors)
      this.report(rule, `${this.at}${where}${trafficPointer(error.pointer)}`, `${what}: ${trafficMessage(error)}`);
  }

  checkRequest(): void {
    const { exchange, operation } = this;
    const path = pathOf(exchange.target);
    const pathValues =
      pathParameterValues(operation.path, path, this.index.basePath) ?? (Object.create(null) as Record<string, string>);
    const query = queryOf(exchange.target);
    for (const parameter of operation.parameters) {
      const where = `/request/${parameter.in}/${escapeToken(parameter.name)}`;
      let values: string[];
      if (parameter.in === "path") values = parameter.name in pathValues ? [pathValues[parameter.name] ?? ""] : [];
      else if (parameter.in === "query") values = query.getAll(parameter.name);
      else if (parameter.in === "header") {
        if (IGNORED_HEADER_PARAMETERS.has(parameter.name.toLowerCase())) continue;
        const value = exchange.requestHeaders[parameter.name.toLowerCase()];
        values = value === undefined ? [] : [value];
      } else continue; // Cookies are not read: recordings often strip them.
      if (values.length === 0) {
        if (parameter.required)
          this.report(
            "request-invalid",
            `${this.at}${where}`,
            `the required ${parameter.in} parameter "${parameter.name}" is missing`,
          );
        continue;
      }
      if (parameter.schema === undefined) continue;
      const value = typedValue(values, parameter.schema, this.index.resolver);
      if (value === undefined) continue;
      this.schemaFindings(
        "request-invalid",
        parameterKey(parameter.schema),
        parameter.schema,
        "request",
        value,
        where,
        `${parameter.in} parameter "${parameter.name}"`,
        true,
      );
    }
    this.checkRequestBody();
  }

  private checkRequestBody(): void {
    const { exchange, operation } = this;
    const requestBody = this.index.resolver.deref(operation.operation.requestBody);
    const content = contentOf(requestBody, this.index.resolver);
    const declared = Object.keys(content);
    const body = exchange.requestBody;
    if (body === undefined || body === "") {
      if (isRecord(requestBody) && requestBody.required === true)
        this.report(
          "request-invalid",
          `${this.at}/request/body`,
          `the request body is required (${declared.join(", ") || "no content declared"}) but the exchange has none`,
        );
      return;
    }
    if (declared.length === 0) {
      this.report(
        "undocumented-media-type",
        `${this.at}/request/body`,
        `the request has a body${exchange.requestContentType ? ` (${trafficMediaType(exchange.requestContentType)})` : ""}, but the contract declares no request body for ${operation.label}`,
      );
      return;
    }
    const contentType = exchange.requestContentType;
    const key = contentType ? pickMediaType(content, contentType) : declared.find(isJson);
    if (key === undefined) {
      if (contentType)
        this.report(
          "undocumented-media-type",
          `${this.at}/request/header/content-type`,
          `the request body is ${trafficMediaType(contentType)}, which the contract does not declare for ${operation.label} (it declares ${declared.join(", ")})`,
        );
      return;
    }
    this.checkBody(
      "request-invalid",
      "request",
      `request:${key}`,
      content[key],
      contentType ?? key,
      body,
      "/request/body",
      "the request body",
    );
  }

  checkResponse(): void {
    const { exchange, operation } = this;
    const responseKey = findResponseKey(operation, exchange.status);
    if (responseKey === undefined) {
      const declared = Object.keys(responsesOf(operation)).filter((key) => !key.startsWith("x-"));
      this.report(
        "undocumented-status-code",
        `${this.at}/response/status`,
        `status ${exchange.status} is not declared for ${operation.label} (it declares ${declared.join(", ") || "no responses"}; nor ${String(exchange.status)[0]}XX or default)`,
      );
      return;
    }
    const response = this.index.resolver.deref(responsesOf(operation)[responseKey]);
    this.checkResponseHeaders(response, responseKey);
    const body = exchange.responseBody;
    if (body === undefined || body === "") return;
    const content = contentOf(response, this.index.resolver);
    const declared = Object.keys(content);
    if (declared.length === 0) {
      this.report(
        "undocumented-media-type",
        `${this.at}/response/body`,
        `the response has a body${exchange.responseContentType ? ` (${trafficMediaType(exchange.responseContentType)})` : ""}, but the contract declares no content for response ${responseKey} of ${operation.label}`,
      );
      return;
    }
    const contentType = exchange.responseContentType;
    const key = contentType ? pickMediaType(content, contentType) : declared.find(isJson);
    if (key === undefined) {
      if (contentType)
        this.report(
          "undocumented-media-type",
          `${this.at}/response/header/content-type`,
          `the response body is ${trafficMediaType(contentType)}, which the contract does not declare for response ${responseKey} of ${operation.label} (it declares ${declared.join(", ")})`,
        );
      return;
    }
    this.checkBody(
      "response-invalid",
      "response",
      `response:${responseKey}:${key}`,
      content[key],
      contentType ?? key,
      body,
      "/response/body",
      `the response body (${responseKey})`,
    );
  }

  private checkResponseHeaders(response: unknown, responseKey: string): void {
    const headers = isRecord(response) && isRecord(response.headers) ? response.headers : {};
    for (const [name, raw] of Object.entries(headers)) {
      // "If a response header is defined with the name Content-Type, it SHALL be ignored."
      if (name.toLowerCase() === "content-type") continue;
      const header = this.index.resolver.deref(raw);
      if (!isRecord(header)) continue;
      const where = `/response/header/${escapeToken(name.toLowerCase())}`;
      const value = this.exchange.responseHeaders[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true)
          this.report(
            "response-header-missing",
            `${this.at}${where}`,
            `the response header "${name}" is required for response ${responseKey} but the response has none`,
          );
        continue;
      }
      if (header.schema === undefined) continue;
      const typed = typedValue([value], header.schema, this.index.resolver);
      if (typed !== undefined)
        this.schemaFindings(
          "response-invalid",
          `header:${responseKey}:${name}`,
          header.schema,
          "response",
          typed,
          where,
          `response header "${name}"`,
        );
    }
  }

  private checkBody(
    rule: string,
    direction: Direction,
    key: string,
    mediaTypeObject: unknown,
    contentType: string,
    body: string,
    where: string,
    what: string,
  ): void {
    const schema = isRecord(mediaTypeObject) ? mediaTypeObject.schema : undefined;
    // Only JSON bodies are validated against schemas; other media types are checked for being declared.
    if (schema === undefined || !isJson(contentType)) return;
    const parsed = parseJson(body);
    if (!parsed.ok) {
      this.report(
        rule,
        `${this.at}${where}`,
        `${what} is declared as ${trafficMediaType(contentType)} but is not valid JSON`,
      );
      return;
    }
    this.schemaFindings(rule, key, schema, direction, parsed.value, where, what);
  }
}

/** Standard methods are named as recorded; anything else was made up by the recording. */
const KNOWN_METHODS = new Set(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY"]);

/**
 * The shape of a recorded path, for a finding that matches no operation: segments the contract's own paths use
 * are kept, every other one (an id, an e-mail address, a token) becomes "{?}", so no recorded string is stored.
 */
const literalSegments = new WeakMap<DocumentIndex, Set<string>>();

function pathShape(index: DocumentIndex, path: string): string {
  let known = literalSegments.get(index);
  if (!known) {
    known = new Set<string>();
    for (const operation of index.operations)
      for (const segment of `${index.basePath}${operation.path}`.split("/"))
        if (segment && !segment.includes("{")) known.add(segment);
    literalSegments.set(index, known);
  }
  const segments = path
    .split("/")
    .slice(1)
    .map((segment) => (known.has(segment) ? segment : "{?}"));
  return `/${segments.join("/")}`;
}

/** Work between two yields to the event loop, so other requests of the isolate keep moving (about 25 ms). */
const UNITS_PER_SLICE = 25_000;

/**
 * `deadline` (ms since the epoch): validation that yields is bounded by time, checked after each yield, where the
 * clock moves; without one (no yields) it is bounded by UPLOAD_WORK_UNITS.
 */
function* validation(
  index: DocumentIndex,
  documentKey: string,
  schemas: SchemaValidators,
  exchanges: readonly RecordedExchange[],
  deadline?: number,
): Generator<void, Verdict> {
  const findings = new Findings();
  const budget = new WorkBudget(deadline === undefined ? UPLOAD_WORK_UNITS : Number.POSITIVE_INFINITY, "upload");
  // Grouped by operation, so an operation's validators are built (or fetched) once per upload even when the
  // upload touches more operations than the cache holds.
  const groups = new Map<IndexedOperation, number[]>();
  exchanges.forEach((exchange, position) => {
    const path = pathOf(exchange.target);
    budget.spend(path.length + 1);
    const operation = findOperation(index, exchange.method, path);
    if (operation) {
      const group = groups.get(operation);
      if (group) group.push(position);
      else groups.set(operation, [position]);
      return;
    }
    findings.position = position;
    const base = index.basePath ? ` (the server base path ${index.basePath} may be left out or included)` : "";
    const method = KNOWN_METHODS.has(exchange.method) ? exchange.method : "(unknown method)";
    const shape = pathShape(index, path);
    findings.report(
      "undocumented-operation",
      `${method} ${shape}#exchange/${position}`,
      `no operation of the contract matches exchange ${position} (${method} ${shape}, where {?} stands for a recorded segment the contract's paths do not use)${base}: document it, or check the recorded method and path`,
    );
  });
  let yieldedAt = budget.spent;
  for (const [operation, positions] of groups) {
    for (const position of positions) {
      findings.position = position;
      const check = new ExchangeCheck(
        index,
        documentKey,
        schemas,
        operation,
        exchanges[position]!,
        position,
        findings.report,
        budget,
      );
      check.checkRequest();
      check.checkResponse();
      if (budget.spent - yieldedAt >= UNITS_PER_SLICE) {
        yieldedAt = budget.spent;
        yield;
        if (deadline !== undefined && Date.now() > deadline)
          throw new WorkBudgetExhausted(UPLOAD_SECONDS, "upload-time");
      }
    }
  }
  return findings.verdict();
}

export function createExchangeValidator(): ExchangeValidator {
  const schemas = new SchemaValidators();
  return {
    get buildCount() {
      return schemas.buildCount;
    },
    validate(document, documentKey, exchanges) {
      const steps = validation(indexDocument(document), documentKey, schemas, exchanges);
      for (;;) {
        const step = steps.next();
        if (step.done) return step.value;
      }
    },
    async validateYielding(document, documentKey, exchanges, pause) {
      const steps = validation(
        indexDocument(document),
        documentKey,
        schemas,
        exchanges,
        Date.now() + UPLOAD_SECONDS * 1000,
      );
      for (;;) {
        const step = steps.next();
        if (step.done) return step.value;
        await pause();
      }
    },
  };
}
