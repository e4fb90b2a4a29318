/**
 * Memo for comparing the targets of two `$ref`s, recursive documents included. A comparison that reaches a pair
 * already being compared further up assumes "identical" there (the only consistent answer for a cycle that
 * repeats identically). A result that relied on such an assumption is only as good as the pair it assumed, so it
 * stays provisional until that pair is settled: kept when it turns out identical, dropped when it does not.
 * Without that, a schema inside a cycle could be remembered as identical although a difference elsewhere in the
 * cycle reaches it.
 *
 * Usage: `known(key)`; when undefined, `begin(key)`, compare the targets, `end(key, same)`. Keys are plain
 * strings so that the common case (the same `$ref` text on both sides) costs one map lookup and no allocation.
 */

import { keepLayout } from "../keep-layout";

const IDENTICAL = -1;
const DIFFERENT = -2;
const NOTHING_ASSUMED = Number.MAX_SAFE_INTEGER;

export class ReferenceMemo {
  /**
   * Per key: IDENTICAL or DIFFERENT when settled; otherwise a stack depth, either of the pair itself while it is
   * being compared or of the assumption a provisional result relies on. Both answer "identical, provided the
   * pair at that depth turns out identical", so one lookup serves every case.
   */
  private readonly results = new Map<string, number>();
  private readonly provisional: string[] = [];
  private readonly outerLowest: number[] = [];
  private readonly provisionalStart: number[] = [];
  /** Lowest stack depth whose assumption the current comparison relied on. */
  private lowest = NOTHING_ASSUMED;

  /** True or false when settled (or assumed, for a pair being compared further up); undefined when unknown. */
  known(key: string): boolean | undefined {
    const known = this.results.get(key);
    if (known === undefined) return undefined;
    if (known === IDENTICAL) return true;
    if (known === DIFFERENT) return false;
    if (known < this.lowest) this.lowest = known;
    return true;
  }

  begin(key: string): void {
    this.results.set(key, this.outerLowest.length);
    this.outerLowest.push(this.lowest);
    this.provisionalStart.push(this.provisional.length);
    this.lowest = NOTHING_ASSUMED;
  }

  end(key: string, same: boolean): void {
    const outerLowest = this.outerLowest.pop() as number;
    const start = this.provisionalStart.pop() as number;
    const depth = this.outerLowest.length;
    const lowest = this.lowest;
    if (!same) {
      // A difference is real whatever was assumed; what was assumed under this pair is unknown now.
      this.results.set(key, DIFFERENT);
      for (let index = start; index < this.provisional.length; index++)
        this.results.delete(this.provisional[index] as string);
      this.provisional.length = start;
      this.lowest = outerLowest;
    } else if (lowest >= depth) {
      // Relied on nothing above this pair: it and everything provisional under it are settled.
      this.results.set(key, IDENTICAL);
      for (let index = start; index < this.provisional.length; index++)
        this.results.set(this.provisional[index] as string, IDENTICAL);
      this.provisional.length = start;
      this.lowest = outerLowest;
    } else {
      for (let index = start; index < this.provisional.length; index++)
        this.results.set(this.provisional[index] as string, lowest);
      this.results.set(key, lowest);
      this.provisional.push(key);
      this.lowest = Math.min(outerLowest, lowest);
    }
  }
}

keepLayout(new ReferenceMemo());
