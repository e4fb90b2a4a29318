/**
 * A contract version keeps two forms (src/contracts/store/verdict-form.ts): its verdict form (the whole validated
 * document, for every reader) and its comparison form (annotations stripped), which a snapshot upload reads as the
 * contract side of its verdict. The snapshot's verdict is the one the whole document gives.
 */
import { runInDurableObject } from "cloudflare:test";
import { projectStore } from "./stores";
import { beforeAll, describe, expect, it } from "vitest";
import {
  COMPARISON_FORM_VERSION,
  decodeVerdictForm,
  VERDICT_FORM_VERSION,
} from "../../../src/contracts/store/verdict-form";
import { checkConformance } from "../../../src/engine/engine";
import { getConformanceConfig } from "../../../src/engine/verdict/config";
import type { OpenApiDocument } from "../../../src/engine/types";
import { callJson } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { ordersContract, text, violatingSnapshot } from "./fixtures";

let developer: Caller;

/** The store of project "forms", its own (src/contracts/store/project-homes.ts). */
function store() {
  return projectStore("acme", "forms");
}

beforeAll(() => {
  developer = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
});

describe("the comparison form of a contract version", () => {
  it("is stored beside the verdict form, without the annotations, and read as the contract side of a snapshot's verdict", async () => {
    const described = ordersContract({
      info: { title: "Orders", version: "1.0.0", description: "The orders API, ".repeat(200) },
    });
    const created = await callJson(developer, "POST", "/projects/forms/contracts", text(described));
    expect(created.status).toBe(201);
    const hash: string = created.body.contract.contentHash;

    const forms = await runInDurableObject(store(), (_instance, state) =>
      state.storage.sql
        .exec<{ form_version: number; form_hash: string }>(
          "SELECT form_version, form_hash FROM contract_forms WHERE content_hash = ? ORDER BY form_version",
          hash,
        )
        .toArray(),
    );
    expect(forms.map((form) => form.form_version)).toEqual([VERDICT_FORM_VERSION, COMPARISON_FORM_VERSION]);

    // Readers get the whole document; the snapshot upload's context names the comparison form.
    const read = await store().documentSource(hash);
    const context = await store().uploadContext("forms");
    expect(read?.hash).toBe(forms[0]!.form_hash);
    expect(context.activeSource?.hash).toBe(forms[1]!.form_hash);
    const whole = decodeVerdictForm(read!.inline!) as OpenApiDocument & { info: { description?: string } };
    const compared = decodeVerdictForm(context.activeSource!.inline!) as OpenApiDocument & {
      info: { description?: string };
    };
    expect(whole.info.description).toContain("The orders API");
    expect(compared.info.description).toBe("");
    expect(context.activeSource!.size).toBeLessThan(read!.size);

    const snapshot = await callJson(
      developer,
      "POST",
      "/projects/forms/snapshots?commit=f0f0",
      text(violatingSnapshot()),
    );
    expect(snapshot.status).toBe(201);
    expect(snapshot.body.verdict).toEqual(
      JSON.parse(
        JSON.stringify(checkConformance(whole, violatingSnapshot() as OpenApiDocument, getConformanceConfig())),
      ),
    );
    expect(snapshot.body.verdict.approved).toBe(false);
  });
});
