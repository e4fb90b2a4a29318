/**
 * @cfworker/json-schema, with the three places where it is not linear in the input routed around (without
 * changing the library) and every run under a work budget:
 *
 * - `pattern`: the library runs `new RegExp(pattern, "u")`, a backtracking engine. Each pattern is moved into a
 *   named `format` the validator looks up ("arbiter-re2:<pattern>"), backed by RE2 (safe-pattern.ts), so it keeps
 *   the library's applicator semantics (oneOf, not, if...) and runs in linear time.
 * - `uniqueItems`: the library compares every pair of items. Duplicates are found first by hashing each value
 *   by its canonical form (linear); when no array of the value holds duplicates, uniqueItems cannot fail and a
 *   validator without it runs; otherwise the library's pairwise search is charged to the budget up front.
 * - composition and nesting: every member of allOf/anyOf/oneOf, not/if/then/else and every items/contains
 *   schema is reached through a `$ref` into `$defs`, and each lookup of one counts a unit (each error the run
 *   produces counts four), so nested oneOf/anyOf over a large value stops at the budget instead of running for
 *   minutes.
 * - `patternProperties`: the library tests property names with RegExp; only patterns with at most one
 *   quantifier are accepted (quadratic at worst) and property names longer than 256 characters are not checked
 *   against them ("cannot verify").
 */
import { dereference, format, validate, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { isRecord } from "../normalize/normalize-pointer";
import { compilePattern, patternPropertiesKeyProblem } from "../load/safe-pattern";
import { WorkBudget, WorkBudgetExhausted } from "./work-budget";

export const PATTERN_FORMAT_PREFIX = "arbiter-re2:";
export const MAX_PATTERN_PROPERTY_NAME = 256;
const ERROR_UNITS = 4;

/*
 * Where work can multiply: alternatives and conditions validate the same value again per member, and `items` /
 * `contains` once per element. These subschemas are metered (reached through a counted $ref); the others
 * (properties and the like) visit each part of the value once per schema that applies there: linear in the value.
 */
const METERED_KEYWORDS = ["items", "contains", "not", "if", "then", "else"];
const METERED_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf"];
/** Applied once per property or item they reach: metered too, so a map or a dependent schema over many keys counts. */
const SCHEMA_KEYWORDS = ["additionalProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames"];
const LIST_KEYWORDS = ["prefixItems"];
const MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas"];
/** Below this many pairwise comparisons in all (the sum of n^2 over the value's arrays), uniqueItems stays as is. */
const PAIRWISE_TOLERATED = 100_000;

/** The budget of the validation running now (validation is synchronous, so one at a time per isolate). */
let running: WorkBudget | undefined;

export class UnusableSchema extends Error {
  override readonly name = "UnusableSchema";
}

function registerPatternFormat(pattern: string): string {
  const name = `${PATTERN_FORMAT_PREFIX}${pattern}`;
  const compiled = compilePattern(pattern);
  if (typeof compiled === "string") throw new UnusableSchema(compiled);
  if (!Object.hasOwn(format, name)) {
    // Looked up again on each call, so the compiled form can leave the bounded cache without breaking this.
    format[name] = (text: string) => {
      const engine = compilePattern(pattern);
      if (typeof engine === "string") return false;
      // Charged before it runs: at worst RE2 steps through its whole program for each character it reads.
      running?.spend((text.length + 1) * programWeight(engine));
      return engine.test(text);
    };
  }
  return name;
}

/** Program instructions per unit a pattern's character costs: an ordinary pattern's program is well under this. */
const INSTRUCTIONS_PER_UNIT = 64;

function programWeight(engine: object): number {
  const program = (engine as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog?.inst;
  return Array.isArray(program) ? Math.max(1, Math.ceil(program.length / INSTRUCTIONS_PER_UNIT)) : 1;
}

/** patternProperties tests (one pattern against one property name) per unit. */
const PATTERN_TESTS_PER_UNIT = 2;

interface Prepared {
  schema: Record<string, unknown>;
  usesUniqueItems: boolean;
  usesPatternProperties: boolean;
  /** All patternProperties keys of the schema: each may be tested against every property name of the value. */
  patternPropertiesCount: number;
  /** Units each lookup of a metered subschema costs beyond its one: the names its `required` checks. */
  requiredWeight: Map<string, number>;
}

/** Rewrites a converted schema (payload-schema.ts output, which the caller owns) as described above. */
function prepare(converted: Record<string, unknown>, keepUniqueItems: boolean): Prepared {
  const defs: Record<string, unknown> = {};
  const facts = {
    usesUniqueItems: false,
    usesPatternProperties: false,
    patternPropertiesCount: 0,
    requiredWeight: new Map<string, number>(),
  };
  let counter = 0;
  const originalDefs = isRecord(converted.$defs) ? converted.$defs : {};
  /** The required names checked when the subschema being rewritten applies once (its own, and its unmetered parts'). */
  let requiredNames = 0;

  /** Rewrites `sub` as the subschema `name` of $defs, reached through a counted lookup, and weighs its required names. */
  function define(name: string, sub: Record<string, unknown>): void {
    const outer = requiredNames;
    requiredNames = 0;
    defs[name] = rewrite(sub);
    // Each required name is a check that can produce an error: charged with every application of the subschema.
    if (requiredNames > 0) facts.requiredWeight.set(name, requiredNames);
    requiredNames = outer;
  }

  function plain(sub: unknown): unknown {
    return isRecord(sub) ? rewrite(sub) : sub;
  }

  function wrap(sub: unknown): unknown {
    if (!isRecord(sub)) return sub;
    // A bare reference is counted when it is looked up; a pattern's format check costs nothing to reach.
    if (typeof sub.$ref === "string" && Object.keys(sub).length === 1) return sub;
    if (typeof sub.format === "string" && Object.keys(sub).length === 1) return sub;
    const name = `m${counter++}`;
    define(name, sub);
    return { $ref: `#/$defs/${name}` };
  }

  function rewrite(schema: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { ...schema };
    delete out.$defs;
    if (Array.isArray(out.required)) requiredNames += out.required.length;
    if (typeof out.pattern === "string") {
      const formatName = registerPatternFormat(out.pattern);
      delete out.pattern;
      out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { format: formatName }];
    }
    if (out.uniqueItems === true) {
      facts.usesUniqueItems = true;
      if (!keepUniqueItems) delete out.uniqueItems;
    }
    if (isRecord(out.patternProperties)) {
      facts.usesPatternProperties = true;
      facts.patternPropertiesCount += Object.keys(out.patternProperties).length;
      for (const key of Object.keys(out.patternProperties)) {
        const compiled = compilePattern(key);
        if (typeof compiled === "string") throw new UnusableSchema(`patternProperties ${compiled}`);
        const tooMany = patternPropertiesKeyProblem(key);
        if (tooMany) throw new UnusableSchema(`patternProperties ${tooMany}`);
      }
    }
    for (const keyword of METERED_KEYWORDS) if (out[keyword] !== undefined) out[keyword] = wrap(out[keyword]);
    for (const keyword of METERED_LIST_KEYWORDS)
      if (Array.isArray(out[keyword])) out[keyword] = (out[keyword] as unknown[]).map(wrap);
    for (const keyword of SCHEMA_KEYWORDS) if (out[keyword] !== undefined) out[keyword] = wrap(out[keyword]);
    for (const keyword of LIST_KEYWORDS)
      if (Array.isArray(out[keyword])) out[keyword] = (out[keyword] as unknown[]).map(plain);
    for (const keyword of MAP_KEYWORDS) {
      const map = out[keyword];
      // dependentSchemas members apply to the whole object again, once per name present: metered like alternatives.
      const member = keyword === "dependentSchemas" ? wrap : plain;
      if (isRecord(map))
        out[keyword] = Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, member(schema)]));
    }
    return out;
  }

  const root = rewrite(converted);
  for (const [name, member] of Object.entries(originalDefs)) {
    if (isRecord(member)) define(name, member);
    else defs[name] = member;
  }
  if (Object.keys(defs).length > 0) root.$defs = defs;
  return { schema: root, ...facts };
}

/**
 * Canonical identity of every value (hash-consing): equal JSON values get the same number, so an array holds
 * duplicates exactly when two of its items share one. Linear in the value; `onArray` sees each array's items.
 */
function scanDuplicates(
  value: unknown,
  budget: WorkBudget,
): { cost: number; pairwise: number; longestKey: number; keys: number } {
  const ids = new Map<string, number>();
  let cost = 0;
  let pairwise = 0;
  let longestKey = 0;
  let keyCount = 0;
  const idOf = (key: string) => {
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    return id;
  };
  const visit = (node: unknown): number => {
    budget.spend(1);
    if (Array.isArray(node)) {
      const items = node.map(visit);
      pairwise += items.length * items.length;
      const seen = new Set<number>();
      let firstDuplicate = -1;
      const positions = new Map<number, number>();
      items.forEach((id, position) => {
        if (seen.has(id)) {
          const first = positions.get(id) ?? position;
          if (firstDuplicate < 0 || first < firstDuplicate) firstDuplicate = first;
        } else {
          seen.add(id);
          positions.set(id, position);
        }
      });
      // The library's search stops at the first item that has a duplicate: (that index + 1) x length comparisons,
      // each a strict equality for scalars (about a thousand per unit) or a deep comparison for objects.
      if (firstDuplicate >= 0) {
        const pairs = (firstDuplicate + 1) * items.length;
        cost += Math.ceil(node.some((item) => typeof item === "object" && item !== null) ? pairs / 10 : pairs / 1000);
      }
      return idOf(`a${items.join(",")}`);
    }
    if (isRecord(node)) {
      const keys = Object.keys(node).sort();
      keyCount += keys.length;
      for (const key of keys) if (key.length > longestKey) longestKey = key.length;
      return idOf(`o${keys.map((key) => `${JSON.stringify(key)}:${visit(node[key])}`).join(",")}`);
    }
    return idOf(typeof node === "string" ? `s${node}` : `p${String(node)}`);
  };
  visit(value);
  return { cost, pairwise, longestKey, keys: keyCount };
}

export interface MeteredResult {
  valid: boolean;
  errors: OutputUnit[];
}

export class MeteredValidator {
  private readonly full: Prepared;
  private readonly fullLookup: Record<string, Schema | boolean>;
  private withoutUnique?: { schema: Record<string, unknown>; lookup: Record<string, Schema | boolean> };

  /** `converted` is the output of convertToJsonSchema; throws UnusableSchema naming what cannot run safely. */
  constructor(private readonly converted: Record<string, unknown>) {
    this.full = prepare(converted, true);
    this.fullLookup = dereference(this.full.schema as Schema);
  }

  /** The schema errors refer to (keywordLocation paths point into it). */
  schemaFor(): Record<string, unknown> {
    return this.full.schema;
  }

  /** Validates under `budget`; throws WorkBudgetExhausted when it runs out. */
  validate(instance: unknown, budget: WorkBudget): MeteredResult & { schema: Record<string, unknown> } {
    let schema = this.full.schema;
    let lookup = this.fullLookup;
    if (this.full.usesUniqueItems || this.full.usesPatternProperties) {
      const scan = scanDuplicates(instance, budget);
      if (this.full.usesPatternProperties && scan.longestKey > MAX_PATTERN_PROPERTY_NAME) {
        throw new UnusableSchema(
          `a property name is longer than ${MAX_PATTERN_PROPERTY_NAME} characters, the limit for matching patternProperties, so the value cannot be verified`,
        );
      }
      // Charged before the run: at worst every pattern is tested against every property name of the value.
      if (this.full.usesPatternProperties)
        budget.spend(Math.ceil((this.full.patternPropertiesCount * scan.keys) / PATTERN_TESTS_PER_UNIT));
      if (this.full.usesUniqueItems && scan.cost === 0 && scan.pairwise > PAIRWISE_TOLERATED) {
        this.withoutUnique ??= (() => {
          const prepared = prepare(this.converted, false).schema;
          return { schema: prepared, lookup: dereference(prepared as Schema) };
        })();
        ({ schema, lookup } = this.withoutUnique);
      } else if (scan.cost > 0) budget.spend(scan.cost);
      else if (this.full.usesUniqueItems) budget.spend(Math.ceil(scan.pairwise / 1000));
    }
    const requiredWeight = this.full.requiredWeight;
    const metered = new Proxy(lookup, {
      get(target, key, receiver) {
        budget.spend(
          1 +
            (typeof key === "string" && requiredWeight.size > 0
              ? (requiredWeight.get(key.slice(key.lastIndexOf("/") + 1)) ?? 0)
              : 0),
        );
        return Reflect.get(target, key, receiver);
      },
    });
    const previous = running;
    running = budget;
    try {
      const result = validate(instance, schema as Schema, "2020-12", metered, false);
      // An error costs several schema visits: it is built, copied up its path, then reduced to leaves.
      budget.spend(result.errors.length * ERROR_UNITS);
      return { valid: result.valid, errors: result.errors, schema };
    } finally {
      running = previous;
    }
  }
}

export { WorkBudget, WorkBudgetExhausted };
