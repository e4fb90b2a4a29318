/**
 * Work budgets for validation. Workers do not advance the clock while code runs, so a value's budget counts work,
 * charged before or as it is done so that a unit stands for about the same time whatever the keyword: a schema
 * visited, a character a pattern reads (times its RE2 program's size over 64 instructions), each required name of a
 * subschema applied, each patternProperties pattern against each property name, a comparison a uniqueness check
 * needs. An exhausted budget stops the validation with a "cannot verify" answer that names the limit.
 */

/*
 * Sizes, measured with npm run bench:hostile on the 2-core benchmark machine: the worst cases spend about 1,000 to
 * 1,600 units per millisecond, so a value's 100,000 units hold the isolate for at most about 60 to 100 ms, and nothing
 * else of the isolate waits longer than that (a value is validated in one go). 5,000 recorded exchanges of
 * GitHub's API (bench/github-exchanges.ts) spend about 290,000 units in all, some 60 per exchange.
 */

/** One payload (validate_response_payload) or one part of a recorded exchange. */
export const VALUE_WORK_UNITS = 100_000;
/** One upload of recorded exchanges validated without yielding (tests and benchmarks), all of its exchanges together. */
export const UPLOAD_WORK_UNITS = 2_000_000;
/**
 * One upload of recorded exchanges as the REST route validates it, in slices that yield: bounded by the time it
 * takes (read across the yields, where the clock moves), not by a count.
 */
export const UPLOAD_SECONDS = 120;

export class WorkBudgetExhausted extends Error {
  override readonly name = "WorkBudgetExhausted";
  constructor(
    readonly limit: number,
    readonly scope: "value" | "upload" | "upload-time",
  ) {
    super(
      scope === "value"
        ? `validating this value needs more than ${limit.toLocaleString("en-US")} work units, the limit per value, so it cannot be verified: send a smaller value or simplify the schema (fewer nested oneOf/anyOf alternatives, required lists, patternProperties)`
        : scope === "upload"
          ? `validating this upload needs more than ${limit.toLocaleString("en-US")} work units, the limit per upload, so it cannot be verified: split the recording into smaller uploads`
          : `validating this upload takes longer than ${limit} s, the limit per upload, so it cannot be verified: split the recording into smaller uploads`,
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
