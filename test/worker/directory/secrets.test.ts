// Organizations' secrets at rest (src/directory/secrets.ts): AES-256-GCM under a key from DIRECTORY_ENCRYPTION_KEY,
// bound to the organization and name, readable during a rotation with the previous key, refused without a key in a
// deployment.
import { describe, expect, it } from "vitest";
import { openSecret, sealSecret, SecretKeyMissing } from "../../../src/directory/secrets";

const DEPLOYED = "https://arbiter.example.com";
const OLD = { PUBLIC_URL: DEPLOYED, DIRECTORY_ENCRYPTION_KEY: "old-key-old-key-old-key-old-key-0001" };
const NEW = { PUBLIC_URL: DEPLOYED, DIRECTORY_ENCRYPTION_KEY: "new-key-new-key-new-key-new-key-0002" };
const ROTATING = { ...NEW, DIRECTORY_ENCRYPTION_KEY_PREVIOUS: OLD.DIRECTORY_ENCRYPTION_KEY };

describe("directory secrets", () => {
  it("seals to ciphertext that only the same organization and name open", async () => {
    const sealed = await sealSecret(OLD, "initech", "upstreamCredential", "s3cret-value");
    expect(new TextDecoder().decode(sealed.ciphertext)).not.toContain("s3cret");
    expect(await openSecret(OLD, "initech", "upstreamCredential", sealed)).toBe("s3cret-value");
    expect(await openSecret(OLD, "acme", "upstreamCredential", sealed)).toBeUndefined();
    expect(await openSecret(OLD, "initech", "signInClientSecret", sealed)).toBeUndefined();
  });

  it("opens old secrets during a rotation, and not after the previous key is gone", async () => {
    const sealed = await sealSecret(OLD, "initech", "upstreamCredential", "v1");
    expect(await openSecret(NEW, "initech", "upstreamCredential", sealed)).toBeUndefined();
    expect(await openSecret(ROTATING, "initech", "upstreamCredential", sealed)).toBe("v1");
    const resealed = await sealSecret(ROTATING, "initech", "upstreamCredential", "v1");
    expect(resealed.keyId).not.toBe(sealed.keyId);
    expect(await openSecret(NEW, "initech", "upstreamCredential", resealed)).toBe("v1");
  });

  it("refuses to seal without a key (or with a short one) outside development", async () => {
    await expect(sealSecret({ PUBLIC_URL: DEPLOYED }, "initech", "upstreamCredential", "x")).rejects.toThrow(
      SecretKeyMissing,
    );
    await expect(
      sealSecret({ PUBLIC_URL: DEPLOYED, DIRECTORY_ENCRYPTION_KEY: "short" }, "initech", "upstreamCredential", "x"),
    ).rejects.toThrow(/DIRECTORY_ENCRYPTION_KEY/);
    const dev = await sealSecret({ PUBLIC_URL: "http://localhost:8787" }, "initech", "upstreamCredential", "x");
    expect(await openSecret({ PUBLIC_URL: "http://localhost:8787" }, "initech", "upstreamCredential", dev)).toBe("x");
  });
});
