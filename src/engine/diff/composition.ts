/**
 * oneOf / anyOf compared by the values each side accepts, not by the closest alternative. The schema diff
 * (schema-diff.ts) hands every schema with alternatives here; the rules schema-alternatives,
 * schema-alternatives-undecided and schema-alternative-covered report what this module finds.
 *
 * Direction "request": every contract alternative must be accepted by some implementation alternative (an
 * alternative removed is an error). Direction "response": every implementation alternative must be allowed by
 * some contract alternative (an alternative added is an error). One side without alternatives counts as one.
 *
 * Each alternative is first paired by identity: the same structure, the same discriminator value, the same
 * component name; its differences are then reported at that contract alternative's own index (oneOf/18, not the
 * first one that happened to be closest). An alternative with no identical partner is covered when any
 * alternative of the other side accepts all of it (subsumption, decided by the same schema diff), and a note names
 * the alternative that does (schema-alternative-covered, info: it explains an approval, it changes none). What the diff
 * cannot decide (anyOf against oneOf, an alternative that constrains no type) is reported as undecided with the
 * reason, never passed in silence.
 *
 * Properties declared beside oneOf/anyOf belong to every alternative: each alternative is compared as the
 * enclosing schema and the member together (an allOf of both, built once per pair of objects), so a property
 * the enclosing schema defines is known inside each branch; differences in those shared properties are reported
 * once, at the enclosing schema. The same holds behind wrappers that add nothing (a single-member allOf, a 3.1
 * `anyOf: [X, {type: "null"}]`), so a schema and its wrapped forms compare equal; an alternative written as
 * `allOf: [$ref]` is named after its component.
 */
import { escapeToken, isRecord, unescapeToken } from "../normalize/normalize-pointer";
import { resolveSchema, viewSchema, type SchemaReader, type SchemaView } from "../normalize/normalize-schema";
import { admitsEverything } from "./admits-everything";
import type { CompositionChangeKind, Direction, SchemaChange } from "./schema-change";

/** What the schema diff lends this module: its (memoised) comparison, identity check and readers. */
export interface CompositionHost {
  readonly contract: SchemaReader;
  readonly snapshot: SchemaReader;
  compare(
    contractSchema: unknown,
    snapshotSchema: unknown,
    direction: Direction,
    depth: number,
  ): readonly SchemaChange[];
  identical(contractSchema: unknown, snapshotSchema: unknown): boolean;
  blocking(change: SchemaChange): boolean;
}

interface Alternative {
  /** Index in the side's oneOf/anyOf list; -1 when the side has no alternatives (the schema itself). */
  index: number;
  /** The member as written, for its component name and identity. */
  raw: unknown;
  /** The member merged with what the enclosing schema declares beside oneOf/anyOf. */
  effective: unknown;
  /** Property names the member itself declares (the rest come from the enclosing schema). */
  ownProperties: ReadonlySet<string>;
  refName: string | undefined;
  discriminatorValues: ReadonlySet<string>;
  /** The view of `effective`. */
  view: SchemaView;
  /** Where it is written, after its list's place: "/3" for a oneOf/anyOf member, "" for a member of a type list. */
  at: string;
  /** Its one instance type, when it constrains exactly one. */
  singleType: string | undefined;
}

const ANNOTATIONS = new Set([
  "description",
  "summary",
  "title",
  "example",
  "examples",
  "deprecated",
  "externalDocs",
  "xml",
  "$comment",
  "default",
  "readOnly",
  "writeOnly",
]);
const effectiveCache = new WeakMap<object, WeakMap<object, object>>();

/**
 * The keywords beside oneOf/anyOf (and beside `wrapper`, the allOf a wrapper stands in) that constrain the
 * value, or undefined when there are none.
 */
function enclosingRest(source: Record<string, unknown>, wrapper?: string): Record<string, unknown> | undefined {
  const rest: Record<string, unknown> = {};
  let constrains = false;
  for (const [key, value] of Object.entries(source)) {
    if (
      key === "oneOf" ||
      key === "anyOf" ||
      key === wrapper ||
      key === "discriminator" ||
      key === "nullable" ||
      key.startsWith("x-")
    )
      continue;
    rest[key] = value;
    if (!ANNOTATIONS.has(key)) constrains = true;
  }
  return constrains ? rest : undefined;
}

interface AlternativesHolder {
  /** The schema whose own oneOf/anyOf list holds the alternatives. */
  holder: Record<string, unknown>;
  /** Where that list is, relative to the view's source: "/oneOf", "/anyOf/0/oneOf", "/allOf/1/oneOf". */
  base: string;
  /**
   * What applies beside every alternative: the constraining keywords of the wrappers on the way and of the holder
   * beside its list (none for a plain wrapper). Undefined where that is not safe to build (an allOf or a 3.1
   * `$ref` beside the list, an allOf member holding it): the member is then compared alone, as before.
   */
  enclosing: Record<string, unknown>[] | undefined;
}

/**
 * The one member a wrapper stands for, so a schema and its wrapped forms read alike: a single-member allOf
 * (NestJS, Swashbuckle), or a oneOf/anyOf whose other members only allow null (3.1 `anyOf: [X, {type:
 * "null"}]`, FastAPI).
 */
function wrappedMember(
  schema: Record<string, unknown>,
  reader: SchemaReader,
): { keyword: string; index: number; member: unknown } | undefined {
  if (Array.isArray(schema.allOf))
    return schema.allOf.length === 1 ? { keyword: "allOf", index: 0, member: schema.allOf[0] } : undefined;
  for (const keyword of ["oneOf", "anyOf"]) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    const kept = list
      .map((member, index) => ({ member, index }))
      .filter(({ member }) => !allowsOnlyNull(viewSchema(member, reader)));
    if (kept.length === 1) return { keyword, ...(kept[0] as { member: unknown; index: number }) };
  }
  return undefined;
}

/** Only null is allowed (a `{type: "null"}` member). */
function allowsOnlyNull(view: SchemaView): boolean {
  return view.nullable && view.types !== undefined && view.types.size === 0 && view.alternatives === undefined;
}

/**
 * Where the view's alternatives come from: the source's own list, the list behind wrappers (so `anyOf: [Pet,
 * {type: "null"}]` and a nullable Pet give the same alternatives, Pet's properties beside its oneOf included), or
 * an allOf member's list.
 */
function alternativesHolder(view: SchemaView, reader: SchemaReader): AlternativesHolder | undefined {
  const keyword = view.alternativesKeyword;
  const source = view.source;
  // A type list's members are read from the schema itself (normalize-schema.ts): no list holds them.
  if (!keyword || keyword === "type" || !source || !view.alternatives) return undefined;
  const member = view.alternatives[0];
  const wrappers: Record<string, unknown>[] = [];
  let current: Record<string, unknown> = source;
  let prefix = "";
  for (let depth = 0; depth < 16; depth++) {
    const own = current[keyword];
    if (Array.isArray(own) && own.includes(member)) {
      if (current.allOf !== undefined || current.$ref !== undefined)
        return { holder: current, base: `${prefix}/${keyword}`, enclosing: undefined };
      const rest = enclosingRest(current);
      return { holder: current, base: `${prefix}/${keyword}`, enclosing: rest ? [...wrappers, rest] : wrappers };
    }
    const inner = wrappedMember(current, reader);
    const next = inner ? resolveSchema(inner.member, reader) : undefined;
    if (!inner || !isRecord(next) || (current.$ref !== undefined && reader.version !== "3.0")) break;
    const rest = enclosingRest(current, inner.keyword);
    if (rest) wrappers.push(rest);
    prefix = `${prefix}/${inner.keyword}/${inner.index}`;
    current = next;
  }
  if (Array.isArray(source.allOf)) {
    for (let index = 0; index < source.allOf.length; index++) {
      const part = resolveSchema(source.allOf[index], reader);
      const list = isRecord(part) ? part[keyword] : undefined;
      if (isRecord(part) && Array.isArray(list) && list.includes(member))
        return { holder: part, base: `/allOf/${index}/${keyword}`, enclosing: undefined };
    }
  }
  return undefined;
}

/**
 * The member as it applies: what encloses it (the holder's keywords beside the list, and those of the wrappers
 * around it) and the member together, built once per source and member so comparisons memoised by object stay
 * memoised. The member alone where `enclosing` is undefined.
 */
function effectiveMember(
  source: Record<string, unknown>,
  found: AlternativesHolder | undefined,
  member: unknown,
): unknown {
  if (!found?.enclosing || !isRecord(member)) return member;
  let bySource = effectiveCache.get(source);
  if (!bySource) {
    bySource = new WeakMap();
    effectiveCache.set(source, bySource);
  }
  let merged = bySource.get(member);
  if (!merged) {
    merged = found.enclosing.length > 0 ? { allOf: [...found.enclosing, member] } : member;
    bySource.set(member, merged);
  }
  return merged;
}

/**
 * The `$ref` an alternative is written as, also behind a single-member allOf (NestJS and Swashbuckle write
 * `allOf: [$ref]`), so a wrapped alternative pairs with its component by name and the discriminator selects it.
 */
function memberRef(raw: unknown): string | undefined {
  const member =
    isRecord(raw) && raw.$ref === undefined && Array.isArray(raw.allOf) && raw.allOf.length === 1 ? raw.allOf[0] : raw;
  return isRecord(member) && typeof member.$ref === "string" ? member.$ref : undefined;
}

function refNameOf(raw: unknown): string | undefined {
  const ref = memberRef(raw);
  if (ref === undefined) return undefined;
  const tokens = ref.split("/");
  return unescapeToken(tokens[tokens.length - 1] ?? "");
}

/** Discriminator value -> the `$ref` (or bare component name) it selects; without a mapping, component names. */
function discriminatorMapping(view: SchemaView): Map<string, string> | undefined {
  const discriminator = view.source?.discriminator;
  if (!isRecord(discriminator)) return undefined;
  const mapping = new Map<string, string>();
  if (isRecord(discriminator.mapping)) {
    for (const [value, target] of Object.entries(discriminator.mapping))
      if (typeof target === "string") mapping.set(value, target);
  }
  const mapped = new Set(mapping.values());
  for (const member of view.alternatives ?? []) {
    const name = refNameOf(member);
    const ref = memberRef(member);
    if (name !== undefined && typeof ref === "string" && !mapped.has(ref) && !mapped.has(name) && !mapping.has(name))
      mapping.set(name, ref);
  }
  return mapping;
}

function selects(target: string, raw: unknown): boolean {
  const ref = memberRef(raw);
  if (ref === undefined) return false;
  return target === ref || (!target.includes("/") && target === refNameOf(raw));
}

/**
 * Where a view's alternatives are written, relative to the schema: its own "/oneOf" (or "/anyOf"), the member
 * a wrapper stands for ("/anyOf/0/oneOf"), or the allOf member that holds them ("/allOf/1/oneOf"); with the
 * list as written, so indexes count the members a reader sees (a `{type: "null"}` member included).
 */
function alternativesLocation(
  view: SchemaView,
  reader: SchemaReader,
  found = alternativesHolder(view, reader),
): { base: string; list: readonly unknown[] } | undefined {
  const keyword = view.alternativesKeyword;
  if (!keyword || !view.alternatives) return undefined;
  if (keyword === "type") return { base: "", list: view.alternatives };
  const list = found?.holder[keyword];
  return found && Array.isArray(list) ? { base: found.base, list } : { base: `/${keyword}`, list: view.alternatives };
}

function alternativesOf(view: SchemaView, reader: SchemaReader): Alternative[] {
  const mapping = discriminatorMapping(view);
  if (!view.alternatives || !view.source) {
    return [
      {
        index: -1,
        raw: view.source,
        effective: view.source,
        ownProperties: new Set(view.properties.keys()),
        refName: undefined,
        discriminatorValues: new Set(),
        view,
        at: "",
        singleType: singleTypeOf(view),
      },
    ];
  }
  const source = view.source;
  const found = alternativesHolder(view, reader);
  const written = alternativesLocation(view, reader, found)?.list ?? view.alternatives;
  return view.alternatives.map((raw, position) => {
    const at = written.indexOf(raw);
    const index = at >= 0 ? at : position;
    const values = new Set<string>();
    for (const [value, target] of mapping ?? []) if (selects(target, raw)) values.add(value);
    const effective = effectiveMember(source, found, raw);
    const ownProperties = new Set(viewSchema(raw, reader).properties.keys());
    const memberView = viewSchema(effective, reader);
    return {
      index,
      raw,
      effective,
      ownProperties,
      refName: refNameOf(raw),
      discriminatorValues: values,
      view: memberView,
      at: view.alternativesKeyword === "type" ? "" : `/${index}`,
      singleType: singleTypeOf(memberView),
    };
  });
}

function singleTypeOf(view: SchemaView): string | undefined {
  return view.types?.size === 1 ? [...view.types][0] : undefined;
}

/** The alternative that is the only one of `source`'s single type on each side (a type list's members pair so). */
function sameOnlyType(
  source: Alternative,
  sources: readonly Alternative[],
  targets: readonly Alternative[],
): Alternative | undefined {
  const type = source.singleType;
  if (type === undefined || sources.filter((other) => other.singleType === type).length !== 1) return undefined;
  const matching = targets.filter((target) => target.singleType === type);
  return matching.length === 1 ? matching[0] : undefined;
}

/** Composition changes that make an alternative fail to cover another, when found nested inside it. */
export const BLOCKING_COMPOSITION_CHANGES: ReadonlySet<string> = new Set<CompositionChangeKind>([
  "alternative-removed",
  "alternative-added",
  "discriminator",
]);

function describeAlternative(alternative: Alternative, keyword: string | undefined): string {
  if (alternative.index < 0) return "schema";
  if (keyword === "type") return `${alternative.singleType ?? "untyped"} member of its type list`;
  const name = alternative.refName
    ? ` (${alternative.refName})`
    : alternative.discriminatorValues.size > 0
      ? ` (discriminator ${[...alternative.discriminatorValues].join(", ")})`
      : "";
  return `${keyword ?? "alternative"} alternative ${alternative.index}${name}`;
}

function constrainsNothing(view: SchemaView): boolean {
  return (
    !view.types && view.properties.size === 0 && view.items === undefined && !view.enumValues && !view.alternatives
  );
}

function sharesDiscriminatorValue(a: Alternative, b: Alternative): boolean {
  for (const value of a.discriminatorValues) if (b.discriminatorValues.has(value)) return true;
  return false;
}

/**
 * The other side's alternative that is this one by identity: the same structure (as it applies, then as the
 * member is written, so a change beside oneOf does not hide the pairing), discriminator value, component name,
 * or for unnamed alternatives the same place in lists of the same length.
 */
function identityPartner(
  source: Alternative,
  sources: readonly Alternative[],
  targets: readonly Alternative[],
  sameStructure: (source: Alternative, target: Alternative) => boolean,
  sameMember: (source: Alternative, target: Alternative) => boolean,
): Alternative | undefined {
  return (
    targets.find((target) => sameStructure(source, target)) ??
    targets.find((target) => sameMember(source, target)) ??
    targets.find((target) => sharesDiscriminatorValue(source, target)) ??
    (source.refName !== undefined ? targets.find((target) => target.refName === source.refName) : undefined) ??
    sameOnlyType(source, sources, targets) ??
    // Inline alternatives have no name: with as many on both sides, the one at the same place (a reordering
    // still passes, as another alternative then covers it).
    (source.index >= 0 && targets.length === sources.length
      ? targets.find(
          (target) => target.index === source.index && target.refName === undefined && source.refName === undefined,
        )
      : undefined)
  );
}

function compareDiscriminators(
  contract: SchemaView,
  snapshot: SchemaView,
  direction: Direction,
  into: SchemaChange[],
): void {
  const contractDiscriminator = contract.source?.discriminator;
  const snapshotDiscriminator = snapshot.source?.discriminator;
  if (!isRecord(contractDiscriminator) || !isRecord(snapshotDiscriminator)) return;
  if (contractDiscriminator.propertyName !== snapshotDiscriminator.propertyName) {
    into.push({
      kind: "discriminator",
      pointer: "/discriminator/propertyName",
      message: `the discriminator is property ${JSON.stringify(contractDiscriminator.propertyName ?? null)} in the contract but ${JSON.stringify(snapshotDiscriminator.propertyName ?? null)} in the implementation, so the two pick alternatives by different properties`,
    });
    return;
  }
  const contractMapping = discriminatorMapping(contract) ?? new Map<string, string>();
  const snapshotMapping = discriminatorMapping(snapshot) ?? new Map<string, string>();
  if (direction === "request") {
    for (const value of contractMapping.keys()) {
      if (!snapshotMapping.has(value)) {
        into.push({
          kind: "discriminator",
          pointer: `/discriminator/mapping/${escapeToken(value)}`,
          message: `the contract maps discriminator value "${value}" but the implementation does not (it maps ${[...snapshotMapping.keys()].map((key) => `"${key}"`).join(", ") || "none"}), so a client sending it is refused`,
        });
      }
    }
  } else {
    for (const value of snapshotMapping.keys()) {
      if (!contractMapping.has(value)) {
        into.push({
          kind: "discriminator",
          pointer: "/discriminator/mapping",
          message: `the implementation may return discriminator value "${value}", which the contract does not map (it maps ${[...contractMapping.keys()].map((key) => `"${key}"`).join(", ") || "none"})`,
        });
      }
    }
  }
}

/** The differences between two schemas of which at least one has oneOf/anyOf alternatives (besides nullability). */
export function compareComposition(
  host: CompositionHost,
  contract: SchemaView,
  snapshot: SchemaView,
  direction: Direction,
  depth: number,
): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const seen = new Set<string>();
  const add = (change: SchemaChange): void => {
    const key = `${change.kind}\u0000${change.pointer}\u0000${change.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    changes.push(change);
  };
  const keyword = contract.alternativesKeyword;
  /** Where the contract's alternatives are written ("" when the contract has none). */
  const base = alternativesLocation(contract, host.contract)?.base ?? "";
  const contractAlternatives = alternativesOf(contract, host.contract);
  const snapshotAlternatives = alternativesOf(snapshot, host.snapshot);
  const discriminatorChanges: SchemaChange[] = [];
  compareDiscriminators(contract, snapshot, direction, discriminatorChanges);
  for (const change of discriminatorChanges) add(change);

  // A type list's members never overlap (one type each), as a oneOf's must not.
  const exclusive = (view: SchemaView) => (view.alternativesKeyword === "type" ? "oneOf" : view.alternativesKeyword);
  const narrowed =
    direction === "request"
      ? exclusive(contract) === "anyOf" && exclusive(snapshot) === "oneOf"
      : exclusive(contract) === "oneOf" && exclusive(snapshot) === "anyOf";
  if (narrowed && contractAlternatives.length > 1 && snapshotAlternatives.length > 1) {
    add({
      kind: "alternatives-undecided",
      pointer: base,
      message:
        direction === "request"
          ? "the contract uses anyOf where the implementation uses oneOf: a value matching several alternatives is refused by the implementation, and whether the alternatives overlap cannot be decided here"
          : "the implementation uses anyOf where the contract uses oneOf: it may return a value matching several alternatives, which the contract refuses, and whether they overlap cannot be decided here",
    });
  }

  const [sources, targets] =
    direction === "response"
      ? [snapshotAlternatives, contractAlternatives]
      : [contractAlternatives, snapshotAlternatives];
  // Null at the top of an alternative is the enclosing schema's nullability, which the schema diff compares
  // once beside this (compareNullability): a side without alternatives carries its `nullable` in its effective
  // schema, while the other side's alternatives leave the enclosing `nullable` out, so comparing it again here
  // reported "may return null" for `nullable: true` beside a oneOf that the implementation wrote with one member.
  const pairChanges = (source: Alternative, target: Alternative): readonly SchemaChange[] =>
    withoutTopNullability(
      direction === "response"
        ? host.compare(target.effective, source.effective, direction, depth + 1)
        : host.compare(source.effective, target.effective, direction, depth + 1),
    );
  const sameStructure = (source: Alternative, target: Alternative): boolean =>
    direction === "response"
      ? host.identical(resolveSchema(target.effective, host.contract), resolveSchema(source.effective, host.snapshot))
      : host.identical(resolveSchema(source.effective, host.contract), resolveSchema(target.effective, host.snapshot));
  const sameMember = (source: Alternative, target: Alternative): boolean =>
    direction === "response"
      ? host.identical(resolveSchema(target.raw, host.contract), resolveSchema(source.raw, host.snapshot))
      : host.identical(resolveSchema(source.raw, host.contract), resolveSchema(target.raw, host.snapshot));
  const contractSideOf = (source: Alternative, target: Alternative): Alternative =>
    direction === "response" ? target : source;
  /** The nearest miss, so the message says what to change: the target with the fewest blocking differences. */
  const closest = (source: Alternative): string => {
    let best: { target: Alternative; first: SchemaChange; count: number } | undefined;
    for (const target of targets) {
      const blocking = pairChanges(source, target).filter((change) => host.blocking(change));
      const first = blocking[0];
      if (first && (!best || blocking.length < best.count)) best = { target, first, count: blocking.length };
    }
    if (!best) return "";
    const side = direction === "response" ? keyword : snapshot.alternativesKeyword;
    return ` (closest: ${describeAlternative(best.target, side)}, where ${best.first.pointer ? `at ${best.first.pointer} ` : ""}${best.first.message})`;
  };

  /** A change found inside a pair, placed at the contract alternative (or at the enclosing schema for shared properties). */
  const place = (contractAlternative: Alternative, change: SchemaChange): SchemaChange => {
    if (contractAlternative.index < 0) return change;
    const property = /^\/properties\/([^/]+)/.exec(change.pointer)?.[1];
    if (
      property !== undefined &&
      !contractAlternative.ownProperties.has(unescapeToken(property)) &&
      contract.properties.has(unescapeToken(property))
    )
      return change;
    return { ...change, pointer: `${base}${contractAlternative.at}${change.pointer}` };
  };
  const isBlocking = (found: readonly SchemaChange[]): boolean => found.some((change) => host.blocking(change));
  /** Why an alternative without an unchanged partner passes: the other side's alternative that accepts all of it. */
  const coveredNote = (source: Alternative, cover: Alternative): SchemaChange => {
    const [contractAlternative, snapshotAlternative] = direction === "response" ? [cover, source] : [source, cover];
    const contractSide = `the contract's ${describeAlternative(contractAlternative, keyword)}`;
    const snapshotSide = `the implementation's ${describeAlternative(snapshotAlternative, snapshot.alternativesKeyword)}`;
    const admits =
      admitsEverything(cover.view) ??
      (direction === "response" ? "accepts every value it may return" : "accepts every value it allows");
    return {
      kind: "alternative-covered",
      pointer: contractAlternative.index >= 0 ? `${base}${contractAlternative.at}` : base,
      message:
        direction === "response"
          ? `${snapshotSide} is allowed because ${contractSide} ${admits}`
          : `${contractSide} is still accepted because ${snapshotSide} ${admits}`,
    };
  };

  for (const source of sources) {
    const partner = identityPartner(source, sources, targets, sameStructure, sameMember);
    if (partner && sameStructure(source, partner)) continue;
    if (constrainsNothing(source.view)) {
      // The schema diff lets an undeclared type pass (generators leave types out), so "covered" would mean
      // nothing here: only an alternative that constrains nothing either certainly covers it.
      if (targets.some((target) => constrainsNothing(target.view))) continue;
      const sourceSide = direction === "response" ? "implementation" : "contract";
      add({
        kind: "alternatives-undecided",
        pointer: direction === "request" && source.index >= 0 ? `${base}${source.at}` : base,
        message: `the ${sourceSide}'s ${describeAlternative(source, direction === "response" ? snapshot.alternativesKeyword : keyword)} constrains no type, so whether the other side's alternatives cover it cannot be decided`,
      });
      continue;
    }
    const partnerChanges = partner ? pairChanges(source, partner) : undefined;
    if (partner && partnerChanges && !isBlocking(partnerChanges)) {
      for (const change of partnerChanges) add(place(contractSideOf(source, partner), change));
      continue;
    }
    // Not (or not unchanged) its identity partner: covered if any alternative accepts all of it, and the verdict
    // says which one, so an approval that rests on an open alternative is not silent.
    const cover = targets.find((target) => target !== partner && !isBlocking(pairChanges(source, target)));
    if (cover) {
      add(coveredNote(source, cover));
      // Covered means nothing blocks; what differs still counts (a response property made optional, a bound
      // changed), placed at the covering pair's contract side.
      for (const change of pairChanges(source, cover)) add(place(contractSideOf(source, cover), change));
      continue;
    }
    if (partner && partnerChanges) {
      // The same alternative on both sides, changed: its differences, at its own index.
      for (const change of partnerChanges) add(place(contractSideOf(source, partner), change));
      continue;
    }
    if (direction === "request") {
      const accepted = targets.map((target) => describeAlternative(target, snapshot.alternativesKeyword)).join(", ");
      add({
        kind: "alternative-removed",
        pointer: source.index >= 0 ? `${base}${source.at}` : "",
        message: `the contract's ${describeAlternative(source, keyword)} is accepted by none of the implementation's alternatives (${accepted}), so clients sending it are refused${closest(source)}`,
      });
    } else {
      add({
        kind: "alternative-added",
        pointer: base,
        message: `the implementation's ${describeAlternative(source, snapshot.alternativesKeyword)} fits none of the contract's alternatives, so it may return values the contract does not allow${closest(source)}`,
      });
    }
  }
  return changes;
}

function withoutTopNullability(changes: readonly SchemaChange[]): readonly SchemaChange[] {
  if (!changes.some((change) => change.kind === "nullable" && change.pointer === "")) return changes;
  return changes.filter((change) => !(change.kind === "nullable" && change.pointer === ""));
}
