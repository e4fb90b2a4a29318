/**
 * Memo for a recursive computation over schemas that may refer to themselves (the schema differences of
 * SchemaDiffer). A pair reached again while it is being computed answers `assumption` there (for differences:
 * none below the point where the cycle repeats). A result that relied on such an assumption further up stays
 * provisional until that pair is settled; it is dropped when the pair's own result contradicts the assumption,
 * so it is computed again, now against the settled result. The boolean counterpart on the hot path of
 * structural identity is ReferenceMemo.
 */
import { keepLayout } from "../keep-layout";

const SETTLED = Number.MAX_SAFE_INTEGER;

interface Entry<T> {
  value: T;
  /** SETTLED, or the stack depth of the assumption the value relies on (while computing: its own depth). */
  dependsOn: number;
}

export class ProvisionalMemo<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly provisional: string[] = [];
  private readonly outerLowest: number[] = [];
  private readonly provisionalStart: number[] = [];
  private lowest = SETTLED;

  constructor(private readonly assumption: T) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.dependsOn < this.lowest) this.lowest = entry.dependsOn;
    return entry.value;
  }

  begin(key: string): void {
    this.entries.set(key, { value: this.assumption, dependsOn: this.outerLowest.length });
    this.outerLowest.push(this.lowest);
    this.provisionalStart.push(this.provisional.length);
    this.lowest = SETTLED;
  }

  /** `confirmsAssumption`: whether `value` is what was assumed for this pair while it was being computed. */
  end(key: string, value: T, confirmsAssumption: boolean): void {
    const outerLowest = this.outerLowest.pop() as number;
    const start = this.provisionalStart.pop() as number;
    const depth = this.outerLowest.length;
    const lowest = this.lowest;
    if (!confirmsAssumption) {
      for (let index = start; index < this.provisional.length; index++)
        this.entries.delete(this.provisional[index] as string);
      this.provisional.length = start;
    }
    if (lowest >= depth) {
      for (let index = start; index < this.provisional.length; index++)
        (this.entries.get(this.provisional[index] as string) as Entry<T>).dependsOn = SETTLED;
      this.provisional.length = start;
      this.entries.set(key, { value, dependsOn: SETTLED });
      this.lowest = outerLowest;
    } else {
      for (let index = start; index < this.provisional.length; index++)
        (this.entries.get(this.provisional[index] as string) as Entry<T>).dependsOn = lowest;
      this.entries.set(key, { value, dependsOn: lowest });
      this.provisional.push(key);
      this.lowest = Math.min(outerLowest, lowest);
    }
  }
}

keepLayout(new ProvisionalMemo<unknown>(undefined));
