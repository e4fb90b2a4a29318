/**
 * Real consecutive GitHub Enterprise Server descriptions (@octokit/openapi ghes-3.17, 3.18, 3.19; OpenAPI 3.0.3,
 * 11 MB, ~1,000 operations each) through the engine as a snapshot upload runs it: the bundled policies, the older
 * version as the contract, the newer one as the implementation. Every compatibility finding (errors and
 * warnings; constitution findings are about one document, not about a change) is listed here after being checked
 * by hand against both documents' JSON, so a new false error, or a real one lost, fails this test.
 * Runs in Node because the documents are too large to bundle into the workerd test pool.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { getConformanceConfig } from "../../src/engine/verdict/config";
import { parseOpenApiDocument } from "../../src/engine/load/document";
import { checkConformance } from "../../src/engine/engine";
import { convertToJsonSchema } from "../../src/engine/payload/payload-schema";
import { rulesById } from "../../src/engine/rules/index";
import type { OpenApiDocument, Verdict } from "../../src/engine/types";
import { restyleAs31, type RestyleOptions } from "./fixtures/restyle-openapi";

const require = createRequire(import.meta.url);
type Json = Record<string, any>;
const VERSIONS = ["3.17", "3.18", "3.19"] as const;
const documents = new Map<string, OpenApiDocument>();

function parsed(name: string, text: string): OpenApiDocument {
  const result = parseOpenApiDocument(text);
  if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.problems.slice(0, 5))}`);
  return result.document;
}

beforeAll(() => {
  for (const version of VERSIONS)
    documents.set(
      version,
      parsed(
        `ghes-${version}`,
        readFileSync(require.resolve(`@octokit/openapi/generated/ghes-${version}.json`), "utf8"),
      ),
    );
});

/** A version, or a version restyled ("3.19 as anyOf+wrapped"), parsed and validated once. */
function documentOf(name: string): OpenApiDocument {
  let document = documents.get(name);
  if (!document) {
    const [version, style] = name.split(" as ") as [string, string];
    const options: RestyleOptions = {
      nullable: style.startsWith("anyOf") ? "anyOf" : "type-list",
      wrapReferences: style.endsWith("+wrapped"),
    };
    document = parsed(name, JSON.stringify(restyleAs31(documentOf(version) as Json, options)));
    documents.set(name, document);
  }
  return document;
}

function verdictOf(contract: string, implementation: string): Verdict {
  return checkConformance(documentOf(contract), documentOf(implementation), getConformanceConfig());
}

/** Compatibility findings only, as "severity rule location", sorted. */
function findings(verdict: Verdict): string[] {
  return verdict.violations
    .filter(({ rule }) => rulesById.get(rule)?.kind === "conformance")
    .map(({ severity, rule, location }) => `${severity} ${rule} ${location}`)
    .sort();
}

const added = (...operations: string[]) => operations.map((operation) => `error undocumented-operation ${operation}`);

// 3.18 only adds operations: every other change between the two documents is in descriptions, examples and the
// order of keys (checked with a structural diff of the two files, $refs followed).
const ADDED_IN_3_18 = added(
  "DELETE /enterprises/{enterprise}/properties/schema/{custom_property_name}",
  "GET /enterprises/{enterprise}/properties/schema",
  "GET /enterprises/{enterprise}/properties/schema/{custom_property_name}",
  "GET /orgs/{org}/dependabot/repository-access",
  "GET /orgs/{org}/dismissal-requests/secret-scanning",
  "GET /repos/{owner}/{repo}/dismissal-requests/secret-scanning",
  "GET /repos/{owner}/{repo}/dismissal-requests/secret-scanning/{alert_number}",
  "PATCH /enterprises/{enterprise}/properties/schema",
  "PATCH /orgs/{org}/dependabot/repository-access",
  "PATCH /repos/{owner}/{repo}/dismissal-requests/secret-scanning/{alert_number}",
  "POST /orgs/{org}/private-registries",
  "PUT /enterprises/{enterprise}/properties/schema/organizations/{org}/{custom_property_name}/promote",
  "PUT /enterprises/{enterprise}/properties/schema/{custom_property_name}",
  "PUT /orgs/{org}/dependabot/repository-access/default-level",
);

const ADDED_IN_3_19 = added(
  "DELETE /enterprises/{enterprise}/apps/organizations/{org}/installations/{installation_id}",
  "DELETE /orgs/{org}/actions/permissions/self-hosted-runners/repositories/{repository_id}",
  "DELETE /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id}",
  "GET /enterprises/{enterprise}/actions/permissions/artifact-and-log-retention",
  "GET /enterprises/{enterprise}/actions/permissions/fork-pr-contributor-approval",
  "GET /enterprises/{enterprise}/actions/permissions/fork-pr-workflows-private-repos",
  "GET /enterprises/{enterprise}/actions/permissions/self-hosted-runners",
  "GET /enterprises/{enterprise}/apps/installable_organizations",
  "GET /enterprises/{enterprise}/apps/installable_organizations/{org}/accessible_repositories",
  "GET /enterprises/{enterprise}/apps/organizations/{org}/installations",
  "GET /enterprises/{enterprise}/apps/organizations/{org}/installations/{installation_id}/repositories",
  "GET /enterprises/{enterprise}/bypass-requests/push-rules",
  "GET /enterprises/{enterprise}/bypass-requests/secret-scanning",
  "GET /enterprises/{enterprise}/rulesets/{ruleset_id}/history",
  "GET /enterprises/{enterprise}/rulesets/{ruleset_id}/history/{version_id}",
  "GET /enterprises/{enterprise}/secret-scanning/pattern-configurations",
  "GET /orgs/{org}/actions/permissions/artifact-and-log-retention",
  "GET /orgs/{org}/actions/permissions/fork-pr-contributor-approval",
  "GET /orgs/{org}/actions/permissions/fork-pr-workflows-private-repos",
  "GET /orgs/{org}/actions/permissions/self-hosted-runners",
  "GET /orgs/{org}/actions/permissions/self-hosted-runners/repositories",
  "GET /orgs/{org}/dismissal-requests/code-scanning",
  "GET /orgs/{org}/dismissal-requests/dependabot",
  "GET /orgs/{org}/rulesets/{ruleset_id}/history",
  "GET /orgs/{org}/rulesets/{ruleset_id}/history/{version_id}",
  "GET /orgs/{org}/secret-scanning/pattern-configurations",
  "GET /repos/{owner}/{repo}/actions/permissions/artifact-and-log-retention",
  "GET /repos/{owner}/{repo}/actions/permissions/fork-pr-contributor-approval",
  "GET /repos/{owner}/{repo}/actions/permissions/fork-pr-workflows-private-repos",
  "GET /repos/{owner}/{repo}/dismissal-requests/code-scanning",
  "GET /repos/{owner}/{repo}/dismissal-requests/code-scanning/{alert_number}",
  "GET /repos/{owner}/{repo}/dismissal-requests/dependabot",
  "GET /repos/{owner}/{repo}/dismissal-requests/dependabot/{alert_number}",
  "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by",
  "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocking",
  "GET /repos/{owner}/{repo}/rulesets/{ruleset_id}/history",
  "GET /repos/{owner}/{repo}/rulesets/{ruleset_id}/history/{version_id}",
  "PATCH /enterprises/{enterprise}/apps/organizations/{org}/installations/{installation_id}/repositories",
  "PATCH /enterprises/{enterprise}/apps/organizations/{org}/installations/{installation_id}/repositories/add",
  "PATCH /enterprises/{enterprise}/apps/organizations/{org}/installations/{installation_id}/repositories/remove",
  "PATCH /enterprises/{enterprise}/secret-scanning/pattern-configurations",
  "PATCH /orgs/{org}/secret-scanning/pattern-configurations",
  "PATCH /repos/{owner}/{repo}/dismissal-requests/code-scanning/{alert_number}",
  "PATCH /repos/{owner}/{repo}/dismissal-requests/dependabot/{alert_number}",
  "POST /enterprises/{enterprise}/apps/organizations/{org}/installations",
  "POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by",
  "PUT /enterprises/{enterprise}/actions/permissions/artifact-and-log-retention",
  "PUT /enterprises/{enterprise}/actions/permissions/fork-pr-contributor-approval",
  "PUT /enterprises/{enterprise}/actions/permissions/fork-pr-workflows-private-repos",
  "PUT /enterprises/{enterprise}/actions/permissions/self-hosted-runners",
  "PUT /orgs/{org}/actions/permissions/artifact-and-log-retention",
  "PUT /orgs/{org}/actions/permissions/fork-pr-contributor-approval",
  "PUT /orgs/{org}/actions/permissions/fork-pr-workflows-private-repos",
  "PUT /orgs/{org}/actions/permissions/self-hosted-runners",
  "PUT /orgs/{org}/actions/permissions/self-hosted-runners/repositories",
  "PUT /orgs/{org}/actions/permissions/self-hosted-runners/repositories/{repository_id}",
  "PUT /repos/{owner}/{repo}/actions/permissions/artifact-and-log-retention",
  "PUT /repos/{owner}/{repo}/actions/permissions/fork-pr-contributor-approval",
  "PUT /repos/{owner}/{repo}/actions/permissions/fork-pr-workflows-private-repos",
);

const SETUP_OPTIONS = "#/requestBody/content/application~1json/schema/properties/code_scanning_default_setup_options";
const DETACHED_IDS =
  "DELETE /orgs/{org}/code-security/configurations/detach#/requestBody/content/application~1json/schema/properties/selected_repository_ids";

// 3.19's real narrowings of request bodies, besides the added operations:
// - code_scanning_default_setup_options was `$ref: code-scanning-default-setup-options` (a nullable object) and
//   is now `allOf: [that $ref, {type: object, properties: {allow_advanced}}]`. The second member has `type:
//   object` and no `nullable`, and allOf needs every member to accept the value, so null, accepted by 3.18, is
//   refused (OpenAPI 3.0.3: nullable only widens the `type` of its own Schema Object; "other Schema Object
//   constraints ... may disallow the use of null"). Checked below with ajv on the converted schemas too.
// - selected_repository_ids gained minItems 1 and maxItems 250.
const NARROWED_IN_3_19 = [
  `error request-body-schema PATCH /enterprises/{enterprise}/code-security/configurations/{configuration_id}${SETUP_OPTIONS}`,
  `error request-body-schema PATCH /orgs/{org}/code-security/configurations/{configuration_id}${SETUP_OPTIONS}`,
  `error request-body-constraint ${DETACHED_IDS}`,
  `error request-body-constraint ${DETACHED_IDS}`,
];

describe("consecutive GitHub Enterprise Server versions, older as the contract", () => {
  it("3.17 -> 3.18: only the 14 added operations, no other finding", () => {
    expect(findings(verdictOf("3.17", "3.18"))).toEqual([...ADDED_IN_3_18].sort());
  });

  it("3.18 -> 3.19: the 59 added operations and the request bodies 3.19 really narrows, no other finding", () => {
    const verdict = verdictOf("3.18", "3.19");
    expect(findings(verdict)).toEqual([...ADDED_IN_3_19, ...NARROWED_IN_3_19].sort());
    const messages = verdict.violations
      .filter(({ location }) => location === DETACHED_IDS)
      .map(({ message }) => message);
    expect(messages).toEqual([
      "the implementation sets minItems 1, which the contract does not, so it refuses values the contract allows",
      "the implementation sets maxItems 250, which the contract does not, so it refuses values the contract allows",
    ]);
  });

  it("the null that 3.19 refuses in code_scanning_default_setup_options is refused by ajv on the converted schemas too", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const accepts = (version: string, value: unknown): boolean => {
      const document = documents.get(version) as Json;
      const schema =
        document.paths["/orgs/{org}/code-security/configurations/{configuration_id}"].patch.requestBody.content[
          "application/json"
        ].schema;
      return ajv.validate(convertToJsonSchema(document, schema, "3.0", "request").schema, {
        code_scanning_default_setup_options: value,
      });
    };
    expect([accepts("3.18", null), accepts("3.19", null)]).toEqual([true, false]);
    expect([accepts("3.18", { runner_type: "standard" }), accepts("3.19", { runner_type: "standard" })]).toEqual([
      true,
      true,
    ]);
  });

  it("3.17 -> 3.19 (a skipped version): the union of both steps", () => {
    expect(findings(verdictOf("3.17", "3.19"))).toEqual(
      [...ADDED_IN_3_18, ...ADDED_IN_3_19, ...NARROWED_IN_3_19].sort(),
    );
  });

  it("each version against itself: no finding of any kind, constitution aside", () => {
    for (const version of VERSIONS) expect(findings(verdictOf(version, version)), version).toEqual([]);
  });
});

// The same documents written as OpenAPI 3.1 by other generators (fixtures/restyle-openapi.ts): .NET 9 type
// lists, FastAPI `anyOf: [X, {type: "null"}]` with NestJS single-member allOf around every reference. An equal
// pair written in two styles gives no finding, and a restyled implementation gives the findings of the original.
describe("GitHub Enterprise Server descriptions restyled as OpenAPI 3.1", () => {
  it("3.19 against its 3.1 copies, both ways: no finding (warnings included)", () => {
    for (const style of ["3.19 as type-list", "3.19 as anyOf+wrapped"]) {
      expect(findings(verdictOf("3.19", style)), style).toEqual([]);
      expect(findings(verdictOf(style, "3.19")), style).toEqual([]);
    }
  });

  it("3.18 -> 3.19 restyled: the same findings as 3.18 -> 3.19", () => {
    expect(findings(verdictOf("3.18", "3.19 as anyOf+wrapped"))).toEqual(
      [...ADDED_IN_3_19, ...NARROWED_IN_3_19].sort(),
    );
  });

  it("3.19 with breaking changes, plain and restyled as the implementation: the same findings", () => {
    const mutated = structuredClone(documentOf("3.19")) as Json;
    const schemas = Object.values(mutated.components.schemas as Json) as Json[];
    // Shared components (each reaches many operations): a string property becomes an integer, a required integer
    // becomes nullable. Inline request bodies: an enum value removed, a new required property.
    for (const schema of schemas.filter((candidate) => candidate.properties).slice(0, 40)) {
      const name = Object.keys(schema.properties).find(
        (key) =>
          schema.properties[key].type === "string" && !schema.properties[key].enum && !schema.properties[key].format,
      );
      if (name) schema.properties[name] = { type: "integer" };
    }
    for (const schema of schemas
      .filter((candidate) => candidate.properties && Array.isArray(candidate.required))
      .slice(0, 40)) {
      const name = schema.required.find(
        (key: string) => schema.properties[key]?.type === "integer" && !schema.properties[key].nullable,
      );
      if (name) schema.properties[name] = { ...schema.properties[name], nullable: true };
    }
    let narrowed = 0;
    let required = 0;
    for (const item of Object.values(mutated.paths as Json)) {
      for (const operation of Object.values(item as Json) as Json[]) {
        const body = operation?.requestBody?.content?.["application/json"]?.schema;
        if (!body?.properties) continue;
        const enumerated = Object.keys(body.properties).find(
          (key) => Array.isArray(body.properties[key].enum) && body.properties[key].enum.length > 2,
        );
        if (enumerated && narrowed < 6) {
          body.properties[enumerated] = {
            ...body.properties[enumerated],
            enum: body.properties[enumerated].enum.slice(1),
          };
          narrowed++;
        } else if (!enumerated && required < 6) {
          body.properties.arbiter_new = { type: "string" };
          body.required = [...(body.required ?? []), "arbiter_new"];
          required++;
        }
      }
    }
    expect([narrowed, required]).toEqual([6, 6]);
    const text = JSON.stringify(mutated);
    const plain = findings(checkConformance(documentOf("3.19"), parsed("mutated", text), getConformanceConfig()));
    const restyled = findings(
      checkConformance(
        documentOf("3.19"),
        parsed(
          "mutated as anyOf+wrapped",
          JSON.stringify(restyleAs31(JSON.parse(text) as Json, { nullable: "anyOf", wrapReferences: true })),
        ),
        getConformanceConfig(),
      ),
    );
    const rules = new Set(plain.map((finding) => finding.split(" ")[1]));
    // schema-alternative-covered (info) says why the changed alternatives that an open one still allows pass: the
    // event payloads beside PublicEvent ({type: object}), timeline events beside the open line-commented event,
    // protection rules beside the open wait-timer rule (113 notes, read by hand: each open alternative does admit
    // the changed one).
    expect([...rules].sort()).toEqual([
      "request-body-required-property",
      "request-body-schema",
      "response-nullability",
      "response-type",
      "schema-alternative-covered",
    ]);
    expect(restyled).toEqual(plain);
  });
});
