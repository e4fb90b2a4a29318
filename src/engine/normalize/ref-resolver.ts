/**
 * The in-document `$ref` resolver, and the limits on what references may cost an upload. Every reference met on
 * a chain of pure references (a `$ref` whose target is itself only a `$ref`) is remembered with the chain's end,
 * so resolving S0 -> S1 -> ... -> Sn and then S1, S2, ... costs one step per link, not n^2/2 steps (5,000 links
 * took 9 s before). A chain longer than MAX_REF_CHAIN_LINKS is refused, each reference of it naming the limit.
 */
import { keepLayout } from "../keep-layout";
import { isRecord, refTokens, valueAt } from "./normalize-pointer";
import { SchemaResources, type DynamicReference } from "./schema-resources";

/**
 * References to references a chain may go through before it reaches a value. Generators alias a schema once or
 * twice; GitHub's REST description (13 MB, 10,460 `$ref`s) has no reference whose target is another reference.
 */
export const MAX_REF_CHAIN_LINKS = 32;

/**
 * `$ref`s one document may hold. GitHub's REST description holds 10,460; each reference is resolved at upload
 * and again by the verdict, so their number bounds the resolution work an upload may cause.
 */
export const MAX_DOCUMENT_REFERENCES = 100_000;

export function tooManyReferences(): string {
  return `the document has more than ${MAX_DOCUMENT_REFERENCES} $refs, the most Arbiter resolves in one upload (GitHub's REST description has about 10,500): split the API into several documents or inline repeated references`;
}

export type RefResolution = { ok: true; value: unknown; tokens: string[] } | { ok: false; reason: string };

interface Entry {
  /** What resolving the reference answers (the chain's end, or why it cannot be used). */
  answer: RefResolution;
  /** How the chain ended, whatever its length: what a longer chain through this reference ends with. */
  end: RefResolution;
  /** References to references after this reference's own target. */
  links: number;
}

/** Longest cycle shown in full in a message; longer ones show their start and end. */
const MAX_CYCLE_SHOWN = 12;

function failure(reason: string): RefResolution {
  return { ok: false, reason };
}

/** Why a `$ref` that is not an in-document pointer (after `$id`, `$anchor` and base URIs are applied) is refused. */
function notInDocument(ref: string): RefResolution {
  if (ref.startsWith("#"))
    return failure(
      `$ref "${ref}" names an anchor that no $anchor (or $id) in this document defines: check the name, or use a JSON pointer ("#/components/schemas/...")`,
    );
  return failure(
    `external $ref "${ref}" is not allowed: it points to another document (no $id in this document names it); bundle the document into one file first (for example \`redocly bundle\`)`,
  );
}

function chainTooLong(ref: string): RefResolution {
  return failure(
    `$ref "${ref}" goes through more than ${MAX_REF_CHAIN_LINKS} references to references before it reaches a value (at most ${MAX_REF_CHAIN_LINKS} are allowed): point it at the target directly`,
  );
}

function cycle(members: readonly string[]): RefResolution {
  const shown =
    members.length <= MAX_CYCLE_SHOWN
      ? members
      : [...members.slice(0, 6), `… ${members.length - 9} more …`, ...members.slice(-3)];
  return failure(`$ref cycle: ${[...shown, members[0]].join(" -> ")}`);
}

/**
 * Resolves internal `$ref`s of one document, following chains of pure references. Every reference met is
 * cached (with what its chain ends in and how long it is), so resolving the same component thousands of times
 * costs one lookup each, and a chain of n references costs n steps however it is entered.
 */
export class RefResolver {
  private readonly cache = new Map<string, Entry>();
  /** 3.1+ identifiers ($id, $anchor), read on first use; null for 3.0 documents, which have none. */
  private resources: SchemaResources | null | undefined;

  constructor(readonly root: unknown) {}

  /** The document's 3.1 schema resources when it uses any ($id, $anchor, relative refs, $dynamicRef); else null. */
  schemaResources(): SchemaResources | null {
    if (this.resources === undefined) {
      const root = this.root;
      const version = isRecord(root) && typeof root.openapi === "string" ? root.openapi : "3.0";
      this.resources =
        isRecord(root) && !version.startsWith("3.0") && !version.startsWith("2") ? new SchemaResources(root) : null;
      if (this.resources && !this.resources.active) this.resources = null;
    }
    return this.resources;
  }

  /**
   * The in-document reference `record.$ref` means: its own text, or in 3.1 the pointer its `$id` base and
   * `$anchor`s make of it (schema-resources.ts). Every reader of a `$ref` found in the document goes through this.
   */
  refOf(record: Record<string, unknown>): string {
    const resources = this.schemaResources();
    return resources === null ? (record.$ref as string) : resources.refOf(record);
  }

  /** resolveRef of what `record.$ref` means where it is written. */
  resolveAt(record: Record<string, unknown>): RefResolution {
    return this.resolveRef(this.refOf(record));
  }

  /** What `record.$dynamicRef` resolves to, when its target cannot depend on the dynamic scope; undefined without one. */
  dynamicRefOf(record: Record<string, unknown>): DynamicReference | undefined {
    if (typeof record.$dynamicRef !== "string") return undefined;
    const resources = this.schemaResources();
    // null: a 3.0 document (no such keyword) or one without any $dynamicRef.
    if (resources === null) return undefined;
    return resources.dynamicRefOf(record);
  }

  /** How many distinct `$ref` strings have been resolved (and cached) so far. */
  get resolvedCount(): number {
    return this.cache.size;
  }

  resolveRef(ref: string): RefResolution {
    const cached = this.cache.get(ref);
    if (cached) return cached.answer;
    const direct = this.direct(ref);
    return typeof direct === "string" ? this.follow(ref, direct) : direct;
  }

  /**
   * The common case without the chain bookkeeping: a reference whose target is a value (or that fails on its
   * own). When the target is itself a reference, its `$ref`: `follow` walks the chain from there. What it caches
   * is what `follow` would cache for a chain of one reference; each upload resolves thousands of distinct ones.
   */
  private direct(ref: string): RefResolution | string {
    const tokens = refTokens(ref);
    let end: RefResolution;
    if (!tokens) end = notInDocument(ref);
    else {
      const value = valueAt(this.root, tokens);
      if (value === undefined) end = failure(`$ref "${ref}" does not resolve to anything in this document`);
      else if (isRecord(value) && typeof value.$ref === "string") return this.refOf(value);
      else end = { ok: true, value, tokens };
    }
    this.cache.set(ref, { answer: end, end, links: 0 });
    return end;
  }

  /**
   * Walks the chain from `first` until a value, a failure, a cycle or a reference resolved before. `next`: the
   * `$ref` of first's target, when `direct` has already looked it up.
   */
  private follow(first: string, next: string): RefResolution {
    const chain: string[] = [first];
    const position = new Map<string, number>([[first, 0]]);
    let ref = next;
    let end: RefResolution;
    /** Links after the last reference of `chain`'s own target. */
    let tail = 0;
    for (;;) {
      const known = this.cache.get(ref);
      if (known) {
        end = known.end;
        if (end.ok) tail = known.links + 1;
        break;
      }
      const seenAt = position.get(ref);
      if (seenAt !== undefined) {
        // Every reference of the chain leads into the cycle: the same message serves them all.
        end = cycle(chain.slice(seenAt));
        break;
      }
      position.set(ref, chain.length);
      chain.push(ref);
      const tokens = refTokens(ref);
      if (!tokens) {
        end = notInDocument(ref);
        break;
      }
      const value = valueAt(this.root, tokens);
      if (value === undefined) {
        end = failure(`$ref "${ref}" does not resolve to anything in this document`);
        break;
      }
      if (isRecord(value) && typeof value.$ref === "string") {
        ref = this.refOf(value);
        continue;
      }
      end = { ok: true, value, tokens };
      break;
    }
    const last = chain.length - 1;
    for (let index = 0; index <= last; index++) {
      const member = chain[index] as string;
      const links = end.ok ? last - index + tail : 0;
      this.cache.set(member, { answer: links > MAX_REF_CHAIN_LINKS ? chainTooLong(member) : end, end, links });
    }
    return (this.cache.get(first) as Entry).answer;
  }

  /** The object itself, or the target of its `$ref` (undefined when the ref is broken). */
  deref(value: unknown): unknown {
    if (isRecord(value) && typeof value.$ref === "string") {
      const result = this.resolveAt(value);
      return result.ok ? result.value : undefined;
    }
    return value;
  }
}

keepLayout(new RefResolver({}));
