/**
 * Work budgets for validation. Workers do not advance the clock while code runs, so a budget counts work, not
 * time: one unit per schema visited for one value, per character a pattern reads, per comparison a uniqueness
 * check needs. An exhausted budget stops the validation with a "cannot verify" answer that names the limit.
 */

/*
 * Sizes: 5,000 recorded exchanges of GitHub's API (bench/github-exchanges.ts) spend about 290,000 units; the
 * upload budget is seven times that. The costliest units (schema visits that fail and produce errors) run at
 * roughly a thousand per millisecond on the 2-core benchmark machine, so a value's budget holds the isolate well
 * under a second, and an upload's is spent in slices between which other requests run (validate.ts).
 */

/** One payload (validate_response_payload) or one part of a recorded exchange. */
export const VALUE_WORK_UNITS = 500_000;
/** One upload of recorded exchanges, all of its exchanges together. */
export const UPLOAD_WORK_UNITS = 2_000_000;

export class WorkBudgetExhausted extends Error {
  override readonly name = "WorkBudgetExhausted";
  constructor(
    readonly limit: number,
    readonly scope: "value" | "upload",
  ) {
    super(
      scope === "value"
        ? `validating this value needs more than ${limit.toLocaleString("en-US")} work units, the limit per value, so it cannot be verified: send a smaller value or simplify the schema (fewer nested oneOf/anyOf alternatives)`
        : `validating this upload needs more than ${limit.toLocaleString("en-US")} work units, the limit per upload, so it cannot be verified: split the recording into smaller uploads`,
    );
  }
}

export class WorkBudget {
  private spentUnits = 0;

  constructor(
    readonly limit: number,
    readonly scope: "value" | "upload",
    /** A larger budget this one also draws from (the upload's, for each value in it). */
    private readonly parent?: WorkBudget,
  ) {}

  get spent(): number {
    return this.spentUnits;
  }

  spend(units: number): void {
    this.spentUnits += units;
    if (this.spentUnits > this.limit) throw new WorkBudgetExhausted(this.limit, this.scope);
    this.parent?.spend(units);
  }
}
